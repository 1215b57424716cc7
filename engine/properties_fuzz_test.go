package engine_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/codescan"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/parser"
)

var (
	uncachedOnce sync.Once
	uncached     *engine.Engine
	uncachedErr  error
)

func uncachedEngine(t testing.TB) *engine.Engine {
	t.Helper()
	uncachedOnce.Do(func() { uncached, uncachedErr = engine.New(context.Background(), engine.CacheSize(0)) })
	if uncachedErr != nil {
		t.Fatalf("engine.New: %v", uncachedErr)
	}
	return uncached
}

// singleQuote quotes s as one bash word.
func singleQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// verdictKey is what must agree between two gradings: the decision and the
// deciding rules.
func verdictKey(v engine.Verdict) string {
	ids := make([]string, 0, len(v.Reasons))
	for _, r := range v.Reasons {
		ids = append(ids, r.Rule)
	}
	slices.Sort(ids)
	return v.Decision.String() + " " + strings.Join(ids, ",")
}

// FuzzVerdictProperties states what must hold between the verdicts of
// related texts, for any text T:
//   - a deny of T is never an allow of `bash -c 'T'`, `true; T` or
//     `T⏎true` (wrapping or adding a command never lowers a verdict);
//   - a deny of `bash -c 'T'` or of `T; true` is never an allow of T;
//   - unparsable text whose raw floor scan hits is denied;
//   - grading twice agrees, and an engine without caches agrees with one
//     with them.
//
// Seeds are the FuzzEvaluate corpus (testdata/fuzz/FuzzVerdictProperties);
// CI runs it for a short time (.ci/run).
func FuzzVerdictProperties(f *testing.F) {
	e := defaultEngine(f)
	u := uncachedEngine(f)
	ctx := context.Background()
	opts := []engine.EvalOption{engine.Workspace("/work/proj"), engine.Home("/home/dev"), engine.Cwd("/work/proj")}
	grade := func(text string) engine.Verdict { return e.EvaluateText(ctx, text, opts...) }
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return // large inputs are FuzzEvaluate's; keep each run fast
		}
		v := grade(text)
		if again := grade(text); verdictKey(again) != verdictKey(v) {
			t.Fatalf("%q: graded twice: %s, then %s", text, verdictKey(v), verdictKey(again))
		}
		if w := u.EvaluateText(ctx, text, opts...); verdictKey(w) != verdictKey(v) {
			t.Fatalf("%q: cached %s, uncached %s", text, verdictKey(v), verdictKey(w))
		}
		if _, err := parser.Parse(text); err != nil && len(codescan.Floor(text)) > 0 && v.Decision != engine.Deny {
			t.Fatalf("%q does not parse and its raw floor scan hits %v, but it is %s", text, codescan.Floor(text), v.Decision)
		}
		if strings.HasSuffix(text, "\\") {
			return // a trailing backslash joins the next line: the forms below change meaning
		}
		wrapped := map[string]engine.Verdict{
			"bash -c 'T'": grade("bash -c " + singleQuote(text)),
			"true; T":     grade("true; " + text),
			"T⏎true":      grade(text + "\ntrue"),
		}
		for form, w := range wrapped {
			if v.Decision == engine.Deny && w.Decision == engine.Allow {
				t.Fatalf("%q is denied (%s) but %s is allowed", text, verdictKey(v), form)
			}
		}
		if v.Decision == engine.Allow {
			for form, w := range map[string]engine.Verdict{"bash -c 'T'": wrapped["bash -c 'T'"], "T; true": grade(text + "; true")} {
				if _, err := parser.Parse(text + "; true"); err != nil && form == "T; true" {
					continue // T ends in ; (or &): T; true is a syntax error, graded unparsable
				}
				if w.Decision == engine.Deny {
					t.Fatalf("%s is denied (%s) but %q is allowed", form, verdictKey(w), text)
				}
			}
		}
	})
}
