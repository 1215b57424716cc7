package opabuiltin

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/rivumi/rivumi/engine"
)

// EntryModule is the Rego entrypoint, package rivumi.entry: query
// data.rivumi.entry.verdict with input {"command": …}.
//
//go:embed entry.rego
var EntryModule string

// LogModule is the decision log mask, package rivumi.log.
//
//go:embed log.rego
var LogModule string

// Entrypoint is the query path of the verdict.
const Entrypoint = "rivumi/entry/verdict"

// Bundle packs src (the compiled packs, user packs and data), the
// entrypoint and the log mask into an OPA bundle whose only root is
// "rivumi". The data gains data.rivumi.meta.rules (each rule's title,
// justification, layer and grantability, which the engine reads from
// METADATA at compile time) and data.rivumi.meta.policy (the policy hash,
// also the bundle's revision).
func Bundle(src *engine.Sources) (*bundle.Bundle, error) {
	files := map[string]string{"rivumi/entry.rego": EntryModule, "rivumi/log.rego": LogModule}
	for name, text := range src.Modules {
		files[bundlePath(name)] = text
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	b := &bundle.Bundle{Manifest: bundle.Manifest{
		Revision: src.Hash,
		Roots:    &[]string{"rivumi"},
		Metadata: map[string]any{"rivumi_policy": src.Hash},
	}}
	b.Manifest.SetRegoVersion(ast.RegoV1)
	for _, n := range names {
		m, err := ast.ParseModuleWithOpts(n, files[n], ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, err
		}
		b.Modules = append(b.Modules, bundle.ModuleFile{URL: "/" + n, Path: "/" + n, Raw: []byte(files[n]), Parsed: m})
	}
	data := copyMap(src.Data)
	rules := map[string]any{}
	for id, m := range src.Rules {
		rules[id] = map[string]any{"title": m.Title, "justification": m.Justification, "layer": string(m.Layer), "grantable": m.Grantable()}
	}
	riv, _ := data["rivumi"].(map[string]any)
	if riv == nil {
		riv = map[string]any{}
		data["rivumi"] = riv
	}
	meta, _ := riv["meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		riv["meta"] = meta
	}
	meta["rules"] = rules
	meta["policy"] = src.Hash
	b.Data = data
	return b, nil
}

// bundlePath places a module in the bundle: built-in packs under
// policies/, user packs under user/ (without the local directory), the
// generated aggregation under generated/.
func bundlePath(name string) string {
	switch {
	case strings.HasPrefix(name, "policies/"), strings.HasPrefix(name, "generated/"):
		return name
	}
	return "user/" + strings.TrimLeft(name, "/")
}

// Write writes b as a gzipped tarball.
func Write(w io.Writer, b *bundle.Bundle) error {
	return bundle.NewWriter(w).Write(*b)
}

// Check compiles b with the builtins and grades probe (a floor command),
// returning the decision: a bundle that cannot deny it is broken.
func Check(ctx context.Context, b *bundle.Bundle, probe string) (string, error) {
	opts := []func(*rego.Rego){
		rego.Query("data.rivumi.entry.verdict"),
		rego.Store(inmem.NewFromObject(b.Data)),
		rego.StrictBuiltinErrors(true),
		rego.Input(map[string]any{"command": probe}),
	}
	for _, m := range b.Modules {
		opts = append(opts, rego.ParsedModule(m.Parsed))
	}
	opts = append(opts, Functions()...)
	rs, err := rego.New(opts...).Eval(ctx)
	if err != nil {
		return "", err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return "", fmt.Errorf("no verdict")
	}
	v, _ := rs[0].Expressions[0].Value.(map[string]any)
	d, _ := v["decision"].(string)
	return d, nil
}

// copyMap copies the objects of a JSON document (leaves are shared).
func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			v = copyMap(sub)
		}
		out[k] = v
	}
	return out
}
