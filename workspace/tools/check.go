package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/verdict"
	"github.com/rivumi/rivumi/workspace/bundle"
)

// clearance is what the tools let through the harness for one call: the
// argv and directory of every command the tool checked (a configured
// check, or a shell command whose segment was graded allow or approved).
// The harness's grader allows exactly those and denies everything else.
type clearance struct {
	allow   func(argv []string, dir string) bool
	verdict verdict.Verdict
}

type clearanceKey struct{}

// RuleNotCleared is the rule id of the harness's refusal of a command the
// tools did not clear.
const RuleNotCleared = "workspace.not-cleared"

// clearedGrader is the harness's grader: the tools decide before the
// harness runs anything, so the harness only checks that the argv is the
// one decided on.
func clearedGrader(ctx context.Context, r verdict.Request) (verdict.Verdict, error) {
	c, _ := ctx.Value(clearanceKey{}).(*clearance)
	if c != nil && c.allow(r.Argv, r.Cwd) {
		return c.verdict, nil
	}
	return verdict.Verdict{Decision: verdict.Deny, Reasons: []verdict.Reason{{
		Rule: RuleNotCleared, Layer: harness.LayerHarness, Decision: verdict.Deny, Segment: -1,
		Title:         "command not cleared by the workspace tools",
		Justification: "only a configured check or a graded shell segment runs",
	}}}, nil
}

// RunCheckArgs are run_check's arguments.
type RunCheckArgs struct {
	// Name is the verification command's name from the configuration; the
	// names are the only choice offered.
	Name string `json:"name"`
}

// RunCheckOutput is run_check's output.
type RunCheckOutput struct {
	bundle.CheckResult
	// Output is the head and tail of stdout, then of stderr, redacted,
	// with a marker where bytes were cut (see agentOutput).
	Output string `json:"output"`
}

func (t *Tools) runCheck(ctx context.Context, a RunCheckArgs, n *note) (RunCheckOutput, error) {
	c, ok := t.w.Check(a.Name)
	if !ok {
		names := make([]string, 0, len(t.w.Request().Checks))
		for _, c := range t.w.Request().Checks {
			names = append(names, c.Name)
		}
		if len(names) == 0 {
			return RunCheckOutput{}, refusef("no verification commands are configured")
		}
		return RunCheckOutput{}, refusef("unknown check %q (checks: %s)", a.Name, strings.Join(names, ", "))
	}
	dir := t.w.Dir()
	cl := &clearance{
		allow: func(argv []string, d string) bool { return slices.Equal(argv, c.Argv) && d == dir },
		verdict: verdict.Verdict{Decision: verdict.Allow, Reasons: []verdict.Reason{{
			Rule: "workspace.check", Layer: harness.LayerHarness, Decision: verdict.Allow, Segment: -1,
			Title: "verification command " + c.Name + " from the configuration",
		}}},
	}
	tree, terr := t.w.TreeDigest(ctx)
	if terr != nil {
		tree = "unknown: " + terr.Error() // never equal to the digest after: the run cannot pass
	}
	started := time.Now().UTC()
	res, err := t.h.Run(context.WithValue(ctx, clearanceKey{}, cl), harness.Request{Argv: c.Argv, Dir: dir, Timeout: time.Duration(c.Timeout)})
	out := RunCheckOutput{CheckResult: bundle.CheckResult{
		Name: c.Name, Sandbox: t.sandbox(), Argv: c.Argv, Started: started, Ran: res.Ran, ExitCode: res.ExitCode, TimedOut: res.TimedOut,
		Duration:    float64(res.Duration.Microseconds()) / 1000,
		StdoutBytes: res.Stdout.Total, StderrBytes: res.Stderr.Total, TreeBefore: tree,
	}}
	switch {
	case err != nil:
		out.Error = err.Error()
	case !res.Ran:
		out.Error = res.Refusal
	}
	out.Passed = res.Ran && err == nil && res.ExitCode == 0 && !res.TimedOut
	log := res.Stdout.String() + res.Stderr.String()
	if err := t.w.RecordCheck(out.CheckResult, log); err != nil {
		return out, err
	}
	out.Output = agentOutputs(res.Stdout, res.Stderr, t.lim.MaxOutputBytes)
	n.decision, n.rules = res.Decision.String(), ruleIDs(res)
	n.keepOutput = true
	switch {
	case out.Passed:
		n.summary = fmt.Sprintf("check %s passed in %.0f ms", c.Name, out.Duration)
	case res.TimedOut:
		n.summary = fmt.Sprintf("check %s timed out", c.Name)
	case !res.Ran:
		n.summary = fmt.Sprintf("check %s did not run: %s", c.Name, out.Error)
	default:
		n.summary = fmt.Sprintf("check %s failed with exit %d", c.Name, res.ExitCode)
	}
	if !out.Passed {
		// The output goes back with the observation.
		return out, &Refusal{Reason: n.summary}
	}
	return out, nil
}

func ruleIDs(res harness.Result) []string {
	var ids []string
	for _, r := range append(slices.Clone(res.Verdict.Reasons), res.Reasons...) {
		if r.Rule != "" && !slices.Contains(ids, r.Rule) {
			ids = append(ids, r.Rule)
		}
	}
	return ids
}
