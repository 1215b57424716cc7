package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var updateVocabulary = flag.Bool("update-vocabulary", false, "rewrite input.schema.json's enumerations and policies/tables/tables.json from the parser's constants")

// parserConstants returns the values of the parser package's exported
// string constants whose names start with prefix (TagWrites, ClassSecret).
func parserConstants(t *testing.T, prefix string) []string {
	t.Helper()
	files, err := filepath.Glob("../parser/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.HasPrefix(n.Name, prefix) || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						out = append(out, v)
					}
				}
			}
		}
	}
	sort.Strings(out)
	if len(out) < 8 {
		t.Fatalf("only %d %s constants in parser", len(out), prefix)
	}
	return out
}

// withEnums returns the schema with the enumerations of tags, path classes
// and segment kinds set: "enum" on every "class" string and on "kind", "x-enum" (the values of a
// set, which JSON Schema cannot type) on tags, write_classes and
// read_classes.
func withEnums(t *testing.T, schema []byte, tags, classes, kinds []string) []byte {
	var doc map[string]any
	if err := json.Unmarshal(schema, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for k, p := range props {
				pm, ok := p.(map[string]any)
				if !ok {
					continue
				}
				switch {
				case k == "class" && pm["type"] == "string":
					pm["enum"] = classes
				case k == "kind" && pm["type"] == "string":
					pm["enum"] = kinds
				case k == "tags" && pm["type"] == nil:
					pm["x-enum"] = tags
				case (k == "write_classes" || k == "read_classes") && pm["type"] == nil:
					pm["x-enum"] = classes
				}
			}
		}
		for _, x := range m {
			switch x := x.(type) {
			case map[string]any:
				walk(x)
			case []any:
				for _, y := range x {
					walk(y)
				}
			}
		}
	}
	walk(doc)
	return marshal(t, doc)
}

func marshal(t *testing.T, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestVocabularyCurrent: input.schema.json enumerates the tags and path
// classes the parser produces, and policies/tables/tables.json holds the
// sets of engine/vocabulary.go (go test ./engine -run TestVocabularyCurrent
// -update-vocabulary rewrites both).
func TestVocabularyCurrent(t *testing.T) {
	tags, classes, kinds := parserConstants(t, "Tag"), parserConstants(t, "Class"), parserConstants(t, "Kind")
	files := map[string][]byte{
		"input.schema.json":              withEnums(t, InputSchema, tags, classes, kinds),
		"../policies/tables/tables.json": marshal(t, vocabularySets()),
	}
	for path, want := range files {
		if *updateVocabulary {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale (%v): go test ./engine -run TestVocabularyCurrent -update-vocabulary", path, err)
		}
	}
}
