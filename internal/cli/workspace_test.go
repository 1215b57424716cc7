package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestWorkspaceDoc runs the walk-through of docs/workspace.md: its
// ```testscript blocks in order, then the files of its ```txtar blocks,
// with `exec rivumi` running this CLI as a fresh process.
func TestWorkspaceDoc(t *testing.T) {
	testscript.Run(t, docScriptParams(t, "../../docs/workspace.md", nil))
}

// TestWorkspaceExitCodes checks the exit codes of the workspace commands
// in-process: 5 for a refused tool call, 3 for a failed finish, 1 for
// bad usage.
func TestWorkspaceExitCodes(t *testing.T) {
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
