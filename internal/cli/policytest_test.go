package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rivumi/rivumi/engine"
)

var update = flag.Bool("update", false, "rewrite golden files (testdata/policytest/*.golden and the scripts' cmp files)")

// inProcess serialises the scripts' in-process runs: each one moves the
// process into the script's directory and environment.
var inProcess sync.Mutex

// scriptEnv lists the variables rivumi reads that a script controls.
var scriptEnv = []string{"HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "NO_COLOR", "FORCE_COLOR", "TERM", noConfigEnv}

// runInProcess runs the CLI in-process with the script's working directory
// and environment, and records the exit code in RIVUMI_EXIT.
func runInProcess(ts *testscript.TestScript, neg bool, args []string) {
	inProcess.Lock()
	defer inProcess.Unlock()
	wd, err := os.Getwd()
	ts.Check(err)
	ts.Check(os.Chdir(ts.MkAbs(".")))
	defer os.Chdir(wd)
	for _, k := range scriptEnv {
		old, had := os.LookupEnv(k)
		if v := ts.Getenv(k); v != "" {
			os.Setenv(k, v)
		} else {
			os.Unsetenv(k)
		}
		defer func() {
			if had {
				os.Setenv(k, old)
			} else {
				os.Unsetenv(k)
			}
		}()
	}
	ctx := withWarnings(context.Background(), ts.Stderr())
	code := Main(ctx, args, Stdio{In: strings.NewReader(""), Out: ts.Stdout(), Err: ts.Stderr()})
	ts.Setenv("RIVUMI_EXIT", strconv.Itoa(code))
	if neg != (code != 0) {
		ts.Fatalf("rivumi exited %d", code)
	}
}

// TestPolicyScripts runs testdata/script/policy_*.txtar and trust_*.txtar
// with `rivumi` running the CLI in-process (the real engine) in the
// script's directory, with HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME under
// $WORK. Durations are zero, so outputs compare with cmp.
//
//	exitcode N     the last rivumi exit code
//	junitxml FILE  FILE parses as JUnit XML with at least one test case
func TestPolicyScripts(t *testing.T) {
	saved := measure
	measure = func(time.Duration) time.Duration { return 0 }
	t.Cleanup(func() { measure = saved })
	files, _ := filepath.Glob("testdata/script/policy_*.txtar")
	more, _ := filepath.Glob("testdata/script/trust_*.txtar")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no scripts")
	}
	for i, f := range files { // absolute: runInProcess moves the process
		files[i], _ = filepath.Abs(f)
	}
	testscript.Run(t, testscript.Params{
		Files:         files,
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			for _, d := range []string{"home", "config", "cache"} {
				if err := os.MkdirAll(filepath.Join(env.WorkDir, d), 0o755); err != nil {
					return err
				}
			}
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, "config"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, "cache"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"rivumi":   runInProcess,
			"exitcode": exitcodeCmd,
			"junitxml": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 || neg {
					ts.Fatalf("usage: junitxml FILE")
				}
				var s junitSuites
				if err := xml.Unmarshal([]byte(ts.ReadFile(args[0])), &s); err != nil {
					ts.Fatalf("%s: %v", args[0], err)
				}
				if s.Tests == 0 || len(s.Suites) == 0 || len(s.Suites[0].Cases) == 0 {
					ts.Fatalf("%s: no test cases", args[0])
				}
			},
		},
	})
}

