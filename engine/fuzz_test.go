package engine_test

import (
	"context"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/parser"
)

// FuzzEvaluate checks that parsing and grading never panic, that every
// verdict carries a reason, and that a command whose parse fails or hits a
// limit is never allowed. Seeds live in testdata/fuzz/FuzzEvaluate.
func FuzzEvaluate(f *testing.F) {
	e := defaultEngine(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, shell := range []string{"bash", "zsh"} {
			v := e.EvaluateText(context.Background(), text, engine.Workspace("/work/proj"),
				engine.Home("/home/dev"), engine.Cwd("/work/proj"), engine.Shell(shell))
			if len(v.Reasons) == 0 {
				t.Fatalf("%s: %q: %s without a reason", shell, text, v.Decision)
			}
			if v.Reasons[0].Rule == engine.RuleInternal {
				t.Fatalf("%s: %q: grading panicked (recovered as deny): %s", shell, text, v.Reasons[0].Title)
			}
			if v.Decision != engine.Allow {
				continue
			}
			c, err := parser.Parse(text, parser.Shell(shell), parser.Workspace("/work/proj"), parser.Home("/home/dev"))
			if err != nil || c.Shape.Error != nil || c.Shape.Limit != "" {
				t.Fatalf("%s: %q is allowed, but its parse failed (%v) or hit a limit (%q)", shell, text, err, c.Shape.Limit)
			}
		}
	})
}
