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
//     `T⏎true` (wrapping or adding a command never lowers a verdict),
//     except `T⏎true` where T does not parse and T⏎true does: there the
//     newline completed T (T ended in &&, |, an open if or quote, ...), so
//     T⏎true is another program, graded on its own; T's deny came from the
//     raw floor scan, which is conservative by design (a floor shape in a
//     quoted word of text that does not parse is a hit: the same words are
//     code in `bash -c '…' &&`), and bash runs none of T, so the deny costs
//     nothing (`test 'rm -r ~'&&` is denied, `test 'rm -r ~'&&⏎true` allowed);
//   - a deny of `bash -c 'T'` or of `T; true` is never an allow of T;
//   - unparsable text is never allowed, and it is denied when its raw
//     floor scan hits;
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
		_, perr := parser.Parse(text)
		if perr != nil && v.Decision == engine.Allow {
			t.Fatalf("%q does not parse (%v), but it is allowed", text, perr)
		}
		if perr != nil && len(codescan.Floor(text)) > 0 && v.Decision != engine.Deny {
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
		if perr != nil {
			if _, err := parser.Parse(text + "\ntrue"); err == nil {
				delete(wrapped, "T⏎true") // the newline completed T: another program
			}
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

// TestUnparsableCompletedByNewline pins the decision FuzzVerdictProperties
// found (issue 38, item 4): text that does not parse stays denied when its
// raw floor scan hits, even where the same words are only data once a
// newline completes the text; the completed text is graded as the program
// it is. Failing closed on unparsable text is the contract; the property's
// T⏎true form excludes completions instead.
func TestUnparsableCompletedByNewline(t *testing.T) {
	e := defaultEngine(t)
	ctx := context.Background()
	opts := []engine.EvalOption{engine.Workspace("/work/proj"), engine.Home("/home/dev"), engine.Cwd("/work/proj")}
	for _, c := range []struct {
		text string
		want engine.Decision
		rule string
	}{
		{"test 000'00 rm -r0 ~00'&&", engine.Deny, "floor.rm-root"},
		{"test 000'00 rm -r0 ~00'&&\ntrue", engine.Allow, ""},
		{"bash -c 'rm -r ~' &&", engine.Deny, "floor.rm-root"},
		{"bash -c 'rm -r ~' &&\ntrue", engine.Deny, "floor.rm-critical"},
		{"test 'rm -r x'&&", engine.Ask, engine.RuleParseError},
		{"echo 'rm -r ~", engine.Deny, "floor.rm-root"},
		{"echo 'rm -r ~\ntrue", engine.Deny, "floor.rm-root"},
	} {
		v := e.EvaluateText(ctx, c.text, opts...)
		if v.Decision != c.want {
			t.Errorf("%q: %s (%s), want %s", c.text, v.Decision, verdictKey(v), c.want)
			continue
		}
		if c.rule != "" && !slices.ContainsFunc(v.Reasons, func(r engine.Reason) bool { return r.Rule == c.rule }) {
			t.Errorf("%q: %s, want a reason %s", c.text, verdictKey(v), c.rule)
		}
	}
}
