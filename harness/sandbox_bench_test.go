//go:build linux

package harness_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rivumi/rivumi/harness"
)

// A sandboxed `true`, end to end through the harness (grade, run
// directory, sandbox, exec, supervision), per backend: the cost a caller
// pays for the walls. BenchmarkNewSandbox is the one-time cost of choosing
// a backend (the contract probe included, once per process).
func BenchmarkSandboxedTrue(b *testing.B) {
	for _, backend := range []harness.Sandbox{harness.SandboxNone, harness.SandboxBwrap, harness.SandboxLandlock} {
		b.Run(string(backend), func(b *testing.B) {
			h, err := harness.New(harness.Config{Grader: &fakeGrader{}, Sandbox: backend, Workspace: b.TempDir()})
			var su *harness.SandboxUnavailableError
			if errors.As(err, &su) {
				b.Skip(err)
			}
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				res, err := h.Run(context.Background(), harness.Request{Argv: []string{"true"}, Timeout: 10 * time.Second})
				if err != nil || !res.Ran || res.ExitCode != 0 {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
