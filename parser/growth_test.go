package parser_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/rivumi/rivumi/internal/benchdata"
	"github.com/rivumi/rivumi/parser"
)

// BenchmarkParseNested parses `ls -la` inside 1–8 nested `bash -c '…'`
// (benchdata.Nested: the text grows about 3× a level) and reports the
// cost per byte of text, which must stay flat: linear in the text.
func BenchmarkParseNested(b *testing.B) {
	for depth := 1; depth <= 8; depth++ {
		s := benchdata.Nested(depth)
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parser.Parse(s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(s)), "ns/byte")
			b.ReportMetric(float64(len(s)), "bytes")
		})
	}
}

// BenchmarkParseSegments parses 1–256 segments joined by && and reports
// the cost per segment.
func BenchmarkParseSegments(b *testing.B) {
	for _, n := range []int{1, 4, 16, 64, 256} {
		s := benchdata.Segments(n)
		b.Run(fmt.Sprintf("segments=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parser.Parse(s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/segment")
		})
	}
}

// TestNestedParseLinear: the work of parsing nested `bash -c` quoting
// (counted in bytes allocated, which a loaded machine does not distort)
// grows linearly with the text, not with the text times the depth or
// worse: per byte, depth 8 (9.9 KB) allocates at most twice what depth 4
// (154 B) does.
func TestNestedParseLinear(t *testing.T) {
	perByte := func(depth int) float64 {
		s := benchdata.Nested(depth)
		var m0, m1 runtime.MemStats
		const runs = 20
		runtime.ReadMemStats(&m0)
		for range runs {
			if _, err := parser.Parse(s); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&m1)
		return float64(m1.TotalAlloc-m0.TotalAlloc) / runs / float64(len(s))
	}
	parser.Parse(benchdata.Nested(8)) // pools warm
	base := perByte(4)
	for depth := 5; depth <= 8; depth++ {
		if got := perByte(depth); got > 2*base {
			t.Errorf("depth %d: %.0f bytes allocated per byte of text; depth 4: %.0f (want at most twice)", depth, got, base)
		} else {
			t.Logf("depth %d: %.0f B allocated per byte of text (depth 4: %.0f)", depth, got, base)
		}
	}
}
