package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/rules"
)

// validate checks v against the subset of JSON Schema input.schema.json
// uses (type, properties, additionalProperties, items, enum, and x-enum: the
// values a set's members take); an untyped schema takes anything.
func validate(s map[string]any, v any, at string) []string {
	var bad []string
	in := func(enum []any, x any) bool {
		for _, e := range enum {
			if e == x {
				return true
			}
		}
		return false
	}
	if enum, ok := s["enum"].([]any); ok && !in(enum, v) {
		bad = append(bad, fmt.Sprintf("%s: %v is not in the enumeration", at, v))
	}
	if enum, ok := s["x-enum"].([]any); ok {
		// A set: every member is one of the values.
		xs, _ := v.([]any)
		for _, x := range xs {
			if !in(enum, x) {
				bad = append(bad, fmt.Sprintf("%s: %v is not in the enumeration", at, x))
			}
		}
	}
	switch s["type"] {
	case "object":
		o, ok := v.(map[string]any)
		if !ok {
			return []string{at + ": not an object"}
		}
		props, _ := s["properties"].(map[string]any)
		for k, x := range o {
			if ps, ok := props[k].(map[string]any); ok {
				bad = append(bad, validate(ps, x, at+"."+k)...)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					bad = append(bad, at+"."+k+": not in the schema")
				}
			case map[string]any:
				bad = append(bad, validate(ap, x, at+"."+k)...)
			}
		}
		for k := range props {
			if _, ok := o[k]; !ok {
				bad = append(bad, at+"."+k+": missing")
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return []string{at + ": not an array"}
		}
		items, _ := s["items"].(map[string]any)
		for i, x := range a {
			bad = append(bad, validate(items, x, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case "string":
		if _, ok := v.(string); !ok {
			bad = append(bad, at+": not a string")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad = append(bad, at+": not a boolean")
		}
	case "integer":
		if f, ok := v.(json.Number); !ok || strings.ContainsAny(f.String(), ".eE") {
			bad = append(bad, at+": not an integer")
		}
	}
	return bad
}

// TestInputMatchesSchema: the input the engine builds for every segment of
// every testcase validates against input.schema.json, and every field the
// schema names is built (the contract holds both ways).
func TestInputMatchesSchema(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal(InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	cases, err := rules.LoadTestcases("../testcases")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	n := 0
	for _, tc := range cases {
		c, err := parser.Parse(tc.Command, parser.Workspace("/work/proj"), parser.Home("/home/dev"))
		if err != nil {
			continue
		}
		shape := shapeValue(&c.Shape)
		for i := range c.Segments {
			in := segmentInput(c, i, shape, []string{"fs.delete"})
			j, err := ast.JSON(in)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(j)
			dec := json.NewDecoder(strings.NewReader(string(b)))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			for _, p := range validate(schema, v, "input") {
				key := strings.SplitN(p, ":", 2)[0]
				if !seen[key] {
					seen[key] = true
					t.Errorf("%s: %q segment %d: %s", tc.Name(), tc.Command, i, p)
				}
			}
			n++
		}
	}
	t.Logf("%d segment inputs validated", n)
	bad := validate(schema, map[string]any{"segment": map[string]any{"write_class": []any{}}}, "input")
	if !strings.Contains(strings.Join(bad, "\n"), "input.segment.write_class: not in the schema") {
		t.Errorf("the validator accepts an unknown field: %v", bad)
	}
	bad = validate(schema, map[string]any{"segment": map[string]any{"tags": []any{"writes", "wirtes"}}}, "input")
	if !strings.Contains(strings.Join(bad, "\n"), "input.segment.tags: wirtes is not in the enumeration") {
		t.Errorf("the validator accepts an unknown tag: %v", bad)
	}
}

// TestUserPackTypoFails: a user rule reading a field the input does not
// have fails to load, with file:line:col (issue 12).
func TestUserPackTypoFails(t *testing.T) {
	src := "package rivumi.user\n\n# METADATA\n# title: Typo\n# custom:\n#   id: team.typo\n#   justification: x\n" +
		"ask contains {\"id\": \"team.typo\"} if {\n\t\"outside\" in input.segment.write_class\n}\n"
	_, err := New(context.Background(), UserModule("team.rego", src))
	if err == nil || !strings.Contains(err.Error(), "team.rego:9:") || !strings.Contains(err.Error(), "input.segment.write_class") {
		t.Fatalf("err = %v, want team.rego:9: undefined ref", err)
	}
	ok := strings.Replace(src, "write_class", "write_classes", 1)
	if _, err := New(context.Background(), UserModule("team.rego", ok)); err != nil {
		t.Fatal(err)
	}
}
