package adversarial_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
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
// lookaround that would need a backtracking engine). That is the proof; a
// wall-clock comparison of input sizes is not (it failed about one run in
// three on a loaded machine) and is not made.
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
	t.Logf("%d policy regexes, all RE2", len(pats))
}
