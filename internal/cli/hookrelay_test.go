package cli

import (
	"context"
	"os"
	"path/filepath"
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
		res := relayHook(context.Background(), nil, tc.call, nil)
		if res.Local != tc.local {
			t.Errorf("%s: Local = %v, want %v", tc.name, res.Local, tc.local)
		}
		if !tc.local && (res.Code != ExitHookBlock || !strings.Contains(string(res.Stderr), "unknown hook agent")) {
			t.Errorf("%s: exit %d %q; want a block", tc.name, res.Code, res.Stderr)
		}
	}
}

// TestRelayProtectsBinaries: a relayed file tool call may not write the
// client's binary, the server's own, or where a symlink to either points
// (the globs MoreProtected finds only for file tools).
func TestRelayProtectsBinaries(t *testing.T) {
	srv, c := relayServer(t, "ls")
	dir := t.TempDir()
	real := filepath.Join(dir, "real-rivumi-hook")
	link := filepath.Join(dir, "rivumi-hook")
	if err := os.WriteFile(real, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c.Exe = link
	for _, p := range []string{link, real, self, filepath.Join(c.Cwd, "ok.txt")} {
		cc := c
		cc.Stdin = []byte(`{"session_id":"s","cwd":"` + c.Cwd + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + p + `","content":"x"}}`)
		res := relayHook(context.Background(), srv, cc, noReply)
		want := `"permissionDecision":"deny"`
		if strings.HasSuffix(p, "ok.txt") {
			want = `"permissionDecision":"allow"`
		}
		if res.Code != 0 || !strings.Contains(string(res.Stdout), want) {
			t.Errorf("write %s: exit %d %s %s; want %s", p, res.Code, res.Stdout, res.Stderr, want)
		}
	}
}

// TestLookupEnv: a relayed call's variables read as os.Getenv reads them.
func TestLookupEnv(t *testing.T) {
	env := []string{"A=1", "NOEQUALS", "AB=2", "A=3", "EMPTY=", "=x", "C==y"}
	for k, want := range map[string]string{"A": "1", "AB": "2", "EMPTY": "", "NOEQUALS": "", "": "x", "C": "=y", "B": "", "AB=2": ""} {
		if got := lookupEnv(env, k); got != want {
			t.Errorf("lookupEnv(%q) = %q, want %q", k, got, want)
		}
	}
}

// TestFlagsKey: distinct flag lists have distinct keys in the cache of
// parsed flags.
func TestFlagsKey(t *testing.T) {
	seen := map[string][]string{}
	for _, args := range [][]string{nil, {""}, {"", ""}, {"a b"}, {"a", "b"}, {"a\"", "b"}, {"a", "\"b"}, {"--shadow"}, {"--shadow", ""}} {
		k := flagsKey("claude-code", args)
		if prev, dup := seen[k]; dup {
			t.Errorf("%q and %q: same key %s", prev, args, k)
		}
		seen[k] = args
	}
	if flagsKey("codex", nil) == flagsKey("gemini", nil) {
		t.Error("agents share a key")
	}
}

// TestRelayLogRotated: the server keeps a relayed call's decision log
// open, and follows the path: after the log is rotated (renamed) or
// removed, the next call's entry goes to a new file at the path.
func TestRelayLogRotated(t *testing.T) {
	srv, c := relayServer(t, "ls")
	logf := filepath.Join(t.TempDir(), "state", "audit.jsonl")
	c.Args = []string{"--audit", logf}
	lines := func(p string) int {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(b), "\n")
	}
	call := func() {
		t.Helper()
		if res := relayHook(context.Background(), srv, c, noReply); res.Code != 0 {
			t.Fatalf("exit %d %s", res.Code, res.Stderr)
		}
	}
	call()
	call()
	if n := lines(logf); n != 2 {
		t.Fatalf("%d entries, want 2", n)
	}
	if err := os.Rename(logf, logf+".1"); err != nil {
		t.Fatal(err)
	}
	call()
	if n, old := lines(logf), lines(logf+".1"); n != 1 || old != 2 {
		t.Errorf("after rotation: %d entries at the path, %d in the rotated file; want 1 and 2", n, old)
	}
	if err := os.RemoveAll(filepath.Dir(logf)); err != nil {
		t.Fatal(err)
	}
	call()
	if n := lines(logf); n != 1 {
		t.Errorf("after removal: %d entries, want 1", n)
	}
}
