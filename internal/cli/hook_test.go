package cli

import (
	"bytes"
	"context"
	"errors"
	"github.com/rivumi/rivumi/harness"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// execEnv, when set to 1, makes the test binary run the CLI instead of the
// tests: the hook, serve and build scripts run rivumi as a fresh process,
// with their own environment, as agents do.
const execEnv = "RIVUMI_CLI_TEST_EXEC"

func TestMain(m *testing.M) {
	// As cmd/rivumi does: the sandbox helper and probe run as this binary.
	harness.MaybeRunSandboxChild()
	if os.Getenv(execEnv) == "1" {
		// As cmd/rivumi does.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Main(ctx, os.Args[1:], Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
		stop()
		os.Exit(code)
	}
	// No test starts a per-user server by accident (autostart.go).
	os.Setenv(noAutostartEnv, "1")
	os.Exit(m.Run())
}

// procEnv lists the variables a script may set for rivumi-proc.
var procEnv = []string{
	"HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "SHELL", "TMPDIR",
	"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CODEX_HOME", "RIVUMI_SOCKET", "PATH",
}

// hookScriptParams are the testscript parameters of the hook_*, serve_*
// and build_* scripts:
//
//	rivumi-proc ARGS...            run rivumi as a fresh process; stdin is $WORK/payload.json
//	                               when it exists (rm it for none); sets RIVUMI_EXIT
//	exitcode N                     the last rivumi-proc exit code
//	payload AGENT TOOL JSON [CWD]  write $WORK/payload.json: one hook call of TOOL with
//	                               tool_input JSON ($VARS expanded), cwd $WORK/proj by default
//
// $WORK/proj is a git project (it has .git/), $HOME is $WORK/home, and
// $WORK/bin/rivumi runs this CLI (for hook install and doctor).
func hookScriptParams(t *testing.T, glob string) testscript.Params {
	files, _ := filepath.Glob(glob)
	if len(files) == 0 {
		t.Fatalf("no scripts match %s", glob)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return testscript.Params{
		Files: files,
		Setup: func(env *testscript.Env) error {
			w := env.WorkDir
			for _, d := range []string{"proj/.git", "home", "state", "config", "run", "bin"} {
				if err := os.MkdirAll(filepath.Join(w, d), 0o755); err != nil {
					return err
				}
			}
			wrapper := "#!/bin/sh\n" + execEnv + "=1 exec '" + self + "' \"$@\"\n"
			if err := os.WriteFile(filepath.Join(w, "bin", "rivumi"), []byte(wrapper), 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", filepath.Join(w, "home"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(w, "state"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(w, "config"))
			env.Setenv("XDG_RUNTIME_DIR", filepath.Join(w, "run"))
			env.Setenv("SHELL", "/bin/bash")
			env.Setenv("RIVUMI_TEST_BINARY", self)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"rivumi-proc": func(ts *testscript.TestScript, neg bool, args []string) {
				cmd := exec.Command(self, args...)
				cmd.Dir = ts.Getenv("WORK")
				cmd.Env = []string{execEnv + "=1", noAutostartEnv + "=1"}
				for _, k := range procEnv {
					if v := ts.Getenv(k); v != "" {
						cmd.Env = append(cmd.Env, k+"="+v)
					}
				}
				if b, err := os.ReadFile(ts.MkAbs("payload.json")); err == nil {
					cmd.Stdin = bytes.NewReader(b)
				}
				cmd.Stdout, cmd.Stderr = ts.Stdout(), ts.Stderr()
				err := cmd.Run()
				code := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("run rivumi: %v", err)
				}
				ts.Setenv("RIVUMI_EXIT", strconv.Itoa(code))
				if neg != (code != 0) {
					ts.Fatalf("rivumi exited %d", code)
				}
			},
			"exitcode": exitcodeCmd,
			// replace FILE OLD NEW: every OLD in FILE becomes NEW (an edit
			// the test makes itself, with no program a gate would grade).
			"replace": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 3 || neg {
					ts.Fatalf("usage: replace FILE OLD NEW")
				}
				b, err := os.ReadFile(ts.MkAbs(args[0]))
				ts.Check(err)
				if !bytes.Contains(b, []byte(args[1])) {
					ts.Fatalf("%s holds no %q", args[0], args[1])
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), bytes.ReplaceAll(b, []byte(args[1]), []byte(args[2])), 0o644))
			},
			"payload": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 3 || len(args) > 4 || neg {
					ts.Fatalf("usage: payload AGENT TOOL JSON [CWD]")
				}
				cwd := filepath.Join(ts.Getenv("WORK"), "proj")
				if len(args) == 4 {
					cwd = ts.MkAbs(args[3])
				}
				event := "PreToolUse"
				if args[0] == "gemini" {
					event = "BeforeTool"
				}
				input := os.Expand(args[2], ts.Getenv)
				// $PAYLOAD_TRANSCRIPT names the session record (Codex's
				// session_meta gives the session's own cwd).
				transcript := "/dev/null"
				if t := ts.Getenv("PAYLOAD_TRANSCRIPT"); t != "" {
					transcript = ts.MkAbs(t)
				}
				// $PAYLOAD_PERMISSION_MODE sets permission_mode (Claude Code).
				mode := ""
				if m := ts.Getenv("PAYLOAD_PERMISSION_MODE"); m != "" {
					mode = `,"permission_mode":` + strconv.Quote(m)
				}
				body := `{"session_id":"s1","transcript_path":` + strconv.Quote(transcript) + mode + `,"cwd":` + strconv.Quote(cwd) +
					`,"hook_event_name":"` + event + `","tool_name":` + strconv.Quote(args[1]) + `,"tool_input":` + input + `}`
				ts.Check(os.WriteFile(ts.MkAbs("payload.json"), []byte(body), 0o644))
			},
		},
	}
}

func TestHookScripts(t *testing.T) {
	testscript.Run(t, hookScriptParams(t, "testdata/script/hook_*.txtar"))
}

func TestShellDialectFlag(t *testing.T) {
	var stderr bytes.Buffer
	code := Main(context.Background(), []string{"hook", "claude-code", "--shell", "fish", "--audit", "off"},
		Stdio{In: strings.NewReader("{}"), Out: &bytes.Buffer{}, Err: &stderr})
	if code != ExitHookBlock || !strings.Contains(stderr.String(), "--shell") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
