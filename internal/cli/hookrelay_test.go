package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/internal/hookrelay"
)

// TestRelayRefuses: calls whose flags name another policy or server, or
// without an absolute cwd, are handed back to the client (which runs the
// full binary); an unknown agent is blocked. None reaches a server.
func TestRelayRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		call  hookrelay.Call
		local bool
	}{
		{"policy dirs", hookrelay.Call{Agent: "claude-code", Cwd: "/p", Args: []string{"--policy", "/x"}}, true},
		{"policy dirs, one dash", hookrelay.Call{Agent: "claude-code", Cwd: "/p", Args: []string{"-policy=/x"}}, true},
		{"remote", hookrelay.Call{Agent: "codex", Cwd: "/p", Args: []string{"--remote", "https://rivumi.example/"}}, true},
		{"socket none", hookrelay.Call{Agent: "gemini", Cwd: "/p", Args: []string{"--socket", "none"}}, true},
		{"relative cwd", hookrelay.Call{Agent: "claude-code", Cwd: "p"}, true},
		{"unknown agent", hookrelay.Call{Agent: "install", Cwd: "/p"}, false},
	} {
		res := relayHook(context.Background(), nil, tc.call)
		if res.Local != tc.local {
			t.Errorf("%s: Local = %v, want %v", tc.name, res.Local, tc.local)
		}
		if !tc.local && (res.Code != ExitHookBlock || !strings.Contains(string(res.Stderr), "unknown hook agent")) {
			t.Errorf("%s: exit %d %q; want a block", tc.name, res.Code, res.Stderr)
		}
	}
}

