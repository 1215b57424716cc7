package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/rivumi/rivumi/internal/benchdata"
)

// BenchmarkGrowth grades, every cache off, commands of 1–256 segments
// joined by && (cost per segment, which must stay flat) and `ls -la`
// inside 1–8 nested `bash -c '…'` (each level a segment more, its text
// about 3× longer; parser.BenchmarkParseNested has the parse alone).
func BenchmarkGrowth(b *testing.B) {
	e := coldEngine(b)
	ctx := context.Background()
	for _, n := range []int{1, 4, 16, 64, 256} {
		s := benchdata.Segments(n)
		b.Run(fmt.Sprintf("segments=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.EvaluateText(ctx, s, benchOpts...)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/segment")
		})
	}
	for depth := 1; depth <= 8; depth++ {
		s := benchdata.Nested(depth)
		b.Run(fmt.Sprintf("nested=%d", depth), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.EvaluateText(ctx, s, benchOpts...)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(depth+1), "ns/segment")
		})
	}
}