// TestProjectPacksFullCoverage: the project's own packs and testcases pass
// `rivumi policy test --coverage --fail-under 100`: every rule id is hit
// and every Rego test and testcase passes.
func TestProjectPacksFullCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every testcase")
	}
	t.Setenv(noConfigEnv, "1")
	var out, errb bytes.Buffer
	start := time.Now()
	code := Main(context.Background(), []string{"policy", "test", "--format", "json", "--coverage", "--fail-under", "100", "../../testcases"},
		Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	t.Logf("policy test --coverage over ../../testcases: %v", time.Since(start))
	var doc struct {
		Passed, Failed int
		Problems       []string
		Cases          []struct {
			File     string
			Line     int
			Command  string
			Problems []string
		}
		Coverage struct {
			Rules []struct {
				ID       string
				Location string
				Hits     int
				ByTests  bool `json:"by_tests"`
			}
			RulePercent float64 `json:"rule_percent"`
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("exit %d, output not JSON: %v\n%s", code, err, errb.String())
	}
	if len(doc.Problems) > 0 {
		t.Fatalf("load problems:\n%s", strings.Join(doc.Problems, "\n"))
	}
	for _, r := range doc.Coverage.Rules {
		if r.Hits == 0 && !r.ByTests {
			t.Errorf("rule %s (%s) is hit by no testcase or Rego test: add a case to testcases/authoring*.yaml", r.ID, r.Location)
		}
	}
	if doc.Coverage.RulePercent < 100 {
		t.Errorf("rule coverage %.1f%%", doc.Coverage.RulePercent)
	}
	if doc.Failed > 0 {
		n := 0
		for _, c := range doc.Cases {
			if len(c.Problems) > 0 && n < 10 {
				t.Logf("%s:%d: %s: %s", c.File, c.Line, c.Command, strings.Join(c.Problems, "; "))
				n++
			}
		}
		t.Errorf("%d of %d tests fail (first ones above)", doc.Failed, doc.Passed+doc.Failed)
	}
	if code != ExitOK && doc.Failed == 0 && doc.Coverage.RulePercent >= 100 {
		t.Errorf("exit %d", code)
	}
}

// sampleReport is a report with one of everything, for the format tests.
func sampleReport() *testReport {
	return &testReport{
		FailUnder: 100,
		Duration:  1500 * time.Millisecond,
		Rego: []engine.RegoTestResult{
			{Name: "data.rivumi.user.team_test.test_destroy_denied", Package: "data.rivumi.user.team_test", File: "policy/team_test.rego", Line: 5, Passed: true, Duration: 2 * time.Millisecond},
			{Name: "data.rivumi.user.team_test.test_plan_denied", Package: "data.rivumi.user.team_test", File: "policy/team_test.rego", Line: 9,
				Failure: "policy/team_test.rego:10: failed at {\"id\": \"team.tf-destroy\"} in team.deny with input as plan", Output: "debug: plan\n", Duration: time.Millisecond},
			{Name: "data.rivumi.user.team_test.todo_test_apply", Package: "data.rivumi.user.team_test", File: "policy/team_test.rego", Line: 13, Skipped: true},
		},
		Cases: []caseResult{
			{File: "cases.yaml", Line: 3, Command: "terraform destroy", Want: "deny", Got: "deny", Duration: time.Millisecond,
				Reasons: []engine.Reason{{Rule: "team.tf-destroy", Layer: engine.LayerDeny, Decision: engine.Deny, Segment: 0, Title: "No terraform destroy"}}},
			{File: "cases.yaml", Line: 4, Command: "helm uninstall web & echo \"done\"", Want: "deny", Got: "ask", Duration: time.Millisecond,
				Problems: []string{"expected deny, got ask", "expected rule team.helm-uninstall among the reasons"},
				Reasons:  []engine.Reason{{Rule: "fallback.uncovered", Layer: engine.LayerFallback, Decision: engine.Ask, Segment: 0, Title: "No rule covers this command"}},
				Segments: []segmentSummary{
					{Index: 0, Decision: "ask", Text: "helm uninstall web", Program: "helm", Subcommand: "uninstall", Tags: []string{"background"}},
					{Index: 1, Decision: "allow", Text: "echo \"done\"", Program: "echo"},
				}},
		},
		Coverage: &engine.CoverageReport{
			Rules: []engine.RuleCoverage{
				{ID: "team.helm-uninstall", Layer: engine.LayerDeny, Location: "policy/team.rego:20"},
				{ID: "team.tf-destroy", Layer: engine.LayerDeny, Location: "policy/team.rego:10", Hits: 1},
			},
			RulesHit: 1, RulePercent: 50,
			Files: []engine.FileCoverage{
				{File: "policy/team.rego", Covered: 4, NotCovered: 2, Percent: 66.66666666666667, Missed: []engine.LineRange{{Start: 20, End: 21}}},
			},
			LinesCovered: 4, LinesMissed: 2, LinePercent: 66.66666666666667,
		},
	}
}

// golden compares got with testdata/policytest/NAME (or rewrites it with -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "policytest", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func render(t *testing.T, r reporter, rep *testReport) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := r.Report(&b, rep); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReportExitCodes(t *testing.T) {
	r := sampleReport()
	if got := r.ExitCode(); got != ExitTestFailed {
		t.Errorf("failing report: %d", got)
	}
	if p, f, s := r.Counts(); p != 2 || f != 2 || s != 1 {
		t.Errorf("counts %d %d %d", p, f, s)
	}
	ok := &testReport{FailUnder: -1, Cases: r.Cases[:1], Rego: r.Rego[:1]}
	if got := ok.ExitCode(); got != ExitOK {
		t.Errorf("passing report: %d", got)
	}
	ok.FailUnder, ok.Coverage = 100, r.Coverage
	if got := ok.ExitCode(); got != ExitTestFailed {
		t.Errorf("coverage under --fail-under: %d", got)
	}
	if got := (&testReport{Problems: []string{"x"}}).ExitCode(); got != ExitPolicyError {
		t.Errorf("load problem: %d", got)
	}
}

func TestNewReporter(t *testing.T) {
	for _, f := range []string{"text", "json", "junit", "github"} {
		if _, err := newReporter(f, io.Discard, false); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := newReporter("tap", io.Discard, false); err == nil {
		t.Error("tap accepted")
	}
}
