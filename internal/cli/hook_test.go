package cli

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/hook"
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
//	waitsock PATH                  wait until a server answers on the unix socket PATH
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
			// waitsock PATH: wait (up to 30 s) until a server answers on
			// the unix socket PATH.
			"waitsock": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 || neg {
					ts.Fatalf("usage: waitsock PATH")
				}
				for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
					if c, err := net.Dial("unix", ts.MkAbs(args[0])); err == nil {
						c.Close()
						return
					} else if time.Now().After(deadline) {
						ts.Fatalf("no server answers on %s: %v", args[0], err)
					}
				}
			},
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

// TestThinBinary: install runs the thin client only when it falls back to
// the very binary install chose; a per-user copy gets the thin client from
// beside its source (refreshed), never a stale one left beside the copy.
func TestThinBinary(t *testing.T) {
	write := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, d string) (exe, copiedFrom string)
		want  string // the thin client, relative to d; "" for an error
		err   string
		same  string // the file (relative to d) the thin client must equal
	}{
		{"beside the binary", func(t *testing.T, d string) (string, string) {
			write(t, d+"/bin/rivumi", "full")
			write(t, d+"/bin/rivumi-hook", "thin")
			return d + "/bin/rivumi", ""
		}, "bin/rivumi-hook", "", ""},
		{"none beside the binary", func(t *testing.T, d string) (string, string) {
			write(t, d+"/bin/rivumi", "full")
			return d + "/bin/rivumi", ""
		}, "", "no rivumi-hook beside", ""},
		{"another name: the fallback is another binary", func(t *testing.T, d string) (string, string) {
			write(t, d+"/bin/rivumi-dev", "full")
			write(t, d+"/bin/rivumi", "older")
			write(t, d+"/bin/rivumi-hook", "thin")
			return d + "/bin/rivumi-dev", ""
		}, "", "falls back to", ""},
		{"another name, no rivumi beside", func(t *testing.T, d string) (string, string) {
			write(t, d+"/bin/rivumi-dev", "full")
			write(t, d+"/bin/rivumi-hook", "thin")
			return d + "/bin/rivumi-dev", ""
		}, "", "falls back to", ""},
		{"another name, rivumi a link to it", func(t *testing.T, d string) (string, string) {
			write(t, d+"/bin/rivumi-dev", "full")
			write(t, d+"/bin/rivumi-hook", "thin")
			if err := os.Symlink("rivumi-dev", d+"/bin/rivumi"); err != nil {
				t.Fatal(err)
			}
			return d + "/bin/rivumi-dev", ""
		}, "bin/rivumi-hook", "", ""},
		{"a linked thin client falls back beside its target", func(t *testing.T, d string) (string, string) {
			write(t, d+"/bin/rivumi", "full")
			write(t, d+"/opt/rivumi-hook", "thin")
			write(t, d+"/opt/rivumi", "other")
			if err := os.Symlink(d+"/opt/rivumi-hook", d+"/bin/rivumi-hook"); err != nil {
				t.Fatal(err)
			}
			return d + "/bin/rivumi", ""
		}, "", "falls back to", ""},
		{"per-user copy: copied from beside the source", func(t *testing.T, d string) (string, string) {
			write(t, d+"/clone/rivumi", "full")
			write(t, d+"/clone/rivumi-hook", "thin v2")
			write(t, d+"/share/rivumi", "full")
			write(t, d+"/share/rivumi-hook", "thin v1") // refreshed
			return d + "/share/rivumi", d + "/clone/rivumi"
		}, "share/rivumi-hook", "", "clone/rivumi-hook"},
		{"per-user copy: a stale thin client is not used", func(t *testing.T, d string) (string, string) {
			write(t, d+"/clone/rivumi", "full")
			write(t, d+"/share/rivumi", "full")
			write(t, d+"/share/rivumi-hook", "thin v1")
			return d + "/share/rivumi", d + "/clone/rivumi"
		}, "", "no rivumi-hook beside", ""},
		{"the binary is missing", func(t *testing.T, d string) (string, string) {
			write(t, d+"/bin/rivumi-hook", "thin")
			return d + "/bin/rivumi", ""
		}, "", "the full binary", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			exe, from := tc.setup(t, d)
			got, err := thinBinary(exe, from)
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("thinBinary = %q, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != filepath.Join(d, tc.want) {
				t.Fatalf("thinBinary = %q, %v; want %s", got, err, filepath.Join(d, tc.want))
			}
			if tc.same != "" {
				a, _ := os.ReadFile(got)
				b, _ := os.ReadFile(filepath.Join(d, tc.same))
				if !bytes.Equal(a, b) {
					t.Errorf("%s holds %q, want %q (a copy of %s)", got, a, b, tc.same)
				}
				if fi, err := os.Stat(got); err != nil || fi.Mode()&0o111 == 0 {
					t.Errorf("%s is not executable: %v", got, err)
				}
			}
		})
	}
}

// TestEntryRoute: doctor reads from an installed command line where its
// calls go, as the hook decides it from its flags, and says when it
// cannot tell.
func TestEntryRoute(t *testing.T) {
	t.Setenv("RIVUMI_SOCKET", "/run/user/1/rivumi.sock")
	for _, tc := range []struct {
		command string
		want    hookRoute
	}{
		{"/b/rivumi-hook hook claude-code", hookRoute{socket: "/run/user/1/rivumi.sock"}},
		{"/b/rivumi hook claude-code --audit '/a b'", hookRoute{socket: "/run/user/1/rivumi.sock"}},
		{"/b/rivumi-hook hook claude-code --socket /s", hookRoute{socket: "/s"}},
		{"/b/rivumi-hook hook claude-code --socket none", hookRoute{why: "the entry says --socket none"}},
		{"/b/rivumi hook claude-code --policy /p", hookRoute{why: "the entry names --policy dirs and no --socket"}},
		{"/b/rivumi hook claude-code --policy /p --socket /s", hookRoute{socket: "/s"}},
		{"/b/rivumi hook claude-code --remote https://rivumi.example", hookRoute{remote: "https://rivumi.example"}},
		{"/b/rivumi hook claude-code --bogus", hookRoute{unknown: "its hook flags do not parse"}},
	} {
		if got := entryRoute(tc.command, hook.ClaudeCode); got != tc.want {
			t.Errorf("entryRoute(%q) = %+v, want %+v", tc.command, got, tc.want)
		}
	}
	if got := entryRoute("/b/rivumi hook claude-code --audit $HOME/log", hook.ClaudeCode); got.unknown == "" || got.socket != "" {
		t.Errorf("a command with an expansion: %+v, want unknown", got)
	}
}
