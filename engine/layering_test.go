package engine

import (
	"context"
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/rules"
)

// TestGoLayeringMatchesRego proves the fast path (hits queries + layering
// in Go) gives the same decision and reasons as policies/main.rego's
// data.rivumi.main.result on every segment of every testcase, with and
// without grants; and that the verdict path, which skips the allow layer
// when a stricter layer decided, keeps the same decision and deciding
// reasons.
func TestGoLayeringMatchesRego(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, CacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := rules.LoadTestcases("../testcases")
	if err != nil {
		t.Fatal(err)
	}
	rp, err := e.c.rego()
	if err != nil {
		t.Fatal(err)
	}
	pq, err := rp.pq()
	if err != nil {
		t.Fatal(err)
	}
	run, err := rp.hits.start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer run.close()
	segments, skipped := 0, 0
	for _, tc := range cases {
		opts := []parser.Option{}
		if tc.Workspace != "" {
			opts = append(opts, parser.Workspace(tc.Workspace))
		}
		if tc.Home != "" {
			opts = append(opts, parser.Home(tc.Home))
		}
		cmd, _ := parser.Parse(tc.Command, opts...)
		shape := shapeValue(&cmd.Shape)
		for i, seg := range cmd.Segments {
			// Grant every ask the segment raises, so grants are exercised too.
			for _, grantAll := range []bool{false, true} {
				var granted []string
				if grantAll {
					d, rs, err := e.gradeSegment(run, cmd, i, shape, nil, true)
					if err != nil || d != Ask {
						continue
					}
					for _, r := range rs {
						granted = append(granted, r.Rule)
					}
				}
				fd, fr, ferr := e.gradeSegment(run, cmd, i, shape, granted, true)
				sd, sr, serr := e.gradeSegment(run, cmd, i, shape, granted, false)
				if serr != nil || sd != fd || !reflect.DeepEqual(ids(deciding(sd, sr)), ids(deciding(fd, fr))) {
					t.Errorf("%s %q segment %d (grants %v): verdict path %s %v (%v), full %s %v", tc.Name(), tc.Command, i, granted, sd, ids(deciding(sd, sr)), serr, fd, ids(deciding(fd, fr)))
				}
				if len(sr) < len(fr) {
					skipped++
				}
				res, err := pq.Eval(ctx, rego.EvalParsedInput(segmentInput(cmd, i, shape, granted)))
				if err != nil || ferr != nil {
					t.Fatalf("%s: eval errors: %v / %v", tc.Name(), err, ferr)
				}
				rd, rr, err := e.segmentResult(res, seg)
				if err != nil {
					t.Fatalf("%s: %v", tc.Name(), err)
				}
				if fd != rd || !reflect.DeepEqual(ids(fr), ids(rr)) {
					t.Errorf("%s %q segment %d (grants %v): fast path %s %v, Rego %s %v", tc.Name(), tc.Command, i, granted, fd, ids(fr), rd, ids(rr))
				}
				segments++
			}
		}
	}
	t.Logf("%d segment evaluations compared; the verdict path left out allow hits on %d", segments, skipped)
	if skipped == 0 {
		t.Error("the verdict path never skipped the allow layer")
	}
}

func ids(rs []Reason) []string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r.Layer)+":"+r.Rule)
	}
	return out
}
