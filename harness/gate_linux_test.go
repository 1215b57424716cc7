package harness_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/verdict"
)

// denyRm grades like a policy whose only deny is rm (anything under a
// program named rm), and asks for curl.
var denyRm = verdict.GraderFunc(func(_ context.Context, r verdict.Request) (verdict.Verdict, error) {
	argv := r.Argv
	switch filepath.Base(argv[0]) {
	case "rm":
		return verdict.Verdict{Decision: verdict.Deny, Reasons: []verdict.Reason{{Rule: "test.rm", Decision: verdict.Deny}}}, nil
	case "curl":
		return verdict.Verdict{Decision: verdict.Ask, Reasons: []verdict.Reason{{Rule: "test.curl", Decision: verdict.Ask}}}, nil
	}
	return verdict.Verdict{Decision: verdict.Allow}, nil
})

// An approved command's children are graded at their exec: the denied rm
// deep in a shell script is stopped, what the policy allows runs, and the
// exec tree is in the result.
func TestGateStopsDeniedExecs(t *testing.T) {
	for _, mode := range []harness.GateMode{harness.GateDeny, harness.GateAsk} {
		t.Run(string(mode), func(t *testing.T) {
			h, ws := sandboxed(t, harness.SandboxLandlock, harness.Config{GateGrader: denyRm, Gate: mode})
			keep, made := filepath.Join(ws, "keep"), filepath.Join(ws, "made")
			os.WriteFile(keep, []byte("x"), 0o644)
			script := "touch " + made + "; rm -f " + keep + "; curl --version >/dev/null 2>&1; echo curl=$?"
			res, err := h.Run(context.Background(), harness.Request{Argv: []string{"/bin/sh", "-c", script}, Dir: ws, Timeout: 20 * time.Second})
			if err != nil || !res.Ran {
				t.Fatalf("%v %s", err, res.Refusal)
			}
			if _, err := os.Stat(keep); err != nil {
				t.Error("the denied rm ran")
			}
			if _, err := os.Stat(made); err != nil {
				t.Error("the allowed touch did not run")
			}
			var tree []string
			for _, e := range res.Execs {
				s := filepath.Base(e.Path) + "=allow"
				if !e.Allowed {
					s = filepath.Base(e.Path) + "=" + e.Rule
				}
				// A shell tries each PATH directory: one entry per program.
				if len(tree) == 0 || tree[len(tree)-1] != s {
					tree = append(tree, s)
				}
			}
			want := "sh=allow touch=allow rm=test.rm"
			if mode == harness.GateAsk {
				want += " curl=test.curl"
			} else if _, err := os.Stat("/usr/bin/curl"); err == nil {
				want += " curl=allow"
			}
			if got := strings.Join(tree, " "); got != want {
				t.Errorf("exec tree %q, want %q", got, want)
			}
		})
	}
}

// The gate runs only where it can: a named backend it cannot run with is
// refused, never silently ungated.
func TestGateNeedsLandlock(t *testing.T) {
	_, err := harness.New(harness.Config{Grader: &fakeGrader{}, Gate: harness.GateDeny, Sandbox: harness.SandboxBwrap})
	var su *harness.SandboxUnavailableError
	if !errors.As(err, &su) {
		t.Errorf("gate with bwrap: %v, want SandboxUnavailableError", err)
	}
	if _, err := harness.New(harness.Config{Grader: &fakeGrader{}, Gate: "sometimes"}); err == nil {
		t.Error("an unknown gate mode was accepted")
	}
}

// The floor mode refuses only the floor's denies (and denies of unknown
// provenance): a team's deny rule passes inside an approved tree.
func TestGateFloorMode(t *testing.T) {
	grader := verdict.GraderFunc(func(_ context.Context, r verdict.Request) (verdict.Verdict, error) {
		argv := r.Argv
		switch filepath.Base(argv[0]) {
		case "rm":
			return verdict.Verdict{Decision: verdict.Deny, Reasons: []verdict.Reason{{Rule: "floor.rm-critical", Decision: verdict.Deny, Layer: verdict.LayerFloor}}}, nil
		case "touch":
			return verdict.Verdict{Decision: verdict.Deny, Reasons: []verdict.Reason{{Rule: "team.no-touch", Decision: verdict.Deny, Layer: verdict.LayerDeny}}}, nil
		case "mkdir":
			return verdict.Verdict{Decision: verdict.Deny, Reasons: []verdict.Reason{{Rule: "mystery", Decision: verdict.Deny}}}, nil
		}
		return verdict.Verdict{Decision: verdict.Allow}, nil
	})
	h, ws := sandboxed(t, harness.SandboxLandlock, harness.Config{GateGrader: grader, Gate: harness.GateFloor})
	keep, made, dir := filepath.Join(ws, "keep"), filepath.Join(ws, "made"), filepath.Join(ws, "dir")
	os.WriteFile(keep, []byte("x"), 0o644)
	script := "/usr/bin/touch " + made + "; /bin/rm -f " + keep + "; /bin/mkdir " + dir + "; true"
	res, err := h.Run(context.Background(), harness.Request{Argv: []string{"/bin/sh", "-c", script}, Dir: ws, Timeout: 20 * time.Second})
	if err != nil || !res.Ran {
		t.Fatalf("%v %s", err, res.Refusal)
	}
	if _, err := os.Stat(made); err != nil {
		t.Error("a team deny rule was refused in floor mode")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Error("the floor's deny ran in floor mode")
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("a deny without a layer ran in floor mode (it must fail closed)")
	}
}
