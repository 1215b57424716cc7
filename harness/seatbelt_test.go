package harness

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/verdict"
)

var updateSeatbelt = flag.Bool("update-seatbelt", false, "rewrite the Seatbelt golden profiles")

// TestSeatbeltProfileGolden pins the generated profiles: any change to
// what a sandboxed command may do shows up as a diff in review. After a
// deliberate change: go test ./harness -run SeatbeltProfileGolden -update-seatbelt
func TestSeatbeltProfileGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec seatbeltSpec
	}{
		{"offline", seatbeltSpec{
			Programs: []string{"/usr/bin/git"},
			Writable: []string{"/Users/dev/src/proj", "/private/var/folders/xy/T/rivumi-run-1"},
		}},
		{"network", seatbeltSpec{
			Programs: []string{"/opt/homebrew/bin/go", "/opt/homebrew/Cellar/go/1.26/libexec/bin/go"},
			Writable: []string{"/Users/dev/src/proj", "/private/var/folders/xy/T/rivumi-run-2"},
			AllowNet: true,
		}},
		{"quotes", seatbeltSpec{
			Programs: []string{`/Users/dev/src/a "b" (c)/tool`},
			Writable: []string{`/Users/dev/src/a "b" (c)`, "/private/tmp/run"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			profile, params := seatbeltProfile(tc.spec)
			got := profile + "\n;; parameters\n" + strings.Join(params, "\n") + "\n"
			file := filepath.Join("testdata", "seatbelt", tc.name+".sb")
			if *updateSeatbelt {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update-seatbelt to create it)", err)
			}
			if got != string(want) {
				t.Errorf("profile differs from %s (rerun with -update-seatbelt after a deliberate change):\n%s", file, got)
			}
		})
	}
}

// TestSeatbeltProfileShape checks the properties the golden files are
// reviewed for, so that an update cannot silently drop one.
func TestSeatbeltProfileShape(t *testing.T) {
	spec := seatbeltSpec{Programs: []string{"/usr/bin/git"}, Writable: []string{"/Users/dev/proj", "/private/tmp/run"}}
	profile, params := seatbeltProfile(spec)
	lines := strings.Split(profile, "\n")
	first := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "(") && l != "(version 1)" })
	if lines[0] != "(version 1)" || lines[first] != "(deny default)" {
		t.Errorf("profile must start with (version 1) then (deny default):\n%s", profile)
	}
	for _, must := range []string{"(allow process-fork)", "(allow process-exec)", `(subpath (param "WRITABLE_0"))`, `(subpath (param "WRITABLE_1"))`} {
		if !strings.Contains(profile, must) {
			t.Errorf("profile lacks %s", must)
		}
	}
	if strings.Contains(profile, "(allow network") {
		t.Errorf("offline profile allows network:\n%s", profile)
	}
	// Run paths reach the profile only as parameters.
	if strings.Contains(profile, "/Users/dev") || strings.Contains(profile, "/private/tmp/run") {
		t.Errorf("a run path is in the profile text:\n%s", profile)
	}
	for _, p := range []string{"-DWRITABLE_0=/Users/dev/proj", "-DWRITABLE_1=/private/tmp/run", "-DPROGRAM_0=/usr/bin/git",
		"-DANCESTOR_0=/Users", "-DANCESTOR_1=/Users/dev", "-DANCESTOR_2=/private", "-DANCESTOR_3=/private/tmp", "-DANCESTOR_4=/usr", "-DANCESTOR_5=/usr/bin"} {
		if !slices.Contains(params, p) {
			t.Errorf("parameters %q lack %s", params, p)
		}
	}
	// The program stays read-only: the deny comes after every allow.
	deny := strings.LastIndex(profile, "(deny file-write*")
	if deny < 0 || deny < strings.LastIndex(profile, "(allow ") {
		t.Errorf("the program's write deny must be the last rule:\n%s", profile)
	}
	if online, _ := seatbeltProfile(seatbeltSpec{Writable: spec.Writable, AllowNet: true}); !strings.Contains(online, "(allow network*)") {
		t.Errorf("network not allowed with AllowNet:\n%s", online)
	}
}

