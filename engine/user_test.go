package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
)

// TestUserModulesCannotWeaken: user packs that could lower the built-in
// layers are refused at load, with file:line:col.
func TestUserModulesCannotWeaken(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"package rivumi.rules", "package rivumi.rules\n\nallow contains {\"id\": \"x\"} if true\n", "x.rego:1:1: package data.rivumi.rules is not allowed"},
		{"package rivumi", "package rivumi\n\nx := 1\n", "package data.rivumi is not allowed"},
		{"package rivumi.main", "package rivumi.main\n\ndecision := \"allow\"\n", "package data.rivumi.main is not allowed"},
		{"package system", "package system\n\nmain := 1\n", "package data.system is reserved"},
		{"outside rivumi", "package team\n\nallow contains {\"id\": \"x\"} if true\n", "package data.team is not allowed"},
		{"head into rules", "package rivumi.user\n\nallow.x contains {\"id\": \"x\"} if true\n", "layer sets must be plain partial sets"},
		{"default rule", "package rivumi.user\n\ndefault floor := set()\n", "default rule floor is not allowed"},
		{"complete rule", "package rivumi.user\n\ndeny := {{\"id\": \"x\"}}\n", "complete rule deny is not allowed"},
		{"function", "package rivumi.user\n\nask(x) := x\n", "function ask is not allowed"},
		{"shadowed builtin", "package rivumi.user\n\ncount(x) := 0\n", "shadows a built-in function"},
		{"syntax error", "package rivumi.user\n\nallow contains if {\n", "x.rego:3:"},
		// New skips the check-only compiler stages for the embedded packs alone; user packs get them.
		{"type error", "package rivumi.user\n\n# METADATA\n# title: T\n# custom:\n#   id: team.t\n#   justification: j\ndeny contains {\"id\": \"team.t\"} if count(1) > 0\n", "x.rego:8:35: count: invalid argument(s)"},
		{"recursion", "package rivumi.user\n\na if b\n\nb if a\n", "rule data.rivumi.user.a is recursive"},
		{"undefined function", "package rivumi.user\n\nx if nope(1)\n", "undefined function nope"},
		{"unused import (strict)", "package rivumi.user\n\nimport data.foo\n\nx := 1\n", "import data.foo unused"},
		{"built-in id", "package rivumi.user\n\nask contains {\"id\": \"fs.delete\"} if input.segment.program == \"x\"\n", "hit id \"fs.delete\" is a built-in rule's"},
		{"missing metadata", "package rivumi.user\n\ndeny contains {\"id\": \"team.x\"} if input.segment.program == \"x\"\n", "hit id \"team.x\" has no METADATA"},
	}
	for _, tt := range tests {
		_, err := engine.New(context.Background(), engine.UserModule("x.rego", tt.src))
		var pe *engine.PolicyError
		if !errors.As(err, &pe) {
			t.Errorf("%s: err %v, want a PolicyError", tt.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v\nwant it to mention %q", tt.name, err, tt.want)
		}
	}
}

// TestUserRulesAddButNeverLower: a valid user pack adds deny and allow
// rules; its allow never lowers a floor or built-in deny.
func TestUserRulesAddButNeverLower(t *testing.T) {
	src := `package rivumi.user.team

# METADATA
# title: No terraform apply
# custom:
#   id: team.no-apply
#   justification: Apply through the pipeline, not from an agent.
deny contains {"id": "team.no-apply"} if {
	input.segment.program == "terraform"
	input.segment.subcommand == "apply"
}

# METADATA
# title: Everything is fine
# custom:
#   id: team.allow-all
#   justification: A careless rule that tries to allow everything.
allow contains {"id": "team.allow-all"} if true
`
	e, err := engine.New(context.Background(), engine.UserModule("team.rego", src))
	if err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]engine.Decision{
		"terraform apply":          engine.Deny,
		"rm -rf /":                 engine.Deny,
		"git push --force":         engine.Deny,
		"npm install x":            engine.Ask, // an ask is not lowered by an allow
		"frobnicate":               engine.Allow,
		"echo x > .git/hooks/post": engine.Deny,
	} {
		if v := e.EvaluateText(context.Background(), cmd); v.Decision != want {
			t.Errorf("%q: %s, want %s (%v)", cmd, v.Decision, want, v.Reasons)
		}
	}
}

// TestGrantableOnlyWhenStated: an ask rule is grantable only when its
// METADATA says custom.grantable: true, and only ask rules of segment scope
// may say it; anything else fails to load with file:line (issue 12).
func TestGrantableOnlyWhenStated(t *testing.T) {
	rule := func(layer, custom string) string {
		return "package rivumi.user\n\n# METADATA\n# title: Team rule\n# custom:\n#   id: team.x\n#   justification: Because.\n" +
			custom + layer + ` contains {"id": "team.x"} if input.segment.program == "acmectl"` + "\n"
	}
	e, err := engine.New(context.Background(), engine.UserModule("team.rego", rule("ask", "")))
	if err != nil {
		t.Fatal(err)
	}
	if e.Rules()["team.x"].Grantable() {
		t.Error("an ask rule without custom.grantable is grantable")
	}
	v := e.EvaluateText(context.Background(), "acmectl go", engine.Grants([]engine.Grant{{Prefix: []string{"acmectl"}, Rules: []string{"team.x"}}}))
	if v.Decision != engine.Ask {
		t.Errorf("a grant cancelled a rule that is not grantable: %v", v)
	}
	e, err = engine.New(context.Background(), engine.UserModule("team.rego", rule("ask", "#   grantable: true\n")))
	if err != nil {
		t.Fatal(err)
	}
	if !e.Rules()["team.x"].Grantable() {
		t.Error("custom.grantable: true is not grantable")
	}
	for _, tt := range []struct{ layer, custom, want string }{
		{"deny", "#   grantable: true\n", "team.rego:9: rule team.x: custom.grantable: only ask rules"},
		{"ask", "#   scope: shape\n#   grantable: true\n", "custom.grantable with scope shape"},
		{"ask", "#   grantable: yes please\n", "custom.grantable must be true or false"},
	} {
		_, err := engine.New(context.Background(), engine.UserModule("team.rego", rule(tt.layer, tt.custom)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %q: err %v, want %q", tt.layer, tt.custom, err, tt.want)
		}
	}
}
