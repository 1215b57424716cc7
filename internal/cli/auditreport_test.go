package cli

import (
	"context"
	"testing"

	"github.com/rivumi/rivumi/engine"
)

// TestEngineTitles: the titles the audit report gives the engine's own
// reasons are the engine's.
func TestEngineTitles(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	meta := e.Rules()
	seen := map[string]bool{}
	for _, text := range []string{"acmectl status", "echo 'unterminated", "   # only a comment"} {
		for _, r := range e.EvaluateText(ctx, text).Reasons {
			if _, ok := engineTitles[r.Rule]; !ok {
				continue
			}
			seen[r.Rule] = true
			if got := ruleTitle(meta, r.Rule); got != r.Title {
				t.Errorf("%s: report title %q, engine's %q", r.Rule, got, r.Title)
			}
		}
	}
	for id := range engineTitles {
		if !seen[id] {
			t.Errorf("%s: no command made the engine give this reason; the test does not check its title", id)
		}
	}
	if got := ruleTitle(meta, "git.force-push"); got == "" || got != meta["git.force-push"].Title {
		t.Errorf("git.force-push: title %q, want the policy's", got)
	}
}
