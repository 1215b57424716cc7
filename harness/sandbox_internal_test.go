//go:build linux

package harness

import (
	"context"
	"errors"
	"testing"

	"github.com/rivumi/rivumi/verdict"
)

// A named backend that is not here fails; auto with no backend left fails
// too (exit 126 in the CLI), never quietly running without one.
func TestSandboxUnavailableNeverNone(t *testing.T) {
	oldPaths, oldOrder := bwrapPaths, autoOrder
	t.Cleanup(func() { bwrapPaths, autoOrder = oldPaths, oldOrder })
	bwrapPaths = []string{"/nonexistent/bwrap"}
	autoOrder = []Sandbox{SandboxBwrap}
	grader := verdict.GraderFunc(func(context.Context, verdict.Request) (verdict.Verdict, error) {
		return verdict.Verdict{Decision: verdict.Allow}, nil
	})
	for _, mode := range []Sandbox{SandboxBwrap, SandboxAuto} {
		_, err := New(Config{Grader: grader, Sandbox: mode})
		var su *SandboxUnavailableError
		if !errors.As(err, &su) || su.Backend != mode {
			t.Errorf("%s with no bwrap: %v, want SandboxUnavailableError", mode, err)
		}
	}
	h, err := New(Config{Grader: grader, Sandbox: SandboxNone})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := h.Sandbox(); b != SandboxNone {
		t.Errorf("none by name: %v", b)
	}
}

// The contract probe's cost: paid once per process, backend and network
// setting, when the harness is made.
func BenchmarkContractProbe(b *testing.B) {
	for _, backend := range []Sandbox{SandboxBwrap, SandboxLandlock} {
		b.Run(string(backend), func(b *testing.B) {
			plan, err := planFor(backend, false) // the probe ran once here
			if err != nil {
				b.Skip(err)
			}
			for b.Loop() {
				if err := runProbe(plan, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
