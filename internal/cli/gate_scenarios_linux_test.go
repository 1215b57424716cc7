package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/execgate"
)

// The exec gate against the ways an approved command starts programs its
// text never names. Each scenario is an approved `make TARGET` whose recipe
// reaches `rm -rf HOME` (the user's real home, by its literal path, as an
// attacker who read /etc/passwd would write it) through another mechanism:
// npm's script runner, Python's subprocess, a git alias, env -S, xargs,
// find -exec, a shell function, a static binary calling execve itself.
//
// Everything runs inside a bubblewrap jail whose root is read-only: only the
// test's directory is writable, so even a gate that failed would delete a
// throwaway home. Each scenario runs twice: without the gate (and without a
// sandbox) the home is deleted — the scenario is real — and with
// `--gate deny` it survives, the refusal is at an exec with a floor rule,
// and the audit entry holds the exec tree.
func TestGateScenariosInAJail(t *testing.T) {
	if err := execgate.Available(); err != nil {
		t.Skip(err)
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("bwrap not installed")
	}
	for _, p := range []string{"make", "git"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip(p + " not installed")
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	static := buildStaticExec(t, root, home)

	type scenario struct {
		name, recipe string
		needs        string // a program the scenario needs, skipped without it
		files        map[string]string
	}
	scenarios := []scenario{
		{name: "recipe", recipe: "rm -rf " + home},
		{name: "npm", recipe: "npm test --silent", needs: "npm",
			files: map[string]string{"package.json": `{"name":"x","version":"1.0.0","scripts":{"test":"rm -rf ` + home + `"}}`}},
		{name: "python", recipe: systemPython() + " clean.py", needs: systemPython(),
			files: map[string]string{"clean.py": "import subprocess\nsubprocess.run(['rm', '-rf', '" + home + "'])\n"}},
		{name: "git-alias", recipe: "git nuke"},
		{name: "env-S", recipe: "env -S 'rm -rf " + home + "'"},
		{name: "xargs", recipe: "echo " + home + " | xargs rm -rf"},
		{name: "find-exec", recipe: "find " + home + " -maxdepth 0 -exec rm -rf {} \\;"},
		{name: "function", recipe: "sh fn.sh", files: map[string]string{"fn.sh": "nuke() { rm -rf \"$1\"; }\nnuke " + home + "\n"}},
	}
	if static != "" {
		scenarios = append(scenarios, scenario{name: "static-binary", recipe: "./nuke-static", files: map[string]string{"nuke-static": static}})
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			if sc.needs == "" && sc.name == "python" {
				t.Skip("no python3 outside the homes")
			}
			if sc.needs != "" {
				if _, err := exec.LookPath(sc.needs); err != nil {
					t.Skip(sc.needs + " not installed")
				}
			}
			ws := filepath.Join(root, sc.name)
			for _, c := range [][]string{{"init", "-q", ws}, {"-C", ws, "config", "alias.nuke", "!rm -rf " + home}} {
				if out, err := exec.Command("git", c...).CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v %s", c, err, out)
				}
			}
			files := map[string]string{"Makefile": "all:\n\t" + strings.ReplaceAll(sc.recipe, "$", "$$") + "\n"}
			for name, body := range sc.files {
				files[name] = body
			}
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			grants := grantMake(t, ws)
			runJailed := func(args ...string) (int, string) {
				resetHome(t, home)
				cmd := jail(bwrap, root, home, nil, append([]string{self}, args...)...)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				cmd.WaitDelay = 5 * time.Second
				err := cmd.Run()
				var ee *exec.ExitError
				if err != nil && !errors.As(err, &ee) {
					t.Fatalf("jail: %v", err)
				}
				return cmd.ProcessState.ExitCode(), out.String()
			}
			log := filepath.Join(ws, "audit.jsonl")
			common := []string{"run", "--headless", "--timeout", "60s", "--audit", log, "--grants", grants, "-C", ws}

			// Without the gate, the scenario deletes the home.
			code, out := runJailed(append(common, "--sandbox", "none", "--", "make", "-s")...)
			if _, err := os.Stat(filepath.Join(home, "marker")); err == nil {
				t.Fatalf("ungated (exit %d) the home survived: the scenario does not reach rm\n%s", code, out)
			}

			code, out = runJailed(append(common, "--sandbox", "landlock", "--gate", "deny", "--", "make", "-s")...)
			if code == ExitNoSandbox {
				t.Skip(out)
			}
			if _, err := os.Stat(filepath.Join(home, "marker")); err != nil {
				t.Fatalf("gated (exit %d) the home was deleted\n%s", code, out)
			}
			if code == 0 {
				t.Errorf("make succeeded although an exec of its recipe was refused\n%s", out)
			}
			es, err := audit.ReadFile(log)
			if err != nil || len(es) == 0 {
				t.Fatalf("audit: %v", err)
			}
			run := es[len(es)-1]
			var tree []string
			stopped := false
			for _, x := range run.Execs {
				s := strings.Join(x.Argv, " ")
				if !x.Allowed {
					s += " => " + x.Rule
					stopped = stopped || strings.HasPrefix(x.Rule, "floor.")
				}
				tree = append(tree, s)
			}
			if !stopped {
				t.Errorf("no exec refused by a floor rule in the audit's exec tree:\n%s\n%s", strings.Join(tree, "\n"), out)
			}
			t.Logf("exec tree:\n%s", strings.Join(tree, "\n"))
		})
	}
}

