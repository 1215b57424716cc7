package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/rivumi/rivumi/engine"
)

// slowPack is a team rule that takes seconds on every segment.
const slowPack = `package rivumi.user

# METADATA
# title: Slow
# custom:
#   id: team.slow
#   justification: A rule that computes far too much.
deny contains {"id": "team.slow"} if {
	count([x | some x in numbers.range(1, 20000000); x < 0]) > 0
}
`

// Every evaluation has a deadline of its own: a slow rule denies with
// engine.timeout, whatever the caller's context (here: none), on each entry
// point; a sooner deadline of the caller stays, a later one does not
// lift the engine's.
func TestEvalDeadline(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.UserModule("slow.rego", slowPack), engine.EvalTimeout(100*time.Millisecond), engine.CacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	for name, eval := range map[string]func() engine.Verdict{
		"text":    func() engine.Verdict { return e.EvaluateText(ctx, "ls -la") },
		"argv":    func() engine.Verdict { return e.EvaluateArgv(ctx, []string{"ls", "-la"}) },
		"explain": func() engine.Verdict { return e.Explain(ctx, "ls -la").Verdict },
		"caller's": func() engine.Verdict {
			c, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			defer cancel()
			return e.EvaluateText(c, "ls")
		},
		"caller's later": func() engine.Verdict { // the engine's own deadline still counts
			c, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			return e.EvaluateText(c, "ls -l")
		},
	} {
		start := time.Now()
		v := eval()
		d := time.Since(start)
		if v.Decision != engine.Deny || len(v.Reasons) == 0 || v.Reasons[0].Rule != engine.RuleTimeout {
			t.Errorf("%s: %s %+v, want deny by %s", name, v.Decision, v.Reasons, engine.RuleTimeout)
		}
		if d > 3*time.Second {
			t.Errorf("%s: took %v: the deadline did not stop the evaluation", name, d)
		}
	}
	if engine.DefaultEvalTimeout != 5*time.Second {
		t.Errorf("DefaultEvalTimeout = %v; the docs say 5s", engine.DefaultEvalTimeout)
	}
}
