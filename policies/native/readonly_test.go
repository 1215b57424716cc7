package native

import (
	"testing"

	"github.com/rivumi/rivumi/internal/benchdata"
	"github.com/rivumi/rivumi/parser"
)

// mixSegs is every segment of the benchmark mix (and of commands that
// reach the slower paths of readonly.rego's and packages.rego's rules), as
// the rules see them.
func mixSegs() []*Seg {
	cmds := append([]string{
		"git -c color.ui=always log --oneline", "find . -exec nice wc -l {} +", "find . | xargs grep -l x",
		"psql -c 'select 1'", "kubectl delete pod x", "node --version", "go version", "x=5", "git add -u src",
		"git branch feat main", "sed -i s/a/b/ f.txt", "mkdir -p build", "jq -r .name f.json",
	}, benchdata.Mix...)
	var out []*Seg
	for _, c := range cmds {
		cmd, _ := parser.Parse(c, parser.Workspace("/work/proj"), parser.Cwd("/work/proj"), parser.Home("/home/dev"))
		for _, s := range cmd.Segments {
			out = append(out, NewSeg(s))
		}
	}
	return out
}

// TestReadonlyRulesAllocate: the rules of readonly.go and packages.go
// allocate nothing (they run for every segment).
func TestReadonlyRulesAllocate(t *testing.T) {
	tabs := generatedTables()
	segs := mixSegs()
	rules := append(append([]Rule{}, readonlyRules...), packagesRules...)
	if n := testing.AllocsPerRun(20, func() {
		for _, s := range segs {
			for _, r := range rules {
				r.Match(s, tabs)
			}
		}
	}); n != 0 {
		t.Errorf("%v allocations per run of the rules over %d segments, want 0", n, len(segs))
	}
}

// BenchmarkReadonlyRules is the cost of readonly.go's and packages.go's
// rules per segment of the mix.
func BenchmarkReadonlyRules(b *testing.B) {
	tabs := generatedTables()
	segs := mixSegs()
	for _, set := range []struct {
		name  string
		rules []Rule
	}{{"readonly", readonlyRules}, {"packages", packagesRules}} {
		b.Run(set.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range segs {
					for _, r := range set.rules {
						r.Match(s, tabs)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(segs)), "ns/segment")
		})
	}
}
