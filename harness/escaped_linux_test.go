package harness

import (
	"os"
	"testing"
)

// What one scan for a run's marker costs (it runs once per command when
// nothing escaped): of every process, and of those started since this
// one, as for a run.
func BenchmarkMarkedProcesses(b *testing.B) {
	for _, bc := range []struct {
		name  string
		since uint64
	}{{"all", 0}, {"since-self", processStart(os.Getpid())}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				markedProcesses(RunMarkerEnv+"=0123456789abcdef", bc.since)
			}
		})
	}
}
