package hook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/verdict"
)

// TestCodexInteractiveAsks: Codex's exec_command may start a program with
// a tty and feed it lines later through write_stdin, which fires no hook
// (0.171), and the payload does not say whether tty was set. So a
// program that runs what it reads from stdin (a shell, an interpreter's
// REPL, a remote shell) must never be allowed from the command alone,
// while one that only prints its input may be.
func TestCodexInteractiveAsks(t *testing.T) {
	e, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cmd     string
		allowed bool
	}{
		{"bash", false}, {"bash -i", false}, {"sh", false}, {"zsh -l", false}, {"exec bash", false},
		{"env bash --norc", false}, {"python3", false}, {"python3 -i", false}, {"node", false},
		{"ssh host", false}, {"sqlite3 x.db", false}, {"irb", false}, {"psql", false}, {"gdb", false},
		{"cat", true}, {"wc -l", true},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			payload := `{"session_id":"s","cwd":"` + ws + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + c.cmd + `"}}`
			cfg := Config{Agent: Codex, NewGrader: graderOf(e.Grade), Home: t.TempDir(), GOOS: "linux", Getenv: func(string) string { return "" }}
			a := Decide(context.Background(), cfg, strings.NewReader(payload))
			if a.Failure != "" {
				t.Fatal(a.Failure)
			}
			if got := a.Verdict.Decision == verdict.Allow; got != c.allowed {
				t.Errorf("%s: verdict %v (%s), want allowed=%v", c.cmd, a.Verdict.Decision, a.Reason, c.allowed)
			}
		})
	}
}
