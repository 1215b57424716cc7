package cli

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/hookrelay"
	"github.com/rivumi/rivumi/server"
)

// relayServer is a server over the embedded packs in a private home, and
// a relayed Claude Code call for command in a project there.
func relayServer(tb testing.TB, command string) (*server.Server, hookrelay.Call) {
	dir := tb.TempDir()
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Setenv("HOME", dir)
	tb.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
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
		tb.Fatal(err)
	}
	return srv, hookrelay.Call{
		Agent: "claude-code", Args: []string{"--audit", "off"}, Cwd: proj, PPID: 1,
		Env:   []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "PATH=/usr/bin:/bin"},
		Stdin: []byte(`{"session_id":"s","cwd":"` + proj + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + command + `"}}`),
	}
}

// BenchmarkRelayHook is the serving side of a warm thin-client call: one
// relayed Claude Code call for `ls -la`, run as `rivumi hook` would run it
// (flags, configuration, payload, grading through the disk), without its
// decision log (--audit off: the fsync is the disk's, not rivumi's).
func BenchmarkRelayHook(b *testing.B) {
	srv, c := relayServer(b, "ls -la")
	ctx := context.Background()
	for b.Loop() {
		if res := relayHook(ctx, srv, c, noReply); res.Code != 0 || len(res.Stdout) == 0 {
			b.Fatalf("relay: %d %s %s", res.Code, res.Stdout, res.Stderr)
		}
	}
}

// TestRelayConcurrent: relayed calls run side by side in one server, each
// in its own environment (run it with -race): calls naming different
// project directories get their own answers.
func TestRelayConcurrent(t *testing.T) {
	srv, c := relayServer(t, "npm test") // its grant hint names the workspace
	ctx := context.Background()
	want := map[string]string{}
	for _, ws := range []string{"/srv/a", "/srv/b"} {
		cc := c
		cc.Env = append(append([]string(nil), c.Env...), "CLAUDE_PROJECT_DIR="+ws)
		want[ws] = string(relayHook(ctx, srv, cc, noReply).Stdout)
	}
	if want["/srv/a"] == want["/srv/b"] {
		t.Fatalf("the project directory does not show in the answer: %s", want["/srv/a"])
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := []string{"/srv/a", "/srv/b"}[i%2]
			cc := c
			cc.Env = append(append([]string(nil), c.Env...), "CLAUDE_PROJECT_DIR="+ws)
			for range 3 {
				if got := string(relayHook(ctx, srv, cc, noReply).Stdout); got != want[ws] {
					t.Errorf("%s: %s; want %s", ws, got, want[ws])
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkRelayHookAudit is BenchmarkRelayHook with the decision log, as
// a hook call writes it by default: one entry, fsync'd before the answer.
func BenchmarkRelayHookAudit(b *testing.B) {
	srv, c := relayServer(b, "ls -la")
	c.Args = []string{"--audit", filepath.Join(b.TempDir(), "audit.jsonl")}
	ctx := context.Background()
	for b.Loop() {
		if res := relayHook(ctx, srv, c, noReply); res.Code != 0 || len(res.Stdout) == 0 {
			b.Fatalf("relay: %d %s %s", res.Code, res.Stdout, res.Stderr)
		}
	}
}

// noReply is the early reply of a relayed call that nobody reads.
func noReply(hookrelay.Result) {}
