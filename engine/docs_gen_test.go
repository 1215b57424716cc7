package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the input reference in docs/policy-authoring.md from input.schema.json")

const (
	docsPath  = "../docs/policy-authoring.md"
	refBegin  = "<!-- input reference: generated from engine/input.schema.json by `go test ./engine -run TestInputReferenceCurrent -update-docs`; do not edit -->"
	refEnd    = "<!-- end of the input reference -->"
	codeQuote = "`"
)

// inputReference renders input.schema.json as a Markdown table of every
// field (path, type, meaning), followed by the enumerations.
func inputReference(t *testing.T, schema []byte) string {
	var doc map[string]any
	if err := json.Unmarshal(schema, &doc); err != nil {
		t.Fatal(err)
	}
	var rows []string
	enums := map[string][]string{}
	strs := func(v any) []string {
		var out []string
		for _, x := range v.([]any) {
			out = append(out, x.(string))
		}
		return out
	}
	var walk func(s map[string]any, path string)
	walk = func(s map[string]any, path string) {
		typ, _ := s["type"].(string)
		switch {
		case s["x-enum"] != nil || typ == "" && strings.Contains(fmt.Sprint(s["description"]), "(a set)"):
			typ = "set"
		case typ == "array":
			if it, ok := s["items"].(map[string]any); ok {
				if ityp, _ := it["type"].(string); ityp != "object" {
					typ = "array of " + ityp
				}
			}
		}
		desc, _ := s["description"].(string)
		if e, ok := s["enum"]; ok {
			desc += " (one of the " + enumName(path) + ")"
			enums[enumName(path)] = strs(e)
		}
		if e, ok := s["x-enum"]; ok {
			desc += " (" + enumName(path) + ")"
			enums[enumName(path)] = strs(e)
		}
		if path != "input" {
			rows = append(rows, fmt.Sprintf("| %s%s%s | %s | %s |", codeQuote, path, codeQuote, typ, strings.ReplaceAll(desc, "|", "\\|")))
		}
		if props, ok := s["properties"].(map[string]any); ok {
			keys := make([]string, 0, len(props))
			for k := range props {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(props[k].(map[string]any), path+"."+k)
			}
		}
		if it, ok := s["items"].(map[string]any); ok && it["type"] == "object" {
			walk1 := it
			if props, ok := walk1["properties"].(map[string]any); ok {
				keys := make([]string, 0, len(props))
				for k := range props {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					walk(props[k].(map[string]any), path+"[]."+k)
				}
			}
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			walk(ap, path+".NAME")
		}
	}
	walk(doc, "input")
	var b strings.Builder
	b.WriteString(refBegin + "\n\n| field | type | meaning |\n|---|---|---|\n")
	b.WriteString(strings.Join(rows, "\n") + "\n")
	names := make([]string, 0, len(enums))
	for n := range enums {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		vals := make([]string, len(enums[n]))
		for i, v := range enums[n] {
			vals[i] = codeQuote + v + codeQuote
		}
		fmt.Fprintf(&b, "\nThe %s: %s.\n", n, strings.Join(vals, ", "))
	}
	b.WriteString("\n" + refEnd)
	return b.String()
}

// enumName names the enumeration a field takes its values from.
func enumName(path string) string {
	switch {
	case strings.HasSuffix(path, ".tags"):
		return "tags"
	case strings.HasSuffix(path, ".kind"):
		return "segment kinds"
	default:
		return "path classes"
	}
}

// TestInputReferenceCurrent: the input reference in
// docs/policy-authoring.md is input.schema.json's, field by field.
func TestInputReferenceCurrent(t *testing.T) {
	b, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(b, []byte(refBegin)), bytes.Index(b, []byte(refEnd))
	if i < 0 || j < i {
		t.Fatalf("%s: no input reference between %q and %q", docsPath, refBegin, refEnd)
	}
	want := inputReference(t, InputSchema)
	got := string(b[i : j+len(refEnd)])
	if got == want {
		return
	}
	if !*updateDocs {
		t.Fatalf("%s: the input reference is stale: go test ./engine -run TestInputReferenceCurrent -update-docs", docsPath)
	}
	out := append(append(append([]byte{}, b[:i]...), want...), b[j+len(refEnd):]...)
	if err := os.WriteFile(docsPath, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
