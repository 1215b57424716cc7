package engine

import (
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/rivumi/rivumi/rules"
)

var updateMeta = flag.Bool("update-meta", false, "rewrite engine/builtin_meta.json from the embedded packs' METADATA")

// TestBuiltinMetaInSync reads the embedded packs' METADATA from their
// annotations, checks it as New checks user packs', and compares it with
// builtin_meta.json, which New uses instead of parsing it at every start.
func TestBuiltinMetaInSync(t *testing.T) {
	files, _, _, err := load(&config{authoring: authoring{yaml: []rules.YAMLRule{{}}}})
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
	meta, problems := readMeta(nil, modules, files)
	if len(problems) > 0 {
		t.Fatalf("the embedded packs' METADATA has problems:\n%v", problems)
	}
	if len(meta) < 50 {
		t.Fatalf("only %d rules read", len(meta))
	}
	if *updateMeta {
		b, err := json.MarshalIndent(meta, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("builtin_meta.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := builtinMeta(); !reflect.DeepEqual(got, meta) {
		for id, m := range meta {
			if got[id] != m {
				t.Errorf("%s: annotations say %+v, builtin_meta.json %+v", id, m, got[id])
			}
		}
		for id := range got {
			if _, ok := meta[id]; !ok {
				t.Errorf("%s: in builtin_meta.json, not in the packs", id)
			}
		}
		t.Fatal("engine/builtin_meta.json is stale: go test ./engine -run TestBuiltinMetaInSync -update-meta")
	}
}
