package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/rules"
)

// TestConcurrentEvaluate grades the testcases from several goroutines at
// once (run with -race) and checks every goroutine gets the same verdicts
// as a sequential pass.
func TestConcurrentEvaluate(t *testing.T) {
	e := defaultEngine(t)
	cases, err := rules.LoadTestcases("../testcases")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) > 300 && testing.Short() {
		cases = cases[:300]
	}
	want := make([]string, len(cases))
	for i, tc := range cases {
		want[i] = e.EvaluateText(context.Background(), tc.Command, caseOptions(tc)...).Decision.String()
	}
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := range cases {
				i := (k + g*37) % len(cases)
				tc := cases[i]
				if got := e.EvaluateText(context.Background(), tc.Command, caseOptions(tc)...).Decision.String(); got != want[i] {
					t.Errorf("goroutine %d: %q: %s, sequential %s", g, tc.Command, got, want[i])
				}
			}
		}(g)
	}
	wg.Wait()
}
