package engine_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/benchdata"
	"github.com/rivumi/rivumi/parser"
)

var benchOpts = []engine.EvalOption{engine.Workspace("/work/proj"), engine.Home("/home/dev")}

var (
	coldOnce sync.Once
	cold     *engine.Engine
)

// coldEngine has the caches off: every verdict evaluates the policy.
func coldEngine(b *testing.B) *engine.Engine {
	coldOnce.Do(func() {
		var err error
		if cold, err = engine.New(context.Background(), engine.CacheSize(0)); err != nil {
			b.Fatal(err)
		}
	})
	return cold
}

// benchMix grades every command of the mix per iteration and reports the
// median and p95 time per command and the CPU time per command.
func benchMix(b *testing.B, e *engine.Engine, cmds []string, extra ...engine.EvalOption) {
	ctx := context.Background()
	opts := append(slices.Clip(benchOpts), extra...)
	var durs []time.Duration
	b.ReportAllocs()
	start := benchdata.CPUNanos()
	n := 0
	for b.Loop() {
		for _, c := range cmds {
			t0 := time.Now()
			e.EvaluateText(ctx, c, opts...)
			durs = append(durs, time.Since(t0))
			n++
		}
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Nanoseconds()), "median-ns/cmd")
	b.ReportMetric(float64(durs[len(durs)*95/100].Nanoseconds()), "p95-ns/cmd")
	b.ReportMetric(float64(benchdata.CPUNanos()-start)/float64(n), "cpu-ns/cmd")
}

// BenchmarkEvaluate grades the realistic mix with the full default policy,
// parse included, with the caches on: after the first round every command
// is a verdict-cache hit (as a long-lived server sees repeated commands).
func BenchmarkEvaluate(b *testing.B) { benchMix(b, defaultEngine(b), benchdata.Mix) }

// BenchmarkEvaluateFollowSymlinks is BenchmarkEvaluate graded where paths
// point (hooks, run): no verdict-cache hits, every path resolved on disk
// (segment results are still cached).
func BenchmarkEvaluateFollowSymlinks(b *testing.B) {
	benchMix(b, defaultEngine(b), benchdata.Mix, engine.FollowSymlinks(true))
}

// BenchmarkEvaluateCold is BenchmarkEvaluate with the caches off: every
// command is parsed and evaluated.
func BenchmarkEvaluateCold(b *testing.B) { benchMix(b, coldEngine(b), benchdata.Mix) }

// BenchmarkParseMix parses the same mix, for the evaluate/parse ratio.
func BenchmarkParseMix(b *testing.B) {
	var durs []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range benchdata.Mix {
			t0 := time.Now()
			parser.Parse(c, parser.Workspace("/work/proj"), parser.Home("/home/dev"))
			durs = append(durs, time.Since(t0))
		}
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Nanoseconds()), "median-ns/cmd")
}

// BenchmarkEvaluateParallel grades the mix from all CPUs at once.
func BenchmarkEvaluateParallel(b *testing.B) {
	e := coldEngine(b)
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			e.EvaluateText(ctx, benchdata.Mix[i%len(benchdata.Mix)], benchOpts...)
			i++
		}
	})
}

// BenchmarkNew measures start-up: loading, parsing and compiling the
// embedded packs and preparing the queries.
func BenchmarkNew(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.New(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
