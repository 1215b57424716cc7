package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/rules"
)

var (
	sharedOnce sync.Once
	shared     *engine.Engine
	sharedErr  error
)

// defaultEngine compiles the embedded packs once per test binary.
func defaultEngine(t testing.TB) *engine.Engine {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = engine.New(context.Background()) })
	if sharedErr != nil {
		t.Fatalf("engine.New: %v", sharedErr)
	}
	return shared
}

func caseOptions(tc rules.Testcase) []engine.EvalOption {
	return engine.ContextOptions(engine.TestcaseContext(tc))
}

// TestTestcases runs every testcases/*.yaml case through the engine.
func TestTestcases(t *testing.T) {
	e := defaultEngine(t)
	cases, err := rules.LoadTestcases("../testcases")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("only %d testcases loaded", len(cases))
	}
	for _, tc := range cases {
		v := e.EvaluateText(context.Background(), tc.Command, caseOptions(tc)...)
		ids := map[string]bool{}
		for _, r := range v.Reasons {
			ids[r.Rule] = true
		}
		var problems []string
		if v.Decision.String() != tc.Decision {
			problems = append(problems, "decision "+v.Decision.String()+", want "+tc.Decision)
		}
		for _, id := range tc.Rules {
			if !ids[id] {
				problems = append(problems, "missing rule "+id)
			}
		}
		for _, id := range tc.NotRules {
			if ids[id] {
				problems = append(problems, "unexpected rule "+id)
			}
		}
		if len(problems) > 0 {
			var got []string
			for _, r := range v.Reasons {
				got = append(got, r.Rule)
			}
			t.Errorf("%s: %q: %s (reasons %v)", tc.Name(), tc.Command, strings.Join(problems, "; "), got)
		}
	}
}
