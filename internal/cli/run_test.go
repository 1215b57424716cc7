package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/harness/harnesstest"

	"github.com/rivumi/rivumi/internal/testenv"
	"github.com/rivumi/rivumi/verdict"
)

// fakeRunGrader stands in for the engine in the run and grant tests:
// `rm -rf /…` is a floor deny; npm, make and touch ask (grantable, prefix
// of two words); everything else is allowed. Grants cancel the asks they
// name, as the engine does.
func fakeRunGrader(ctx context.Context, r verdict.Request) (engine.Verdict, error) {
	argv, opts := r.Argv, r.Context()
	const policy = "sha256:fake"
	prog := filepath.Base(argv[0])
	switch {
	case prog == "rm" && slices.Contains(argv, "/"):
		return engine.Verdict{Decision: engine.Deny, Policy: policy, Reasons: []engine.Reason{{
			Rule: "floor.rm-root", Layer: engine.LayerFloor, Decision: engine.Deny, Title: "Recursive delete of /",
			Justification: "never legitimate in automation"}}}, nil
	case prog == "npm" || prog == "make" || prog == "touch":
		rule := "ask." + prog
		for _, g := range opts.Grants {
			if grant.Covers(g, argv) && slices.Contains(g.Rules, rule) {
				return engine.Verdict{Decision: engine.Allow, Policy: policy}, nil
			}
		}
		return engine.Verdict{Decision: engine.Ask, Policy: policy, Reasons: []engine.Reason{{
			Rule: rule, Layer: engine.LayerAsk, Decision: engine.Ask, Title: prog + " runs workspace code",
			Justification: "the repository decides what runs", Prefix: argv[:min(2, len(argv))], Grantable: true}}}, nil
	}
	return engine.Verdict{Decision: engine.Allow, Policy: policy}, nil
}

// useFakeGrader installs fakeRunGrader for the test and its subtests.
func useFakeGrader(t *testing.T) {
	saved := newGrader
	newGrader = func(context.Context, *policyFlags) (verdict.Grader, error) {
		return verdict.GraderFunc(fakeRunGrader), nil
	}
	t.Cleanup(func() { newGrader = saved })
}

// TestRunScripts runs testdata/script/run_*.txtar and grant_*.txtar with
// `rivumi` running the CLI in-process (the fake grader in place of the
// engine). `exitcode N` checks the last rivumi exit code.
func TestRunScripts(t *testing.T) {
	useFakeGrader(t)
	files, _ := filepath.Glob("testdata/script/run_*.txtar")
	more, _ := filepath.Glob("testdata/script/grant_*.txtar")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no scripts")
	}
	testscript.Run(t, testscript.Params{
		Files: files,
		// [rivumi-run]: inside a rivumi run, whose sandbox refuses a
		// nested bwrap (testenv).
		Condition: func(cond string) (bool, error) {
			if cond == "rivumi-run" {
				return testenv.InsideRun(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"rivumi": func(ts *testscript.TestScript, neg bool, args []string) {
				code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: ts.Stdout(), Err: ts.Stderr()})
				ts.Setenv("RIVUMI_EXIT", strconv.Itoa(code))
				if neg != (code != 0) {
					ts.Fatalf("rivumi exited %d", code)
				}
			},
			"exitcode": exitcodeCmd,
			// auditlog FILE KIND DECISION: the last entry of the log.
			"auditlog": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 3 {
					ts.Fatalf("usage: auditlog FILE KIND DECISION")
				}
				es, err := audit.ReadFile(ts.MkAbs(args[0]))
				ts.Check(err)
				if len(es) == 0 {
					ts.Fatalf("empty audit log")
				}
				last := es[len(es)-1]
				if (last.Kind == args[1] && last.Decision == args[2]) == neg {
					ts.Fatalf("last audit entry is %s/%s", last.Kind, last.Decision)
				}
			},
		},
	})
}

// A named sandbox that is missing is exit 126, and the command does not run.
func TestRunSandboxUnavailable(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("seatbelt is macOS's own")
	}
	useFakeGrader(t)
	dir := t.TempDir()
	t.Setenv("PATH", dir) // no touch either: nothing can run
	marker := filepath.Join(dir, "marker")
	var stderr bytes.Buffer
	// Seatbelt is macOS's: missing here.
	code := Main(context.Background(), []string{"run", "--sandbox", "seatbelt", "--audit", filepath.Join(dir, "a"), "--grants", filepath.Join(dir, "g"),
		"-C", dir, "--", "/usr/bin/touch", marker}, Stdio{In: strings.NewReader(""), Out: io.Discard, Err: &stderr})
	if code != ExitNoSandbox || !strings.Contains(stderr.String(), "sandbox seatbelt is not available") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Error("the command ran")
	}
}

