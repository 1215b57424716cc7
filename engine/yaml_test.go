package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/rules"
)

func yamlEngine(t *testing.T, src string, opts ...engine.Option) (*engine.Engine, error) {
	t.Helper()
	rs, err := rules.ParseYAMLRules("team.yaml", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return engine.New(context.Background(), append(opts, engine.YAMLRules(rs...))...)
}

const teamRules = `
rules:
  - id: team.no-force-push
    pattern: [git, push, [--force, -f, --force-with-lease]]
    decision: deny
    justification: Force-pushing rewrites shared history; open a PR instead.
    match: ["git push --force origin main", "sudo git push -f", "git push origin main --force", "git push -fu origin main"]
    not_match: ["git push origin main"]
  - id: team.kubectl-delete
    pattern: [kubectl, delete]
    decision: ask
    grantable: true
    match: ["kubectl delete pod x"]
  - id: team.rm-rf-build
    pattern: [rm, -rf, build]
    decision: deny
    justification: Use make clean.
    match: ["rm -rf build", "rm -r -f build", "rm build -fr"]
    not_match: ["rm -r build", "rm -rf dist"]
  - id: team.allow-ls-tree
    title: Listing the tree
    pattern: [ls, [-la, -l]]
    decision: allow
    match: ["ls -la", "ls -l src"]
    not_match: ["ls src -l", "ls"]
`

// hitIDs returns the rule ids of every hit (all layers) for command.
func hitIDs(e *engine.Engine, command string) map[string]bool {
	x := e.Explain(context.Background(), command, engine.Workspace("/w"), engine.Cwd("/w"), engine.Home("/home/u"))
	out := map[string]bool{}
	for _, h := range x.Hits {
		out[h.Rule] = true
	}
	return out
}

func TestYAMLRuleMatching(t *testing.T) {
	e, err := yamlEngine(t, teamRules)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		command string
		rule    string
		want    bool
	}{
		{"git push --force origin main", "team.no-force-push", true},
		{"git push origin main -f", "team.no-force-push", true},
		{"git push -uf origin", "team.no-force-push", true},
		{"git push --force-with-lease=main origin", "team.no-force-push", true},
		{"git -C /w push --force", "team.no-force-push", true},
		{"sudo env A=1 command git push --force", "team.no-force-push", true},
		{`\git 'push' "-f"`, "team.no-force-push", true},
		{"/usr/bin/git push -f", "team.no-force-push", true},
		{"git push origin main", "team.no-force-push", false},
		{"git fetch -f", "team.no-force-push", false},
		{"git log push -f", "team.no-force-push", false},
		{"kubectl delete pod x", "team.kubectl-delete", true},
		{"kubectl get pods", "team.kubectl-delete", false},
		{"rm -rf build", "team.rm-rf-build", true},
		{"rm -Rf build", "team.rm-rf-build", true}, // -R is rm's --recursive too
		{"rm --recursive --force build", "team.rm-rf-build", true},
		{"rm -rf dist", "team.rm-rf-build", false},
		{"ls -la", "team.allow-ls-tree", true},
		{"ls -l src", "team.allow-ls-tree", true},
		{"/bin/ls -l", "team.allow-ls-tree", true},
		{"ls src -l", "team.allow-ls-tree", false},
		{"sudo ls -l", "team.allow-ls-tree", false},
		{"./ls -l", "team.allow-ls-tree", false},
		{"ls -l > /tmp/listing", "team.allow-ls-tree", false}, // writes outside the workspace
		{"ls -l $(pwd)", "team.allow-ls-tree", true},          // the substitution is its own segment, judged on its own
	} {
		if got := hitIDs(e, tc.command)[tc.rule]; got != tc.want {
			t.Errorf("%q: hit %s = %v, want %v", tc.command, tc.rule, got, tc.want)
		}
	}
	rs := e.Rules()
	if m := rs["team.allow-ls-tree"]; m.Title != "Listing the tree" || m.Layer != engine.LayerAllow || !m.User || m.Location != "team.yaml:20" {
		t.Errorf("meta %+v", m)
	}
	if m := rs["team.kubectl-delete"]; m.Title != "team.kubectl-delete" || m.Justification == "" || !m.Grantable() {
		t.Errorf("meta %+v", m)
	}
	v := e.EvaluateText(context.Background(), "git push -f", engine.Workspace("/w"))
	if v.Decision != engine.Deny || v.Reasons[0].Rule != "team.no-force-push" && v.Reasons[len(v.Reasons)-1].Rule != "team.no-force-push" {
		t.Errorf("verdict %v", v)
	}
}

func policyProblems(t *testing.T, err error) string {
	t.Helper()
	var pe *engine.PolicyError
	if !errors.As(err, &pe) {
		t.Fatalf("want a *PolicyError, got %v", err)
	}
	return strings.Join(pe.Problems, "\n")
}

