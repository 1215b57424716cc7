package adversarial_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/adversarial"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/verdict"
)

// TestGenerated grades every generated evasion case: knowable rewritings of
// a floor or deny seed must stay deny, unknowable ones must never be allow.
// The log carries the counts and pass rates per family and per seed; set
// ADVERSARIAL_FAILURES=FILE to write every failing case there.
func TestGenerated(t *testing.T) {
	e := eng(t)
	ctx := context.Background()
	cases := adversarial.Generate()
	if len(cases) < 1000 {
		t.Fatalf("only %d cases generated", len(cases))
	}
	opts := evalOpts("bash")
	byFamily, bySeed, byWant := newTally(), newTally(), newTally()
	var fails []string
	perFamily := map[string]int{}
	allowed := 0
	verdicts := evalAll(e, ctx, cases, opts)
	for i, c := range cases {
		v := verdicts[i]
		ok := v.Decision == verdict.Deny || (c.Want == adversarial.WantNotAllow && v.Decision != verdict.Allow)
		if v.Decision == verdict.Allow {
			allowed++
		}
		byFamily.add(c.Family, ok)
		bySeed.add(c.Seed, ok)
		byWant.add("want "+c.Want.String(), ok)
		if !ok {
			perFamily[c.Family]++
			fails = append(fails, fmt.Sprintf("%s/%s [%s]: %q → %s (%s), want %s",
				c.Seed, c.Family, c.Transform, c.Command, v.Decision, reasonIDs(v), c.Want))
		}
	}
	passed := len(cases) - len(fails)
	t.Logf("generated %d cases (%d seeds); passed %d (%.2f%%); allowed %d\nby expectation:\n%sby family:\n%sby seed:\n%s",
		len(cases), len(adversarial.Seeds()), passed, pct(passed, len(cases)), allowed, byWant, byFamily, bySeed)
	if out := os.Getenv("ADVERSARIAL_FAILURES"); out != "" {
		if err := os.WriteFile(out, []byte(strings.Join(fails, "\n")+"\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
	if len(fails) > 0 {
		// A sample per family keeps the message readable; the counts above
		// and ADVERSARIAL_FAILURES give the rest.
		shown := map[string]int{}
		var sample []string
		for _, f := range fails {
			fam := strings.SplitN(strings.SplitN(f, "/", 2)[1], " ", 2)[0]
			if shown[fam] < 5 {
				shown[fam]++
				sample = append(sample, f)
			}
		}
		t.Errorf("%d of %d generated cases fail (allowed: %d); sample:\n%s", len(fails), len(cases), allowed, strings.Join(sample, "\n"))
	}
}

// evalAll grades the cases on every CPU (the engine is safe for
// concurrent use).
func evalAll(e *engine.Engine, ctx context.Context, cases []adversarial.Case, opts []engine.EvalOption) []verdict.Verdict {
	out := make([]verdict.Verdict, len(cases))
	var wg sync.WaitGroup
	n := runtime.GOMAXPROCS(0)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(cases); i += n {
				out[i] = e.EvaluateText(ctx, cases[i].Command, opts...)
			}
		}()
	}
	wg.Wait()
	return out
}

// TestGeneratedStable checks the generator is deterministic: the lead
// quotes its counts, so they must not move between runs. Set
// ADVERSARIAL_DUMP=FILE to write the cases there as JSON Lines (the input
// of rivumi policy eval --batch, plus the expectation).
func TestGeneratedStable(t *testing.T) {
	a, b := adversarial.Generate(), adversarial.Generate()
	if out := os.Getenv("ADVERSARIAL_DUMP"); out != "" {
		var buf strings.Builder
		for _, c := range a {
			line, _ := json.Marshal(map[string]string{"command": c.Command, "want": c.Want.String(), "seed": c.Seed, "family": c.Family, "transform": c.Transform})
			buf.Write(line)
			buf.WriteByte('\n')
		}
		if err := os.WriteFile(out, []byte(buf.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
	if len(a) != len(b) {
		t.Fatalf("two runs gave %d and %d cases", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("case %d differs: %+v vs %+v", i, a[i], b[i])
		}
	}
}
