package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/hookrelay"
	"github.com/rivumi/rivumi/server"
)

// BenchmarkRelayHook is the serving side of a warm thin-client call: one
// relayed Claude Code call for `ls -la`, run as `rivumi hook` would run it
// (flags, configuration, payload, grading through the disk), without its
// decision log (--audit off: the fsync is the disk's, not rivumi's).
func BenchmarkRelayHook(b *testing.B) {
	dir := b.TempDir()
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	b.Setenv("HOME", dir)
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	var pf policyFlags
	ctx := context.Background()
	srv, err := server.New(ctx, func(ctx context.Context) (*engine.Engine, error) {
		_, load, err := pf.configFor(ctx, "")
		if err != nil {
			return nil, err
		}
		return load(ctx)
	}, server.WithConfigs(pf.configFor, 0))
	if err != nil {
		b.Fatal(err)
	}
	c := hookrelay.Call{
		Agent: "claude-code", Args: []string{"--audit", "off"}, Cwd: proj, PPID: 1,
		Env:   []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "PATH=/usr/bin:/bin"},
		Stdin: []byte(`{"session_id":"s","cwd":"` + proj + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la"}}`),
	}
	for b.Loop() {
		if res := relayHook(ctx, srv, c); res.Code != 0 || len(res.Stdout) == 0 {
			b.Fatalf("relay: %d %s %s", res.Code, res.Stdout, res.Stderr)
		}
	}
}