func TestYAMLExamplesChecked(t *testing.T) {
	_, err := yamlEngine(t, `
rules:
  - id: team.kubectl-delete
    pattern: [kubectl, delete]
    decision: ask
    match:
      - kubectl get pods
    not_match:
      - kubectl delete ns x
  - id: team.allow-npm-test
    pattern: [npm, test]
    decision: allow
    match: [npm test]
`)
	got := policyProblems(t, err)
	for _, want := range []string{
		`team.yaml:7: rule team.kubectl-delete: match example "kubectl get pods" does not match (verdict ask`,
		`team.yaml:9: rule team.kubectl-delete: not_match example "kubectl delete ns x" matches`,
		`team.yaml:13: rule team.allow-npm-test: match example "npm test" matches, but the verdict is ask by`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}

// A deny rule that matches its example only by position is escaped by the
// example's own mutations.
func TestYAMLMutationsEscape(t *testing.T) {
	_, err := yamlEngine(t, `
rules:
  - id: team.no-force
    pattern: [git, push, origin, --force]
    decision: deny
    justification: Open a PR instead.
    match: ["git push origin --force"]
`)
	if err != nil {
		t.Fatalf("a later word may sit anywhere: %v", err)
	}
	_, err = yamlEngine(t, `
rules:
  - id: team.no-force
    pattern: [git, push, -f]
    decision: deny
    justification: Open a PR instead.
    match: ["git push -f -u origin"]
    not_match: ["git push -uf origin"]
`)
	got := policyProblems(t, err)
	if !strings.Contains(got, `team.yaml:8: rule team.no-force: not_match example "git push -uf origin" matches`) {
		t.Errorf("problems: %s", got)
	}
}

func TestMutations(t *testing.T) {
	r := rules.YAMLRule{ID: "x", Decision: "deny", Pattern: [][]string{{"git"}, {"push"}, {"-f"}}}
	got := engine.Mutations("git push -f -u origin main", r)
	for _, want := range []string{
		"sudo git push -f -u origin main",
		"env git push -f -u origin main",
		"command git push -f -u origin main",
		`\git push -f -u origin main`,
		`"git" push -f -u origin main`,
		"/usr/bin/git push -f -u origin main",
		"git 'push' -f -u origin main",
		"git push -u -f origin main",
		"git push origin main -f -u",
		"git push -fu origin main",
	} {
		if !contains(got, want) {
			t.Errorf("mutations lack %q: %q", want, got)
		}
	}
	for _, text := range []string{"git push -f | cat", "A=1 git push -f", "git push $X -f", "sudo git push -f", "git push -f > out"} {
		if m := engine.Mutations(text, r); len(m) != 0 {
			t.Errorf("%q: want no mutations, got %q", text, m)
		}
	}
	// Options before the rule's prefix words stay where they are.
	for _, m := range engine.Mutations("git -C dir push -f origin", r) {
		if strings.HasPrefix(m, "git dir") {
			t.Errorf("mutation moved a global option: %q", m)
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestYAMLDuplicateID(t *testing.T) {
	_, err := yamlEngine(t, `
rules:
  - id: git.force-push
    pattern: [git, push]
    decision: ask
`)
	if got := policyProblems(t, err); !strings.Contains(got, "team.yaml:3: rule id git.force-push already declared at policies/rules/git.rego:") {
		t.Errorf("problems: %s", got)
	}
}

// An option's value attached to a short option escapes a pattern that
// lists the option and the value as two tokens.
func TestYAMLMutationsJoinShortValue(t *testing.T) {
	_, err := yamlEngine(t, `
rules:
  - id: team.no-prod-delete
    pattern: [kubectl, delete, [-n, --namespace], prod]
    decision: deny
    justification: Deleting in prod goes through the release pipeline.
    match: ["kubectl delete pod web -n prod", "kubectl delete pod web --namespace prod"]
`)
	got := policyProblems(t, err)
	want := `team.yaml:7: rule team.no-prod-delete: mutation "kubectl delete pod web -nprod" of match example "kubectl delete pod web -n prod" escapes the rule (verdict ask)`
	if !strings.Contains(got, want) || strings.Contains(got, "--namespace=prod") {
		t.Errorf("problems:\n%s\nwant %s", got, want)
	}
	// --name=value and --name value are the same option.
	e, err := yamlEngine(t, `
rules:
  - id: team.no-prod-delete
    pattern: [kubectl, delete, --namespace=prod]
    decision: deny
    justification: Deleting in prod goes through the release pipeline.
    match: ["kubectl delete pod web --namespace=prod", "kubectl delete pod web --namespace prod"]
`)
	if err != nil {
		t.Fatal(err)
	}
	if !hitIDs(e, "kubectl delete --namespace prod pod web")["team.no-prod-delete"] {
		t.Error("detached value not matched")
	}
}
