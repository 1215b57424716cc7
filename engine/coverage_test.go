package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
)

const userPack = `package rivumi.user

# METADATA
# title: No terraform destroy
# custom:
#   id: team.tf-destroy
#   justification: Destroying infrastructure goes through the release pipeline.
deny contains {"id": "team.tf-destroy"} if {
	input.segment.program == "terraform"
	input.segment.subcommand == "destroy"
}

# METADATA
# title: No helm uninstall
# custom:
#   id: team.helm-uninstall
#   justification: Uninstalling releases goes through the release pipeline.
deny contains {"id": "team.helm-uninstall"} if {
	input.segment.program == "helm"
	input.segment.subcommand == "uninstall"
}
`

const userTests = `package rivumi.user_test

import data.rivumi.user

test_destroy_denied if {
	{"id": "team.tf-destroy"} in user.deny with input as {"segment": {"program": "terraform", "subcommand": "destroy"}}
}

test_plan_denied if {
	{"id": "team.tf-destroy"} in user.deny with input as {"segment": {"program": "terraform", "subcommand": "plan"}}
}
`

func TestRunRegoTests(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.UserModule("team/pack.rego", userPack))
	if err != nil {
		t.Fatal(err)
	}
	cov, err := e.NewCoverage()
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.RunRegoTests(ctx, engine.RegoTestOptions{
		Sources:  []engine.Source{{Name: "team/pack_test.rego", Text: userTests}},
		Coverage: cov,
	})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]engine.RegoTestResult{}
	builtin := 0
	for _, r := range res {
		byName[r.Name] = r
		if strings.HasPrefix(r.File, "policies/") {
			builtin++ // whether they pass is TestProjectPacksFullCoverage's (internal/cli) business
		}
	}
	if r := byName["data.rivumi.user_test.test_destroy_denied"]; !r.Passed || r.File != "team/pack_test.rego" || r.Line != 5 {
		t.Errorf("destroy: %+v", r)
	}
	if r := byName["data.rivumi.user_test.test_plan_denied"]; r.Passed || !strings.Contains(r.Failure, "team/pack_test.rego:10: failed at") {
		t.Errorf("plan: %+v", r)
	}
	if builtin == 0 {
		t.Error("the built-in Rego tests did not run")
	}

	// Coverage: the test reached team.tf-destroy; a testcase reaches git.force-push.
	cov.Explain(ctx, "git push --force", engine.Workspace("/w"))
	rep := cov.Report()
	rules := map[string]engine.RuleCoverage{}
	for _, r := range rep.Rules {
		rules[r.ID] = r
	}
	if r := rules["team.tf-destroy"]; !r.ByTests || r.Hits != 0 || !r.Hit() {
		t.Errorf("tf-destroy: %+v", r)
	}
	if r := rules["team.helm-uninstall"]; r.Hit() {
		t.Errorf("helm-uninstall: %+v", r)
	}
	if r := rules["git.force-push"]; r.Hits != 1 {
		t.Errorf("force-push: %+v", r)
	}
	if rep.RulesHit == 0 || rep.RulesHit == len(rep.Rules) || rep.RulePercent <= 0 || rep.RulePercent >= 100 {
		t.Errorf("rules hit %d/%d (%.1f%%)", rep.RulesHit, len(rep.Rules), rep.RulePercent)
	}
	var pack *engine.FileCoverage
	for i, f := range rep.Files {
		if strings.HasSuffix(f.File, "_test.rego") || strings.HasPrefix(f.File, "generated/") {
			t.Errorf("file %s in the line report", f.File)
		}
		if f.File == "team/pack.rego" {
			pack = &rep.Files[i]
		}
	}
	if pack == nil || pack.Covered == 0 || pack.NotCovered == 0 || len(pack.Missed) == 0 {
		t.Fatalf("team/pack.rego: %+v", pack)
	}
	// helm's body (lines 19-20) was never evaluated.
	missed := false
	for _, r := range pack.Missed {
		if r.Start <= 20 && r.End >= 19 {
			missed = true
		}
	}
	if !missed {
		t.Errorf("helm body not reported missed: %v", pack.Missed)
	}
}

func TestRunRegoTestsFilterAndErrors(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.UserModule("team/pack.rego", userPack))
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.RunRegoTests(ctx, engine.RegoTestOptions{
		Sources: []engine.Source{{Name: "team/pack_test.rego", Text: userTests}},
		Run:     "test_destroy",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Name != "data.rivumi.user_test.test_destroy_denied" {
		t.Errorf("filtered: %+v", res)
	}
	_, err = e.RunRegoTests(ctx, engine.RegoTestOptions{Sources: []engine.Source{{Name: "bad_test.rego", Text: "package x_test\n\ntest_x if {\n\t1 ==\n}\n"}}})
	if got := policyProblems(t, err); !strings.Contains(got, "bad_test.rego:5:1: unexpected } token") {
		t.Errorf("problems: %s", got)
	}
}

// TestRunRegoTestsSkipBuiltin: with SkipBuiltin only the given tests run.
func TestRunRegoTestsSkipBuiltin(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.UserModule("team/pack.rego", userPack))
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.RunRegoTests(ctx, engine.RegoTestOptions{
		Sources:     []engine.Source{{Name: "team/pack_test.rego", Text: userTests}},
		SkipBuiltin: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d tests ran, want the team's 2: %+v", len(res), res)
	}
	for _, r := range res {
		if r.File != "team/pack_test.rego" {
			t.Errorf("ran %s from %s", r.Name, r.File)
		}
	}
}
