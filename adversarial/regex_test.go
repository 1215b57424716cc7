package adversarial_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/rego"
)

// regexCall finds the pattern argument of OPA's regex builtins in Rego
// source: a raw `…` string or a "…" string.
var regexCall = regexp.MustCompile("regex\\.(?:match|find_n|find_all_string_submatch_n|replace|split|is_valid|template_match)\\(\\s*(`[^`]*`|\"(?:[^\"\\\\]|\\\\.)*\")")

// policyRegexes extracts every literal pattern of the built-in rule packs.
func policyRegexes(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../policies/rules/*.rego")
	if err != nil || len(files) == 0 {
		t.Fatalf("no policies found: %v", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.rego") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexCall.FindAllStringSubmatch(string(b), -1) {
			lit := m[1]
			var pat string
			if lit[0] == '`' {
				pat = lit[1 : len(lit)-1]
			} else if pat, err = strconv.Unquote(lit); err != nil {
				t.Fatalf("%s: cannot read %s: %v", f, lit, err)
			}
			if !seen[pat] {
				seen[pat] = true
				out = append(out, pat)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestPolicyRegexesLinear checks the regexes of the policies against
// catastrophic backtracking. OPA evaluates regex.match with Go's regexp,
// an RE2 engine whose matching time is linear in the input; compiling each
// pattern with Go's regexp proves it is RE2 syntax (no backreferences or
// lookaround that would need a backtracking engine). A scaling test then
// runs OPA's regex.match on inputs of size n and 4n built to stress each
// pattern, and checks the time grows about linearly (×4, with a wide
// margin for noise; backtracking would show ×16 or far worse).
func TestPolicyRegexesLinear(t *testing.T) {
	pats := policyRegexes(t)
	if len(pats) == 0 {
		t.Fatal("no regex found in policies/rules; the extraction is broken")
	}
	for _, p := range pats {
		if _, err := regexp.Compile(p); err != nil {
			t.Errorf("%q is not RE2 syntax: %v", p, err)
		}
	}
	ctx := context.Background()
	pq, err := rego.New(rego.Query("x = regex.match(input.p, input.s)")).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	timeOf := func(p, s string) time.Duration {
		best := time.Duration(1 << 62)
		for i := 0; i < 5; i++ {
			start := time.Now()
			if _, err := pq.Eval(ctx, rego.EvalInput(map[string]any{"p": p, "s": s})); err != nil {
				t.Fatalf("regex.match(%q): %v", p, err)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	const n = 20000
	checked := 0
	for _, p := range pats {
		for _, unit := range stressUnits(p) {
			small := repeatTo(unit, n)
			large := repeatTo(unit, 4*n)
			ts, tl := timeOf(p, small), timeOf(p, large)
			checked++
			// Below a millisecond, timing noise dominates; linear matching
			// of 80 kB takes far less.
			if tl > time.Millisecond && tl > 12*ts {
				t.Errorf("%q on %q×: %v for %d bytes, %v for %d bytes: not linear", p, unit, ts, len(small), tl, len(large))
			}
		}
	}
	t.Logf("%d policy regexes, all RE2; %d scaling runs (n=%d vs 4n)", len(pats), checked, n)
}

// stressUnits returns strings whose repetition stresses p: its literal
// characters, runs of the characters it repeats, and near misses.
func stressUnits(p string) []string {
	var lits []rune
	seen := map[rune]bool{}
	for _, r := range p {
		if strings.ContainsRune(`\^$.|?*+()[]{}`, r) || seen[r] {
			continue
		}
		seen[r] = true
		lits = append(lits, r)
	}
	units := []string{"a", "/", "-", " ", "=", "@", ".", "x/", ".env", "id_", "delete ", "--"}
	if len(lits) > 0 {
		units = append(units, string(lits), string(lits[:1]), string(lits[len(lits)-1:]))
	}
	return units
}

func repeatTo(unit string, n int) string {
	return strings.Repeat(unit, n/len(unit)+1)[:n]
}
