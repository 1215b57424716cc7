package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/mcpserver"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/bundle"
	"github.com/rivumi/rivumi/workspace/tools"

	"github.com/rivumi/rivumi/internal/testenv"
)

// TestWorkspaceDoc runs the walk-through of docs/workspace.md: its
// ```testscript blocks in order, then the files of its ```txtar blocks,
// with `exec rivumi` running this CLI as a fresh process.
func TestWorkspaceDoc(t *testing.T) {
	testenv.SkipInsideRun(t, "a nested sandbox for the workspace tools")
	testscript.Run(t, docScriptParams(t, "../../docs/workspace.md", nil))
}

// TestWorkspaceExitCodes checks the exit codes of the workspace commands
// in-process: 5 for a refused tool call, 3 for a failed finish, 1 for
// bad usage.
func TestWorkspaceExitCodes(t *testing.T) {
	testenv.SkipInsideRun(t, "a nested sandbox for the workspace tools")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	run := func(args ...string) (int, string) {
		var out, errb strings.Builder
		code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String() + errb.String()
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", src, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("a\n"), 0o644)
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "a")
	sha := git("rev-parse", "HEAD")
	cfg := filepath.Join(dir, "cfg.json")
	os.WriteFile(cfg, []byte(`{"checks":[{"name":"fails","argv":["false"]}]}`), 0o644)
	runs := filepath.Join(dir, "runs")
	os.Mkdir(runs, 0o755)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"allowed":["x"]}`), 0o644)

	if code, out := run("workspace", "prepare", "-source", src, "-commit", sha, "-run-root", runs, "-name", "r", "-config", cfg); code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s", code, out)
	}
	rd := filepath.Join(runs, "r")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"workspace", "tool", "-run", rd, "read_file", `{"path":"a.txt"}`}, ExitOK, `"ok":true`},
		{[]string{"workspace", "tool", "-run", rd, "read_file", `{"path":"/etc/passwd"}`}, ExitRefused, "absolute path"},
		{[]string{"workspace", "tool", "-run", rd, "-sandbox", "none", "run_check", `{"name":"fails"}`}, ExitRefused, "check fails failed"},
		{[]string{"workspace", "tool", "-run", rd}, ExitError, "want -run DIR, a tool"},
		{[]string{"workspace", "tool", "-run", rd, "read_file", `{"path":"a.txt"}`, "extra"}, ExitError, "at most one JSON argument"},
		{[]string{"workspace", "finish", "-run", rd}, ExitTestFailed, `"status": "failed"`},
		{[]string{"workspace", "tools"}, ExitOK, "replace_text  {path:string, old:string, new:string, all:bool}"},
		{[]string{"workspace", "prepare", "-source", src, "-commit", "HEAD", "-run-root", runs, "-name", "x"}, ExitError, "full 40-character SHA"},
		{[]string{"workspace", "prepare", "-source", src, "-commit", sha, "-run-root", runs, "-name", "y", "-config", filepath.Join(dir, "nope.json")}, ExitError, "no such file"},
		{[]string{"workspace", "prepare", "-source", src, "-commit", sha, "-run-root", runs, "-name", "y", "-config", bad}, ExitError, `key "allowed" at $: unknown key`},
	}
	for _, tt := range tests {
		code, out := run(tt.args...)
		if code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("rivumi %s: exit %d, want %d; output:\n%s", strings.Join(tt.args, " "), code, tt.code, out)
		}
	}
}

// The CLI's workspace finish records the event the MCP finish tool
// records: the same tool, arguments, outcome and byte counts.
func TestWorkspaceFinishEventAsMCP(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("a\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "a"}} {
		cmd := exec.Command("git", append([]string{"-C", src, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	sha, _ := exec.Command("git", "-C", src, "rev-parse", "HEAD").Output()
	prepare := func(name string) *workspace.Workspace {
		w, err := workspace.Prepare(context.Background(), workspace.PrepareOptions{
			Source: src, Commit: strings.TrimSpace(string(sha)), RunRoot: dir, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	lastEvent := func(w *workspace.Workspace) bundle.Event {
		evs, err := w.Bundle().Events()
		if err != nil || len(evs) == 0 {
			t.Fatalf("events: %v %v", evs, err)
		}
		return evs[len(evs)-1]
	}

	// MCP.
	w := prepare("mcp")
	srv, err := mcpserver.New(mcpserver.Config{Tools: tools.Config{Workspace: w, Harness: harness.Config{Sandbox: harness.SandboxNone}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st) //nolint:errcheck // ends with ctx
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "finish", Arguments: map[string]any{"reason": "done"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	viaMCP := lastEvent(w)
	srv.Close()
	w.Close()

	// CLI.
	w = prepare("cli")
	w.Close()
	var out, errb strings.Builder
	if code := Main(context.Background(), []string{"workspace", "finish", "-run", filepath.Join(dir, "cli"), "-reason", "done"},
		Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}); code != ExitOK {
		t.Fatalf("workspace finish: exit %d\n%s%s", code, out.String(), errb.String())
	}
	w, err = workspace.Open(filepath.Join(dir, "cli"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	viaCLI := lastEvent(w)

	if viaCLI.Tool != viaMCP.Tool || string(viaCLI.Args) != string(viaMCP.Args) || viaCLI.OK != viaMCP.OK ||
		viaCLI.Summary != viaMCP.Summary || viaCLI.Error != viaMCP.Error || viaCLI.BytesIn != viaMCP.BytesIn ||
		viaCLI.BytesOut == 0 || viaCLI.BytesOut-viaMCP.BytesOut > 4 || viaMCP.BytesOut-viaCLI.BytesOut > 4 {
		t.Errorf("CLI finish event %+v\nMCP finish event %+v", viaCLI, viaMCP)
	}
}