// systemPython is a python3 outside the homes (which the sandbox hides:
// pyenv's shims live there), or "" when there is none.
func systemPython() string {
	for _, p := range []string{"/usr/bin/python3", "/usr/local/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// jail is argv in a bubblewrap jail whose root is read-only but for root
// (writable), with HOME=home, TMPDIR in root and this test binary acting
// as rivumi (execEnv); extra are more bwrap options.
func jail(bwrap, root, home string, extra []string, argv ...string) *exec.Cmd {
	tmp := filepath.Join(root, "tmp")
	os.MkdirAll(tmp, 0o700)
	args := []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent",
		"--bind", root, root, "--setenv", "HOME", home, "--setenv", "TMPDIR", tmp, "--setenv", execEnv, "1"}
	args = append(append(args, extra...), "--")
	return exec.Command(bwrap, append(args, argv...)...)
}

// resetHome makes home hold one marker file.
func resetHome(t *testing.T, home string) {
	t.Helper()
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "marker"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// buildStaticExec builds a statically linked program that calls execve
// itself (no libc, no shell) to run rm -rf home and returns its bytes, or
// "" when no Go toolchain is at hand.
func buildStaticExec(t *testing.T, dir, home string) string {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return ""
	}
	src := filepath.Join(dir, "nuke")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "go.mod"), []byte("module nuke\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(src, "main.go"), []byte(`package main

import (
	"os"
	"syscall"
)

func main() {
	err := syscall.Exec("/bin/rm", []string{"rm", "-rf", "`+home+`"}, nil)
	println("execve:", err.Error())
	os.Exit(1)
}
`), 0o644)
	bin := filepath.Join(dir, "nuke-static")
	cmd := exec.Command(gobin, "build", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the static program: %v\n%s", err, out)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// `rivumi hook claude-code --gate deny`: an approved `make` comes back as
// updatedInput running it under `rivumi run --gate`; run the way Claude
// Code runs it (a shell, here in the read-only jail), its recipe's
// `rm -rf HOME` is stopped at the exec and the home survives.
func TestHookGateWrapInAJail(t *testing.T) {
	if err := execgate.Available(); err != nil {
		t.Skip(err)
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("bwrap not installed")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	root := t.TempDir()
	home, ws, state := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "state")
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(ws, "Makefile"), []byte("all:\n\trm -rf "+home+"\n"), 0o644)
	resetHome(t, home)

	payload := `{"session_id":"s","cwd":"` + ws + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make","description":"build"}}`
	var out, errb bytes.Buffer
	code := Main(t.Context(), []string{"hook", "claude-code", "--gate", "deny", "--socket", "none", "--audit", "off", "--shell", "bash"},
		Stdio{In: strings.NewReader(payload), Out: &out, Err: &errb})
	if code != 0 {
		t.Fatalf("hook exit %d: %s", code, errb.String())
	}
	var ans struct {
		HookSpecificOutput struct {
			PermissionDecision string            `json:"permissionDecision"`
			UpdatedInput       map[string]string `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out.Bytes(), &ans); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	cmdline := ans.HookSpecificOutput.UpdatedInput["command"]
	if ans.HookSpecificOutput.PermissionDecision != "ask" || !strings.Contains(cmdline, " run --gate deny ") {
		t.Fatalf("answer %s", out.String())
	}
	cmd := jail(bwrap, root, home, []string{"--chdir", ws, "--setenv", "XDG_STATE_HOME", state}, "/bin/sh", "-c", cmdline)
	var runOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &runOut, &runOut
	err = cmd.Run()
	if _, serr := os.Stat(filepath.Join(home, "marker")); serr != nil {
		t.Fatalf("the recipe deleted the home (%v):\n%s", err, runOut.String())
	}
	if err == nil {
		t.Errorf("make succeeded although its recipe was refused:\n%s", runOut.String())
	}
	if strings.Contains(runOut.String(), "sandbox") && strings.Contains(runOut.String(), "not available") {
		t.Skip(runOut.String())
	}
	es, err := audit.ReadFile(filepath.Join(state, "rivumi", "audit.jsonl"))
	if err != nil || len(es) == 0 {
		t.Fatalf("audit: %v\n%s", err, runOut.String())
	}
	var refused []string
	for _, x := range es[len(es)-1].Execs {
		if !x.Allowed {
			refused = append(refused, x.Rule)
		}
	}
	if len(refused) == 0 || !strings.HasPrefix(refused[0], "floor.") {
		t.Errorf("refusals %v, want a floor rule\n%s", refused, runOut.String())
	}
}
