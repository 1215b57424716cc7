package tools_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/bundle"
	"github.com/rivumi/rivumi/workspace/tools"
)

func TestRunCheck(t *testing.T) {
	f := newFixture(t)
	var pass tools.RunCheckOutput
	f.mustOK(t, tools.ToolRunCheck, tools.RunCheckArgs{Name: "pass"}, &pass)
	if !pass.Passed || !pass.Ran || pass.ExitCode != 0 {
		t.Errorf("pass = %+v", pass)
	}
	var fail tools.RunCheckOutput
	res := f.call(t, tools.ToolRunCheck, tools.RunCheckArgs{Name: "fail"}, &fail)
	if res.OK || fail.Passed || fail.ExitCode == 0 || !strings.Contains(fail.Output, "no-such-file") {
		t.Errorf("fail = %+v, %+v", res, fail)
	}
	var slow tools.RunCheckOutput
	f.call(t, tools.ToolRunCheck, tools.RunCheckArgs{Name: "slow"}, &slow)
	if !slow.TimedOut || slow.Passed || slow.Duration > 3000 {
		t.Errorf("slow = %+v; want a timeout after the check's 200ms", slow)
	}
	f.mustRefuse(t, tools.ToolRunCheck, tools.RunCheckArgs{Name: "go test"}, "unknown check")
	f.mustRefuse(t, tools.ToolRunCheck, `{"name":"pass","argv":["rm","-rf","."]}`, `key "argv" at $: unknown key`)

	v, err := f.w.Verification()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range v.Checks {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "pass,fail,slow" || v.Passed([]string{"pass"}) != true || v.Passed([]string{"pass", "fail"}) {
		t.Errorf("verification.json = %+v", v)
	}
	var log []byte
	log, _ = readFile(f.w.Bundle().File(bundle.TestLogFile))
	if !strings.Contains(string(log), "=== fail: ls no-such-file") || !strings.Contains(string(log), "=== slow: sleep 5 (timed out") {
		t.Errorf("test.log:\n%s", log)
	}
	evs, _ := f.w.Bundle().Events()
	if evs[0].Decision != "allow" || evs[0].Rules[0] != "workspace.check" || evs[1].OK {
		t.Errorf("events = %+v", evs[:2])
	}
}

// The sandbox a command ran under is in the tool result, its event and
// result.json.
func TestSandboxRecorded(t *testing.T) {
	f := newFixture(t, func(_ *workspace.Config, tc *tools.Config) { tc.Harness.Sandbox = harness.SandboxLandlock })
	var out tools.RunCheckOutput
	f.mustOK(t, tools.ToolRunCheck, tools.RunCheckArgs{Name: "pass"}, &out)
	if out.Sandbox != "landlock" {
		t.Errorf("result sandbox %q", out.Sandbox)
	}
	evs, _ := f.w.Bundle().Events()
	if len(evs) != 1 || evs[0].Sandbox != "landlock" {
		t.Errorf("event %+v", evs)
	}
	res, err := f.w.Finish(context.Background(), "")
	if err != nil || len(res.Sandboxes) != 1 || res.Sandboxes[0] != "landlock" {
		t.Errorf("result.json sandboxes %v (%v)", res.Sandboxes, err)
	}
}

// With the engine and the default sandbox, the exec gate is on: a check
// (make) whose recipe runs a floor command is stopped at that exec; the
// file it would delete stays, and the result names the gate.
func TestRunCheckGatedByDefault(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	f := newFixture(t, withEngine(t), func(wc *workspace.Config, tc *tools.Config) {
		wc.Checks = append(wc.Checks, bundle.Check{Name: "build", Argv: []string{"make", "-f", "gate.mk"}})
		tc.Harness.Sandbox = harness.SandboxAuto
	})
	if err := os.WriteFile(filepath.Join(f.w.Dir(), "gate.mk"), []byte("all:\n\trm -rf src ~\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out tools.RunCheckOutput
	res := f.call(t, tools.ToolRunCheck, tools.RunCheckArgs{Name: "build"}, &out)
	if !strings.Contains(out.Sandbox, "+gate:deny") {
		t.Skipf("no exec gate here (sandbox %q)", out.Sandbox)
	}
	if res.OK || out.Passed {
		t.Errorf("the check passed although its recipe was refused: %+v", out)
	}
	if _, err := os.Stat(filepath.Join(f.w.Dir(), "src", "main.go")); err != nil {
		t.Error("the recipe's rm ran")
	}
}
