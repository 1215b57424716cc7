package rules

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseYAMLRules(t *testing.T) {
	rs, err := ParseYAMLRules("team.yaml", []byte(`rules:
  - id: team.no-force-push
    title: No force push
    pattern: [git, push, [--force, -f]]
    decision: deny
    justification: Open a pull request instead.
    match: ["git push --force", "git push -f origin"]
    not_match:
      - git push origin
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("%d rules", len(rs))
	}
	r := rs[0]
	want := YAMLRule{
		ID: "team.no-force-push", Title: "No force push", Decision: "deny", Justification: "Open a pull request instead.",
		Pattern:  [][]string{{"git"}, {"push"}, {"--force", "-f"}},
		Match:    []Example{{"git push --force", 7}, {"git push -f origin", 7}},
		NotMatch: []Example{{"git push origin", 9}},
		File:     "team.yaml", Line: 2,
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got  %+v\nwant %+v", r, want)
	}
	if got := r.Where(); got != "team.yaml:2" {
		t.Errorf("Where %q", got)
	}
}

func TestParseYAMLRulesErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"unknown top key", "rule: []\n", `team.yaml:1: unknown key "rule" (did you mean "rules"?)`},
		{"unknown rule key", "rules:\n  - id: a\n    pattern: [ls]\n    decision: allow\n    justfication: typo\n",
			`team.yaml:5: unknown key "justfication"`},
		{"no id", "rules:\n  - pattern: [ls]\n    decision: allow\n", "team.yaml:2: rule has no id"},
		{"bad decision", "rules:\n  - id: a\n    pattern: [ls]\n    decision: block\n", `team.yaml:2: rule a: decision "block": want allow, ask or deny`},
		{"no decision", "rules:\n  - id: a\n    pattern: [ls]\n", "team.yaml:2: rule a: no decision"},
		{"deny without justification", "rules:\n  - id: a\n    pattern: [rm]\n    decision: deny\n", "team.yaml:2: rule a: a deny rule needs a justification"},
		{"blank justification", "rules:\n  - id: a\n    pattern: [rm]\n    decision: deny\n    justification: '  '\n", "a deny rule needs a justification"},
		{"no pattern", "rules:\n  - id: a\n    decision: ask\n", "team.yaml:2: rule a: no pattern"},
		{"empty pattern", "rules:\n  - id: a\n    pattern: []\n    decision: ask\n", "team.yaml:3: rule a: pattern: want a non-empty list"},
		{"nested list", "rules:\n  - id: a\n    pattern: [git, [[push]]]\n    decision: ask\n", "lists do not nest"},
		{"option program", "rules:\n  - id: a\n    pattern: [-x]\n    decision: ask\n", "the first token is the program"},
		{"path program", "rules:\n  - id: a\n    pattern: [/usr/bin/git]\n    decision: ask\n", `write "git", not "/usr/bin/git"`},
		{"blank in token", "rules:\n  - id: a\n    pattern: [git push]\n    decision: ask\n", "holds a blank: write one token per argv word"},
		{"mixed", "rules:\n  - id: a\n    pattern: [git, [push, -f]]\n    decision: ask\n", "position 1 mixes options and words"},
		{"empty token", "rules:\n  - id: a\n    pattern: [git, '']\n    decision: ask\n", "position 1: empty token"},
		{"bad example", "rules:\n  - id: a\n    pattern: [git]\n    decision: ask\n    match: [[x]]\n", "team.yaml:5: match: each example is a non-empty command string"},
		{"not a mapping", "rules:\n  - just a string\n", "team.yaml:2: a rule is a mapping"},
		{"syntax", "rules:\n  - id: [\n", "team.yaml:"},
		{"duplicate key", "rules:\n  - id: a\n    id: b\n    pattern: [ls]\n    decision: ask\n", `team.yaml:3: duplicate key "id"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseYAMLRules("team.yaml", []byte(tc.src))
			var re *RuleError
			if !errors.As(err, &re) {
				t.Fatalf("want a *RuleError, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
			for _, p := range re.Problems {
				if !strings.HasPrefix(p, "team.yaml:") {
					t.Errorf("problem without a location: %q", p)
				}
			}
		})
	}
}

// Every problem of every rule is reported at once, and the good rules load.
func TestParseYAMLRulesAllProblems(t *testing.T) {
	rs, err := ParseYAMLRules("t.yaml", []byte("rules:\n  - id: ok\n    pattern: [ls]\n    decision: allow\n  - id: b\n    pattern: [rm]\n    decision: nope\n  - id: c\n    decision: ask\n"))
	var re *RuleError
	if !errors.As(err, &re) || len(re.Problems) != 2 {
		t.Fatalf("problems: %v", err)
	}
	if len(rs) != 1 || rs[0].ID != "ok" {
		t.Errorf("rules %+v", rs)
	}
}

func TestYAMLRuleData(t *testing.T) {
	r := YAMLRule{ID: "x", Decision: "deny", Pattern: [][]string{{"git"}, {"push"}, {"--force", "-f"}, {"origin"}}}
	d := r.Data()
	if got := d["words"]; !reflect.DeepEqual(got, []any{[]any{"push"}}) {
		t.Errorf("words %v", got)
	}
	if got := d["later"]; !reflect.DeepEqual(got, []any{[]any{"origin"}}) {
		t.Errorf("later %v", got)
	}
	opts := d["options"].([]any)[0].([]any)
	long := opts[0].(map[string]any)
	if long["exact"] != "--force" || long["assign"] != "--force=" || !reflect.DeepEqual(long["names"], []any{"force"}) {
		t.Errorf("--force: %v", long)
	}
	short := opts[1].(map[string]any)
	letters := short["letters"].([]any)
	if len(letters) != 1 || !reflect.DeepEqual(letters[0], map[string]any{"letter": "f", "names": []any{"f", "force"}}) {
		t.Errorf("-f: %v", short)
	}
	if got := r.PrefixWords(); !reflect.DeepEqual(got, [][]string{{"git"}, {"push"}}) {
		t.Errorf("prefix words %v", got)
	}
	a := YAMLRule{ID: "y", Decision: "allow", Pattern: [][]string{{"ls"}, {"-l"}, {"src"}}}
	if got := a.Data()["words"]; !reflect.DeepEqual(got, []any{[]any{"-l"}, []any{"src"}}) {
		t.Errorf("allow words %v", got)
	}
}