func TestSeatbeltArgs(t *testing.T) {
	spec := seatbeltSpec{Programs: []string{"/usr/bin/git"}, Writable: []string{"/w"}}
	args := seatbeltArgs(spec, "/usr/bin/git", []string{"git", "status", "--", "-p"})
	if args[0] != "-p" || !strings.HasPrefix(args[1], "(version 1)") {
		t.Fatalf("args %q", args[:2])
	}
	i := slices.Index(args, "--")
	if i < 0 || !slices.Equal(args[i+1:], []string{"/usr/bin/git", "status", "--", "-p"}) {
		t.Errorf("command after -- is %q", args[i+1:])
	}
	for _, a := range args[2:i] {
		if !strings.HasPrefix(a, "-D") {
			t.Errorf("non-parameter %q before --", a)
		}
	}
}

// TestSandboxExecMissingFailsClosed: a missing or broken sandbox-exec is
// unavailable, never a run without the sandbox.
func TestSandboxExecMissingFailsClosed(t *testing.T) {
	dir := t.TempDir()
	if _, err := sandboxExecAt(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing sandbox-exec is available")
	}
	if runtime.GOOS == "windows" {
		return
	}
	broken := filepath.Join(dir, "broken")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'sandbox-exec: syntax error' >&2\nexit 65\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := sandboxExecAt(broken); err == nil || !strings.Contains(err.Error(), "syntax error") {
		t.Errorf("a sandbox-exec refusing the profile: %v", err)
	}
	if runtime.GOOS != "darwin" {
		_, err := New(Config{Grader: allowAll{}, Sandbox: SandboxSeatbelt})
		var su *SandboxUnavailableError
		if !errors.As(err, &su) || su.Backend != SandboxSeatbelt || !strings.Contains(err.Error(), "macOS only") {
			t.Errorf("New with seatbelt on %s: %v, want SandboxUnavailableError", runtime.GOOS, err)
		}
	}
}

// TestSeatbeltRunsThroughSandboxExec runs a command through a stand-in
// for sandbox-exec that records its arguments and execs the command:
// what reaches sandbox-exec is a generated profile, parameters naming the
// resolved workspace and run directory, and the graded argv after --.
// (Whether macOS enforces the profile is not something this test can see.)
func TestSeatbeltRunsThroughSandboxExec(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs a shell script as the stand-in")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "args")
	fake := filepath.Join(dir, "sandbox-exec")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + log + "\n" +
		"while [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := sandboxExecAt(fake); err != nil {
		t.Fatalf("stand-in rejected: %v", err)
	}
	ws := t.TempDir()
	h, err := New(Config{Grader: allowAll{}, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	h.sandbox = sandboxPlan{backend: SandboxSeatbelt, sbexec: fake}
	truePath, err := resolveProgram("true", "/", defaultPATH)
	if err != nil {
		t.Skip("no true(1)")
	}
	res, err := h.Run(context.Background(), Request{Argv: []string{"true", "x y"}})
	if err != nil || !res.Ran || res.ExitCode != 0 || res.Sandbox != SandboxSeatbelt {
		t.Fatalf("run: %v %+v", err, res)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	realWS, _ := filepath.EvalSymlinks(ws)
	if args[0] != "-p" || !strings.Contains(strings.Join(args, "\n"), "(deny default)") {
		t.Errorf("no profile: %q", args)
	}
	if !slices.Contains(args, "-DWRITABLE_0="+realWS) || !slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "-DWRITABLE_1=") && strings.Contains(a, "rivumi-run-")
	}) {
		t.Errorf("workspace and run directory not writable: %q", args)
	}
	if tail := args[len(args)-3:]; !slices.Equal(tail, []string{"--", truePath.path, "x y"}) {
		t.Errorf("command %q, want -- %s 'x y'", tail, truePath.path)
	}
}

type allowAll struct{}

func (allowAll) Grade(context.Context, verdict.Request) (verdict.Verdict, error) {
	return verdict.Verdict{Decision: verdict.Allow}, nil
}