// On a terminal, "always" records a grant that the next run uses.
func TestRunInteractiveAlways(t *testing.T) {
	useFakeGrader(t)
	saved := isTerminal
	isTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { isTerminal = saved })
	dir := t.TempDir()
	grants := filepath.Join(dir, "grants.json")
	args := []string{"run", "--sandbox", "none", "--audit", filepath.Join(dir, "audit"), "--grants", grants, "-C", dir, "--", "touch", "made"}
	term := harnesstest.NewTerminal("a\n") // typed after the prompt: type-ahead is discarded
	code := Main(context.Background(), args, Stdio{In: term.In, Out: io.Discard, Err: term.Out})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, term.Out.String())
	}
	for _, want := range []string{"`touch made` needs approval", "ask.touch", "[a]lways for `touch made`", "granted `touch made`"} {
		if !strings.Contains(term.Out.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, term.Out.String())
		}
	}
	var stderr bytes.Buffer
	if _, err := os.Stat(filepath.Join(dir, "made")); err != nil {
		t.Error("approved command did not run")
	}
	// Second run: no prompt (empty input would deny).
	code = Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: io.Discard, Err: &stderr})
	if code != 0 || strings.Contains(stderr.String(), "needs approval") {
		t.Errorf("second run: exit %d, stderr %q", code, stderr.String())
	}
}

// rivumi run --env NAME passes that variable of rivumi's environment, and
// no other outside the default list.
func TestRunPassEnv(t *testing.T) {
	useFakeGrader(t)
	t.Setenv("RIVUMI_TEST_PASSED", "yes")
	t.Setenv("RIVUMI_TEST_KEPT_OUT", "no")
	dir := t.TempDir()
	var out, stderr bytes.Buffer
	code := Main(context.Background(), []string{"run", "--sandbox", "none", "--env", "RIVUMI_TEST_PASSED",
		"--audit", filepath.Join(dir, "a"), "--grants", filepath.Join(dir, "g"), "-C", dir, "--", "env"},
		Stdio{In: strings.NewReader(""), Out: &out, Err: &stderr})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(out.String(), "\nRIVUMI_TEST_PASSED=yes\n") || strings.Contains(out.String(), "RIVUMI_TEST_KEPT_OUT") {
		t.Errorf("environment:\n%s", out.String())
	}
}

// The default --cache project keeps one cache per project under
// $XDG_CACHE_HOME/rivumi/projects: a second run of the same project finds
// what the first left; another project's run does not.
func TestRunCacheProject(t *testing.T) {
	useFakeGrader(t)
	xdg := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", xdg)
	dir := t.TempDir()
	for _, p := range []string{"a/.git", "b/.git"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(project, script string) (string, int) {
		var out, stderr bytes.Buffer
		code := Main(context.Background(), []string{"run", "--sandbox", "none", "--audit", filepath.Join(dir, "audit"),
			"--grants", filepath.Join(dir, "g"), "-C", filepath.Join(dir, project), "--", "sh", "-c", script},
			Stdio{In: strings.NewReader(""), Out: &out, Err: &stderr})
		return out.String(), code
	}
	out, code := run("a", `mkdir -p "$GOCACHE" && echo warm > "$GOCACHE/entry" && echo "$GOCACHE"`)
	if code != 0 || !strings.HasPrefix(out, filepath.Join(xdg, "rivumi", "projects")+"/") {
		t.Fatalf("exit %d, GOCACHE %q: want it under $XDG_CACHE_HOME/rivumi/projects", code, out)
	}
	if out, code := run("a", `cat "$GOCACHE/entry"`); code != 0 || out != "warm\n" {
		t.Errorf("the project's second run read %q (exit %d), want what the first left", out, code)
	}
	if out, _ := run("b", `cat "$GOCACHE/entry" 2>/dev/null`); out != "" {
		t.Errorf("another project read %q from the first project's cache", out)
	}
}
