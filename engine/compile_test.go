package engine

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/rivumi/rivumi/rules"
)

// TestEmbeddedPassesEveryCheck compiles the embedded packs (every module,
// the YAML rules' one included) with all of the compiler's stages, strict:
// New skips the check-only stages for them (checkOnlyStages), so this test
// is where those checks run.
func TestEmbeddedPassesEveryCheck(t *testing.T) {
	files, modules := parseEmbedded(t)
	for _, f := range files {
		if f.user {
			t.Fatalf("%s: a user module among the embedded ones", f.name)
		}
	}
	if _, ok := modules["policies/"+yamlModule]; !ok || len(modules) < 10 {
		t.Fatalf("loaded %d modules, want every embedded one including %s", len(modules), yamlModule)
	}
	c := ast.NewCompiler().WithStrict(true).WithCapabilities(capabilities()).WithEnablePrintStatements(false)
	if c.Compile(modules); c.Failed() {
		t.Fatalf("the embedded packs fail a check New skips: %v", c.Errors)
	}
}

// parseEmbedded loads and parses every embedded module (the YAML rules'
// one included), with their METADATA.
func parseEmbedded(t *testing.T) ([]file, map[string]*ast.Module) {
	t.Helper()
	files, _, err := load(&config{authoring: authoring{yaml: []rules.YAMLRule{{}}}})
	if err != nil {
		t.Fatal(err)
	}
	modules := map[string]*ast.Module{}
	for _, f := range files {
		m, err := ast.ParseModuleWithOpts(f.name, f.text, ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1})
		if err != nil {
			t.Fatal(err)
		}
		modules[f.name] = m
	}
	return files, modules
}

// TestPolicyHashCoversEverything: the hash changes with a user file's text,
// and only then.
func TestPolicyHashCoversEverything(t *testing.T) {
	hash := func(opts ...Option) string {
		e, err := New(context.Background(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		return e.PolicyHash()
	}
	base := hash()
	a := hash(UserModule("u.rego", "package rivumi.user\n\nx := 1\n"))
	if a == base || a != hash(UserModule("u.rego", "package rivumi.user\n\nx := 1\n")) {
		t.Errorf("a user file: hash %s, without it %s; want different and stable", a, base)
	}
	if b := hash(UserModule("u.rego", "package rivumi.user\n\nx := 2\n")); b == a {
		t.Error("a changed user file kept the hash")
	}
	if base != hash() {
		t.Error("the embedded policy's hash is not stable")
	}
}
