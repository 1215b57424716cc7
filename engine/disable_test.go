package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
)

func TestDisable(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Disable(engine.Switch{ID: "git.hooks", Reason: "our hooks are vetted", Where: "config.yaml:3"}))
	if err != nil {
		t.Fatal(err)
	}
	if hitIDs(e, "git commit -m msg")["git.hooks"] {
		t.Error("git.hooks still hits")
	}
	if !hitIDs(defaultEngine(t), "git commit -m msg")["git.hooks"] {
		t.Error("git.hooks does not hit without the switch")
	}
	if e.PolicyHash() == defaultEngine(t).PolicyHash() {
		t.Error("the switch does not change the policy hash")
	}
	// The floor stays whatever else is switched off.
	if v := e.EvaluateText(ctx, "rm -rf /"); v.Decision != engine.Deny {
		t.Errorf("rm -rf /: %v", v)
	}

	for _, tc := range []struct {
		sw   engine.Switch
		want string
	}{
		{engine.Switch{ID: "floor.rm-critical", Reason: "x", Where: "c.yaml:2"}, "c.yaml:2: disable floor.rm-critical: floor rules cannot be switched off"},
		{engine.Switch{ID: "git.hooks", Where: "c.yaml:4"}, "c.yaml:4: disable git.hooks: a reason is required"},
		{engine.Switch{ID: "git.nope", Reason: "x", Where: "c.yaml:5"}, "c.yaml:5: disable git.nope: no rule has this id"},
	} {
		_, err := engine.New(ctx, engine.Disable(tc.sw))
		if got := policyProblems(t, err); !strings.Contains(got, tc.want) {
			t.Errorf("%+v: problems %q, want %q", tc.sw, got, tc.want)
		}
	}
}

// The policy hash changes with a standing grant: the same hash never
// answers ask for a command and allow for it (issue 13).
func TestPolicyHashCoversStandingGrants(t *testing.T) {
	ctx := context.Background()
	plain := defaultEngine(t)
	g := engine.Grant{Prefix: []string{"npm", "install"}, Rules: []string{"packages.install"}}
	granted, err := engine.New(ctx, engine.StandingGrants("config.yaml:7", g))
	if err != nil {
		t.Fatal(err)
	}
	other, err := engine.New(ctx, engine.StandingGrants("config.yaml:7", engine.Grant{Prefix: []string{"npm", "ci"}, Rules: []string{"packages.install"}}))
	if err != nil {
		t.Fatal(err)
	}
	opts := []engine.EvalOption{engine.Workspace("/w"), engine.Cwd("/w")}
	a, b := plain.EvaluateText(ctx, "npm install lodash", opts...), granted.EvaluateText(ctx, "npm install lodash", opts...)
	if a.Decision != engine.Ask || b.Decision != engine.Allow {
		t.Fatalf("without the grant %v, with it %v", a.Decision, b.Decision)
	}
	if a.Policy == b.Policy || plain.PolicyHash() == granted.PolicyHash() {
		t.Errorf("the policy hash %s is the same with and without a standing grant", a.Policy)
	}
	if other.PolicyHash() == granted.PolicyHash() {
		t.Errorf("two different standing grants share the hash %s", other.PolicyHash())
	}
}

func TestStandingGrants(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.StandingGrants("config.yaml:7", engine.Grant{Prefix: []string{"npm", "install"}, Rules: []string{"packages.install"}}))
	if err != nil {
		t.Fatal(err)
	}
	opts := []engine.EvalOption{engine.Workspace("/w"), engine.Cwd("/w")}
	for cmd, want := range map[string]engine.Decision{
		"npm install lodash":         engine.Allow,
		"npm install":                engine.Allow,
		"/usr/bin/npm install":       engine.Allow,
		"npm ci":                     engine.Ask,
		"npm install $PKG":           engine.Allow, // only the prefix must be static
		"npm $CMD lodash":            engine.Ask,
		"sudo npm install lodash":    engine.Ask, // wrapper asks are never granted
		"npm install x && npm ci":    engine.Ask,
		"npm install x > /etc/hosts": engine.Ask,
	} {
		if v := e.EvaluateText(ctx, cmd, opts...); v.Decision != want {
			t.Errorf("%q: %v, want %s", cmd, v, want)
		}
	}
	for _, tc := range []struct {
		g    engine.Grant
		want string
	}{
		{engine.Grant{Prefix: []string{"npm"}, Rules: []string{"nope"}}, "g.yaml:1: grant npm: no rule has the id nope"},
		{engine.Grant{Prefix: []string{"git", "push"}, Rules: []string{"git.force-push"}}, "is not an ask a grant may cancel"},
		{engine.Grant{Prefix: nil, Rules: []string{"git.hooks"}}, "a grant needs a prefix"},
	} {
		_, err := engine.New(ctx, engine.StandingGrants("g.yaml:1", tc.g))
		if got := policyProblems(t, err); !strings.Contains(got, tc.want) {
			t.Errorf("%+v: problems %q, want %q", tc.g, got, tc.want)
		}
	}
}

func TestLoadProblems(t *testing.T) {
	_, err := engine.New(context.Background(), engine.LoadProblems("a.yaml:1: bad", "b.yaml:2: worse"))
	if got := policyProblems(t, err); got != "a.yaml:1: bad\nb.yaml:2: worse" {
		t.Errorf("problems %q", got)
	}
}
