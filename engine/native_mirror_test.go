package engine

import (
	"context"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/policies/native"
	"github.com/rivumi/rivumi/rules"
)

var nativePrefix = flag.String("native-rules", "", "TestNativeMatchesRego: compare only rule ids with this prefix")

// mirrorCase is one command graded by both the Rego and the Go rules.
type mirrorCase struct {
	name, text string
	ctx        Context
}

// mirrorCases are the commands the Go rules are compared on: every
// testcase, and the benchmark mix.
func mirrorCases(t testing.TB) []mirrorCase {
	cases, err := rules.LoadTestcases("../testcases")
	if err != nil {
		t.Fatal(err)
	}
	var out []mirrorCase
	for _, tc := range cases {
		out = append(out, mirrorCase{tc.Name(), tc.Command, TestcaseContext(tc)})
	}
	return out
}

// mirrorRules is the Go rules over the embedded data files.
func mirrorRules(t testing.TB) *native.Rules {
	_, dataFiles, err := load(&config{})
	if err != nil {
		t.Fatal(err)
	}
	var texts [][]byte
	for _, f := range dataFiles {
		texts = append(texts, []byte(f.text))
	}
	tabs, err := native.DecodeTables(texts...)
	if err != nil {
		t.Fatal(err)
	}
	return native.New(tabs)
}

// mirrorDiff compares one segment's hits, layer by layer, and returns
// what differs as "layer id: rego|go only".
func mirrorDiff(run *evalRun, nr *native.Rules, cmd *parser.Command, i int, shape *ast.Term, keep func(string) bool) ([]string, error) {
	input := ast.NewTerm(segmentInput(cmd, i, shape, nil))
	h, err := run.gateHits(input)
	if err != nil {
		return nil, err
	}
	if h.allow, err = run.allowHits(input); err != nil {
		return nil, err
	}
	s := native.NewSeg(cmd.Segments[i])
	var diffs []string
	for l, rego := range [][]string{h.floor, h.deny, h.ask, h.allow} {
		layer := native.Layer(l)
		want := slices.DeleteFunc(slices.Clone(rego), func(id string) bool { return !keep(id) })
		got := slices.DeleteFunc(nr.Hits(layer, s), func(id string) bool { return !keep(id) })
		for _, id := range want {
			if !slices.Contains(got, id) {
				diffs = append(diffs, fmt.Sprintf("%s %s: Rego only", layer, id))
			}
		}
		for _, id := range got {
			if !slices.Contains(want, id) {
				diffs = append(diffs, fmt.Sprintf("%s %s: Go only", layer, id))
			}
		}
	}
	return diffs, nil
}

// TestNativeMatchesRego grades every segment of every testcase with the
// Rego rules and the Go rules (policies/native) and fails on any hit one
// has and the other lacks, in any layer. Rule ids without a Go rule yet are
// left out here (TestNativeComplete fails on them); -native-rules=PREFIX
// compares only ids with that prefix.
func TestNativeMatchesRego(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, CacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	nr := mirrorRules(t)
	implemented := map[string]bool{}
	for _, r := range native.All() {
		implemented[r.ID] = true
	}
	keep := func(id string) bool { return implemented[id] && strings.HasPrefix(id, *nativePrefix) }
	rp, err := e.c.rego()
	if err != nil {
		t.Fatal(err)
	}
	run, err := rp.hits.start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer run.close()
	byRule := map[string][]string{}
	segments := 0
	for _, mc := range mirrorCases(t) {
		c := newEvalConfig(ContextOptions(mc.ctx))
		cmd, _ := parser.Parse(mc.text, c.parserOptions()...)
		shape := shapeValue(&cmd.Shape)
		for i := range cmd.Segments {
			segments++
			diffs, err := mirrorDiff(run, nr, cmd, i, shape, keep)
			if err != nil {
				t.Fatalf("%s: %v", mc.name, err)
			}
			for _, d := range diffs {
				byRule[d] = append(byRule[d], fmt.Sprintf("%s %q segment %d (%q)", mc.name, mc.text, i, cmd.Segments[i].Text))
			}
		}
	}
	keys := make([]string, 0, len(byRule))
	for k := range byRule {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ex := byRule[k]
		t.Errorf("%s on %d segments, e.g.\n\t%s", k, len(ex), strings.Join(ex[:min(3, len(ex))], "\n\t"))
	}
	t.Logf("%d segments compared, %d rule ids implemented in Go", segments, len(implemented))
}

// TestNativeComplete fails when a built-in rule id has no Go rule, or a Go
// rule has an id no built-in rule declares (or in another layer).
func TestNativeComplete(t *testing.T) {
	e, err := New(context.Background(), CacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	goLayer := map[string]string{}
	for _, r := range native.All() {
		if l, ok := goLayer[r.ID]; ok && l != r.Layer.String() {
			t.Errorf("Go rule %s is in two layers: %s and %s", r.ID, l, r.Layer)
		}
		goLayer[r.ID] = r.Layer.String()
	}
	for id, m := range e.c.meta {
		if m.Layer == "" {
			continue
		}
		if l, ok := goLayer[id]; !ok {
			t.Errorf("rule %s (%s) has no Go rule in policies/native", id, m.Layer)
		} else if l != string(m.Layer) {
			t.Errorf("rule %s: Go layer %s, Rego layer %s", id, l, m.Layer)
		}
	}
	for id := range goLayer {
		if _, ok := e.c.meta[id]; !ok {
			t.Errorf("Go rule %s has no built-in Rego rule", id)
		}
	}
}

// TestNativeVerdicts grades every testcase (its grants included) with an
// engine on the Go rules and one on OPA (RegoOnly) and compares the whole
// verdicts (decision, reasons in order, policy hash) and explanations
// (every hit of every layer, each segment's decision).
func TestNativeVerdicts(t *testing.T) {
	ctx := context.Background()
	ng, err := New(ctx, CacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	if ng.c.native == nil {
		t.Fatal("the engine does not grade with the Go rules (see TestNativeComplete)")
	}
	re, err := New(ctx, CacheSize(0), RegoOnly())
	if err != nil {
		t.Fatal(err)
	}
	if re.c.native != nil {
		t.Fatal("RegoOnly engine grades with the Go rules")
	}
	n := 0
	for _, mc := range mirrorCases(t) {
		opts := ContextOptions(mc.ctx)
		gv, rv := ng.EvaluateText(ctx, mc.text, opts...), re.EvaluateText(ctx, mc.text, opts...)
		if !reflect.DeepEqual(gv, rv) {
			t.Errorf("%s %q:\n\tGo   %+v\n\tRego %+v", mc.name, mc.text, gv, rv)
			continue
		}
		gx, rx := ng.Explain(ctx, mc.text, opts...), re.Explain(ctx, mc.text, opts...)
		if !reflect.DeepEqual(gx.Hits, rx.Hits) || !reflect.DeepEqual(gx.Decisions, rx.Decisions) {
			t.Errorf("%s %q explained:\n\tGo   %v %+v\n\tRego %v %+v", mc.name, mc.text, gx.Decisions, gx.Hits, rx.Decisions, rx.Hits)
		}
		n++
	}
	t.Logf("%d testcases graded alike", n)
}
