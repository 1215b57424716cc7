package harness_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/verdict"
)

// A script that runs 1,000 /bin/true, under Landlock with and without the
// gate grading each exec with the real engine: (gated - plain) / 1000 is
// the gate's cost per exec.
func BenchmarkGate1000Execs(b *testing.B) {
	e, err := engine.New(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	real := e // the engine grades the harness's requests as `rivumi run` has it do
	script := "i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i+1)); done"
	allowAll := verdict.GraderFunc(func(context.Context, verdict.Request) (verdict.Verdict, error) {
		return verdict.Verdict{Decision: verdict.Allow}, nil
	})
	for _, c := range []struct {
		name   string
		mode   harness.GateMode
		grader verdict.Grader
	}{{"plain", harness.GateOff, nil}, {"gated-no-grading", harness.GateDeny, allowAll}, {"gated", harness.GateDeny, real}} {
		b.Run(c.name, func(b *testing.B) {
			h, err := harness.New(harness.Config{Grader: &fakeGrader{}, GateGrader: c.grader, Gate: c.mode,
				Sandbox: harness.SandboxLandlock, Workspace: b.TempDir()})
			var su *harness.SandboxUnavailableError
			if errors.As(err, &su) {
				b.Skip(err)
			}
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				res, err := h.Run(context.Background(), harness.Request{Argv: []string{"/bin/sh", "-c", script}, Timeout: time.Minute})
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("%v %+v", err, res.Refusal)
				}
			}
		})
	}
}
