package engine_test

import (
	"context"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/benchdata"
)

var benchOpts = []engine.EvalOption{engine.Workspace("/work/proj"), engine.Home("/home/dev")}

func benchCommands(b *testing.B, cmds []string) {
	e := defaultEngine(b)
	ctx := context.Background()
	b.ReportAllocs()
	start, n := benchdata.CPUNanos(), 0
	for i := 0; b.Loop(); i++ {
		e.EvaluateText(ctx, cmds[i%len(cmds)], benchOpts...)
		n++
	}
	b.ReportMetric(float64(benchdata.CPUNanos()-start)/float64(n), "cpu-ns/op")
}

// BenchmarkEvaluate grades the realistic mix with the full default
// policy (parse included); ns/op is per command.
func BenchmarkEvaluate(b *testing.B) { benchCommands(b, benchdata.Mix) }

// BenchmarkEvaluateSimple grades one short read-only command.
func BenchmarkEvaluateSimple(b *testing.B) { benchCommands(b, []string{"ls -la"}) }

// BenchmarkNew measures start-up: loading, parsing and compiling the
// embedded packs and preparing the query.
func BenchmarkNew(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.New(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
