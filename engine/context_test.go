package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
)

// An invalid context is an error naming the field, and the verdict is
// deny: never a relative path silently dropped, never an unknown shell
// graded as bash.
func TestInvalidContextDenies(t *testing.T) {
	e := defaultEngine(t)
	ctx := context.Background()
	for _, tc := range []struct {
		opts  []engine.EvalOption
		field string
	}{
		{[]engine.EvalOption{engine.Cwd("proj")}, `"cwd"`},
		{[]engine.EvalOption{engine.Workspace("./w")}, `"workspace"`},
		{[]engine.EvalOption{engine.Home("~")}, `"home"`},
		{[]engine.EvalOption{engine.Shell("fish")}, `"shell"`},
		{[]engine.EvalOption{engine.Grants([]engine.Grant{{Prefix: []string{"ls"}}})}, "grant 0"},
	} {
		for name, v := range map[string]engine.Verdict{
			"text":    e.EvaluateText(ctx, "ls", tc.opts...),
			"argv":    e.EvaluateArgv(ctx, []string{"ls"}, tc.opts...),
			"explain": e.Explain(ctx, "ls", tc.opts...).Verdict,
		} {
			if v.Decision != engine.Deny || len(v.Reasons) != 1 || v.Reasons[0].Rule != engine.RuleBadInput ||
				!strings.Contains(v.Reasons[0].Justification, tc.field) {
				t.Errorf("%s with %s: %v", name, tc.field, v)
			}
		}
	}
	for _, sh := range []string{"", "bash", "sh", "zsh", "dash", "/bin/zsh", "mksh"} {
		if v := e.EvaluateText(ctx, "ls", engine.Shell(sh)); v.Decision != engine.Allow {
			t.Errorf("shell %q: %v", sh, v)
		}
	}
}
