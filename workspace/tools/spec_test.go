package tools_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/workspace/tools"
)

// Every tool in Specs is dispatched by Call, and its argument struct is
// plain enough for a JSON schema: exported fields with json tags, of
// string, bool or []string type. (rivumi mcp derives its schemas from
// these.)
func TestSpecsDispatchedAndSchemaable(t *testing.T) {
	f := newFixture(t)
	seen := map[string]bool{}
	for _, s := range tools.Specs() {
		if seen[s.Name] {
			t.Errorf("%s listed twice", s.Name)
		}
		seen[s.Name] = true
		res, err := f.tools.Call(context.Background(), s.Name, json.RawMessage(`{}`))
		if err != nil || strings.Contains(res.Error, "unknown tool") {
			t.Errorf("Call(%s, {}) = %+v, %v", s.Name, res, err)
		}
		at := reflect.TypeOf(s.Args)
		if at.Kind() != reflect.Struct {
			t.Errorf("%s: Args is %v, not a struct", s.Name, at)
			continue
		}
		for i := range at.NumField() {
			fl := at.Field(i)
			tag := fl.Tag.Get("json")
			ok := fl.Type.Kind() == reflect.String || fl.Type.Kind() == reflect.Bool ||
				(fl.Type.Kind() == reflect.Slice && fl.Type.Elem().Kind() == reflect.String)
			if !fl.IsExported() || tag == "" || tag == "-" || !ok {
				t.Errorf("%s: field %s (%v, json %q) is not schema-able", s.Name, fl.Name, fl.Type, tag)
			}
			if strings.Contains(strings.ToLower(tag), "timeout") {
				t.Errorf("%s: argument %s sets a timeout; the harness owns it", s.Name, tag)
			}
		}
		if _, err := json.Marshal(s.Output); err != nil {
			t.Errorf("%s: output does not encode: %v", s.Name, err)
		}
	}
	if len(seen) != 8 {
		t.Errorf("%d tools, want 8", len(seen))
	}
}
