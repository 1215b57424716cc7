package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds are the testscript commands shared by the CLI's .txtar tests:
// `rivumi ARGS…` runs the CLI in-process (its exit code is kept for
// `exitcode N`; `! rivumi` expects a non-zero exit).
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"rivumi": func(ts *testscript.TestScript, neg bool, args []string) {
			code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: ts.Stdout(), Err: ts.Stderr()})
			ts.Setenv("RIVUMI_EXIT", strconv.Itoa(code))
			if neg != (code != 0) {
				ts.Fatalf("rivumi exited %d", code)
			}
		},
		"exitcode": exitcodeCmd,
	}
}

// TestEvalScripts runs testdata/script/eval_*.txtar and audit_*.txtar with
// the real engine, in-process in the script's directory with HOME,
// XDG_CONFIG_HOME and XDG_CACHE_HOME under $WORK (the project's grants are
// read from there).
func TestEvalScripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/script/eval_*.txtar")
	more, _ := filepath.Glob("testdata/script/audit_*.txtar")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no eval scripts")
	}
	for i, f := range files { // absolute: runInProcess moves the process
		files[i], _ = filepath.Abs(f)
	}
	cmds := scriptCmds()
	cmds["rivumi"] = runInProcess
	testscript.Run(t, testscript.Params{Files: files, Cmds: cmds,
		Setup: func(env *testscript.Env) error {
			for _, d := range []string{"home", "config", "cache"} {
				if err := os.MkdirAll(filepath.Join(env.WorkDir, d), 0o755); err != nil {
					return err
				}
			}
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, "config"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, "cache"))
			env.Setenv("NO_COLOR", "1")
			return nil
		}})
}

// exitcodeCmd is `exitcode N`: the last `rivumi` command exited N.
func exitcodeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: exitcode N")
	}
	if got := ts.Getenv("RIVUMI_EXIT"); got != args[0] {
		ts.Fatalf("exit code %s, want %s", got, args[0])
	}
}
