package parser_test

import (
	"testing"

	"github.com/rivumi/rivumi/internal/benchdata"
	"github.com/rivumi/rivumi/parser"
)

// BenchmarkParse parses the realistic mix; ns/op is per command.
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	start, n := benchdata.CPUNanos(), 0
	for i := 0; b.Loop(); i++ {
		cmd := benchdata.Mix[i%len(benchdata.Mix)]
		if _, err := parser.Parse(cmd, parser.Workspace("/work/proj"), parser.Home("/home/dev")); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(benchdata.CPUNanos()-start)/float64(n), "cpu-ns/op")
}
