package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The gate's cost per exec is (gated - plain) / 1000 over the medians of
// the runs, and the probe rows read each backend's median; a missing
// benchmark says so instead of a figure.
func TestHarnessRows(t *testing.T) {
	out := `goos: linux
BenchmarkGate1000Execs/plain-2         	       2	1400000000 ns/op
BenchmarkGate1000Execs/plain-2         	       2	1500000000 ns/op
BenchmarkGate1000Execs/plain-2         	       2	9000000000 ns/op
BenchmarkGate1000Execs/gated-no-grading-2	       2	1700000000 ns/op
BenchmarkGate1000Execs/gated-2         	       2	1900000000 ns/op
BenchmarkContractProbe/bwrap-2         	      20	  27000000 ns/op
PASS
`
	p := filepath.Join(t.TempDir(), "h.txt")
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	bench, err := goBench(p)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(harnessRows(bench), "\n")
	for _, want := range []string{
		"real engine: cost per exec) | 400 µs (1000 execs: 1.90 s against 1.50 s plain) | 1.27× plain",
		"allows at once: cost per exec) | 200 µs",
		"contract probe, bwrap: once per process and backend) | 27.0 ms",
		"contract probe, landlock) | not measured",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rows lack %q:\n%s", want, got)
		}
	}
	if rows := harnessRows(map[string]map[string]float64{}); !strings.Contains(strings.Join(rows, "\n"), "not measured (no Landlock?)") {
		t.Errorf("no gate figures should say so: %v", rows)
	}
}
