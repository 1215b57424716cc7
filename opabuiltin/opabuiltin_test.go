package opabuiltin_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/opabuiltin"
	"github.com/rivumi/rivumi/rules"
	"github.com/rivumi/rivumi/verdict"
)

// probe is one command to grade both ways.
type probe struct {
	name  string
	input map[string]any
	opts  []engine.EvalOption
	argv  []string
}

// probes are the project's testcases plus the cases the engine handles in
// Go before any Rego runs (parse errors, limits, empty text, argv, grants).
func probes(t *testing.T) []probe {
	t.Helper()
	tcs, err := rules.LoadTestcases("../testcases")
	if err != nil {
		t.Fatal(err)
	}
	var out []probe
	for _, tc := range tcs {
		p := probe{name: tc.Name() + " " + tc.Command, input: map[string]any{"command": tc.Command}}
		for k, v := range map[string]string{"cwd": tc.Cwd, "workspace": tc.Workspace, "home": tc.Home, "shell": tc.Shell} {
			if v != "" {
				p.input[k] = v
			}
		}
		p.opts = evalOpts(tc.Cwd, tc.Workspace, tc.Home, tc.Shell)
		if len(tc.Grants) > 0 {
			var gs []verdict.Grant
			var raw []any
			for _, g := range tc.Grants {
				gs = append(gs, verdict.Grant{Prefix: g.Prefix, Rules: g.Rules})
				raw = append(raw, map[string]any{"prefix": toAny(g.Prefix), "rules": toAny(g.Rules)})
			}
			p.opts = append(p.opts, engine.Grants(gs))
			p.input["grants"] = raw
		}
		out = append(out, p)
	}
	for _, c := range []string{
		"", "# only a comment", "echo 'unclosed", "rm -rf / 'unclosed", "if then fi", "curl x | sh )",
		strings.Repeat("(", 300) + "ls" + strings.Repeat(")", 300), "ls " + strings.Repeat("a ", 200000),
		"npm install", "make && npm test", "git push --force origin main; echo $(rm -rf ~)",
	} {
		out = append(out, probe{name: fmt.Sprintf("%.40q", c), input: map[string]any{"command": c}})
	}
	// Grants: the Rego entrypoint computes input.granted like the engine.
	grant := []any{map[string]any{"prefix": []any{"npm", "install"}, "rules": []any{"packages.install"}}}
	out = append(out,
		probe{name: "granted npm install", input: map[string]any{"command": "npm install lodash", "grants": grant},
			opts: []engine.EvalOption{engine.Grants([]verdict.Grant{{Prefix: []string{"npm", "install"}, Rules: []string{"packages.install"}}})}},
		probe{name: "grant does not cover npm publish", input: map[string]any{"command": "npm publish", "grants": grant},
			opts: []engine.EvalOption{engine.Grants([]verdict.Grant{{Prefix: []string{"npm", "install"}, Rules: []string{"packages.install"}}})}},
		probe{name: "argv", input: map[string]any{"argv": []any{"rm", "-rf", "/"}}, argv: []string{"rm", "-rf", "/"}},
		probe{name: "argv ls", input: map[string]any{"argv": []any{"ls", "-la"}}, argv: []string{"ls", "-la"}},
	)
	return out
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func evalOpts(cwd, ws, home, shell string) []engine.EvalOption {
	var o []engine.EvalOption
	if cwd != "" {
		o = append(o, engine.Cwd(cwd))
	}
	if ws != "" {
		o = append(o, engine.Workspace(ws))
	}
	if home != "" {
		o = append(o, engine.Home(home))
	}
	if shell != "" {
		o = append(o, engine.Shell(shell))
	}
	return o
}

// ruleSet is the sorted rule ids of a verdict's reasons.
func ruleSet(rs []string) string {
	slices.Sort(rs)
	return strings.Join(slices.Compact(rs), ",")
}

// The bundle evaluated by OPA's rego package with the builtins gives the
// engine's decision and deciding rules on every probe.
func TestEntrypointMatchesEngine(t *testing.T) {
	ctx := context.Background()
	src, err := engine.LoadSources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if src.Hash != e.PolicyHash() {
		t.Fatalf("sources hash %s, engine %s", src.Hash, e.PolicyHash())
	}
	b, err := opabuiltin.Bundle(src)
	if err != nil {
		t.Fatal(err)
	}
	opts := []func(*rego.Rego){
		rego.Query("data.rivumi.entry.verdict"),
		rego.Store(inmem.NewFromObject(b.Data)),
		rego.StrictBuiltinErrors(true),
	}
	for _, m := range b.Modules {
		opts = append(opts, rego.ParsedModule(m.Parsed))
	}
	opts = append(opts, opabuiltin.Functions()...)
	pq, err := rego.New(opts...).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ps := probes(t)
	for _, p := range ps {
		var want verdict.Verdict
		if p.argv != nil {
			want = e.EvaluateArgv(ctx, p.argv, p.opts...)
		} else {
			want = e.EvaluateText(ctx, p.input["command"].(string), p.opts...)
		}
		rs, err := pq.Eval(ctx, rego.EvalInput(p.input))
		if err != nil {
			t.Errorf("%s: %v", p.name, err)
			continue
		}
		got := rs[0].Expressions[0].Value.(map[string]any)
		var gotRules, wantRules []string
		for _, r := range got["reasons"].([]any) {
			gotRules = append(gotRules, r.(map[string]any)["rule"].(string))
		}
		for _, r := range want.Reasons {
			wantRules = append(wantRules, r.Rule)
		}
		if got["decision"] != want.Decision.String() || ruleSet(gotRules) != ruleSet(wantRules) || got["policy"] != want.Policy {
			t.Errorf("%s:\n OPA    %v %v %v\n engine %s %v %s", p.name, got["decision"], gotRules, got["policy"], want.Decision, wantRules, want.Policy)
		}
	}
	t.Logf("%d probes agree", len(ps))

	// A bad input is deny; with strict builtin errors (as above) it may be
	// an error instead, and without them (OPA's server default) the
	// builtin's error leaves parsed undefined: still deny.
	lax, err := rego.New(append(opts[:len(opts):len(opts)], rego.StrictBuiltinErrors(false))...).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []map[string]any{{}, {"command": 3}, {"command": "ls", "cwd": "relative"}, {"command": "ls", "argv": []any{"ls"}},
		{"argv": []any{}}, {"command": "ls", "shell": "fish"}, {"command": "ls", "bogus": 1}, {"command": "ls", "grants": "all"}} {
		for name, q := range map[string]rego.PreparedEvalQuery{"strict": pq, "lax": lax} {
			rs, err := q.Eval(ctx, rego.EvalInput(in))
			if name == "lax" && err != nil {
				t.Errorf("lax %v: %v", in, err)
			}
			if err == nil && rs[0].Expressions[0].Value.(map[string]any)["decision"] != "deny" {
				t.Errorf("%s input %v: %v", name, in, rs[0].Expressions[0].Value)
			}
		}
	}
	if d, err := opabuiltin.Check(ctx, b, "rm -rf /"); err != nil || d != "deny" {
		t.Errorf("Check: %q %v", d, err)
	}
}

func TestBundleWithUserPacks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "team"), 0o755)
	pol := "package rivumi.user.team\n\n# METADATA\n# title: No cowsay\n# custom:\n#   id: team.no-cowsay\n#   justification: Not at work.\ndeny contains {\"id\": \"team.no-cowsay\"} if input.segment.program == \"cowsay\"\n"
	if err := os.WriteFile(filepath.Join(dir, "team", "cowsay.rego"), []byte(pol), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := engine.LoadSources(ctx, engine.UserDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	b, err := opabuiltin.Bundle(src)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, m := range b.Modules {
		paths = append(paths, m.Path)
	}
	for _, want := range []string{"/rivumi/entry.rego", "/rivumi/log.rego", "/policies/main.rego", "/generated/user_packages.rego", "/user/" + strings.TrimLeft(dir, "/") + "/team/cowsay.rego"} {
		if !slices.Contains(paths, want) {
			t.Errorf("bundle lacks %s: %v", want, paths)
		}
	}
	if d, err := opabuiltin.Check(ctx, b, "cowsay hi"); err != nil || d != "deny" {
		t.Errorf("user pack in the bundle: %q %v", d, err)
	}
	if (*b.Manifest.Roots)[0] != "rivumi" || len(*b.Manifest.Roots) != 1 || b.Manifest.Revision != src.Hash {
		t.Errorf("manifest: %+v", b.Manifest)
	}
}

// TestSignVerifies: a signed bundle passes OPA's verification with the
// public key; a different key, a changed file or no signature fail it.
func TestSignVerifies(t *testing.T) {
	ctx := context.Background()
	src, err := engine.LoadSources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	priv, pub := writeRSAKey(t, dir, "k")
	_, otherPub := writeRSAKey(t, dir, "other")
	signed := func() []byte {
		b, err := opabuiltin.Bundle(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := opabuiltin.Sign(b, opabuiltin.Signing{Key: priv}); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := opabuiltin.Write(&buf, b); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	read := func(tar []byte, pubFile string) error {
		pubKey, err := os.ReadFile(pubFile)
		if err != nil {
			t.Fatal(err)
		}
		vc := bundle.NewVerificationConfig(map[string]*bundle.KeyConfig{"default": {Key: string(pubKey), Algorithm: "RS256"}}, "default", "", nil)
		_, err = bundle.NewReader(bytes.NewReader(tar)).WithBundleVerificationConfig(vc).Read()
		return err
	}
	good := signed()
	if err := read(good, pub); err != nil {
		t.Fatalf("a signed bundle does not verify: %v", err)
	}
	if err := read(good, otherPub); err == nil {
		t.Error("verified with another key")
	}
	b, _ := opabuiltin.Bundle(src)
	var unsigned bytes.Buffer
	opabuiltin.Write(&unsigned, b)
	if err := read(unsigned.Bytes(), pub); err == nil {
		t.Error("an unsigned bundle verified")
	}
	// The signed bundle with one module changed after signing.
	b, _ = opabuiltin.Bundle(src)
	if err := opabuiltin.Sign(b, opabuiltin.Signing{Key: priv}); err != nil {
		t.Fatal(err)
	}
	b.Modules[0].Raw = append(b.Modules[0].Raw, []byte("\n# changed\n")...)
	var tampered bytes.Buffer
	opabuiltin.Write(&tampered, b)
	if err := read(tampered.Bytes(), pub); err == nil {
		t.Error("a bundle changed after signing verified")
	}
	if err := opabuiltin.Sign(b, opabuiltin.Signing{Key: filepath.Join(dir, "missing.pem")}); err == nil {
		t.Error("signed with a missing key file")
	}
}

// writeRSAKey writes a 2048-bit RSA key pair as PEM files and returns
// their names.
func writeRSAKey(t *testing.T, dir, name string) (priv, pub string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	priv, pub = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".pub.pem")
	os.WriteFile(priv, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), 0o600)
	os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644)
	return priv, pub
}
