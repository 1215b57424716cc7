package programs_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/programs"
)

var update = flag.Bool("update-programs", false, "rewrite zz_generated.go and ../policies/tables/programs.json from programs.yaml")

// goForm renders entries as the Go source of zz_generated.go.
func goForm(t *testing.T, ps []*programs.Program) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated from programs.yaml by `go test ./programs -update-programs`. DO NOT EDIT.\n\npackage programs\n\n// generated returns the registry's entries. It is a function, not a\n// package variable, so that building them costs only the processes that\n// look a program up, not every start.\nfunc generated() []*Program {\n\treturn []*Program{\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "\t%s,\n", literal(t, reflect.ValueOf(*p), false))
	}
	b.WriteString("}\n}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// literal renders v as a Go composite literal; typed says whether the
// context needs the type written out (elided in slices and maps).
func literal(t *testing.T, v reflect.Value, typed bool) string {
	switch v.Kind() {
	case reflect.String:
		return fmt.Sprintf("%q", v.String())
	case reflect.Bool:
		return fmt.Sprint(v.Bool())
	case reflect.Int:
		return fmt.Sprint(v.Int())
	case reflect.Pointer:
		if v.Elem().Kind() == reflect.Struct {
			return literal(t, v.Elem(), false)
		}
		return "ptr(" + literal(t, v.Elem(), true) + ")"
	case reflect.Slice:
		var items []string
		for i := 0; i < v.Len(); i++ {
			items = append(items, literal(t, v.Index(i), false))
		}
		return typeName(v.Type(), typed) + "{" + strings.Join(items, ", ") + "}"
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		var items []string
		for _, k := range keys {
			items = append(items, fmt.Sprintf("%q: %s", k.String(), literal(t, v.MapIndex(k), false)))
		}
		return typeName(v.Type(), typed) + "{" + strings.Join(items, ", ") + "}"
	case reflect.Struct:
		var fields []string
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if f.IsZero() && !(f.Kind() == reflect.Slice && !f.IsNil()) {
				continue
			}
			fields = append(fields, v.Type().Field(i).Name+": "+literal(t, f, true))
		}
		return "{" + strings.Join(fields, ", ") + "}"
	}
	t.Fatalf("literal: %s", v.Type())
	return ""
}

// typeName is t as the generated file spells it ("" when it may be elided).
func typeName(t reflect.Type, typed bool) string {
	if !typed {
		return ""
	}
	return strings.ReplaceAll(t.String(), "programs.", "")
}

// TestGeneratedCurrent: the Go form the binary uses and the Rego data are
// what programs.yaml says.
func TestGeneratedCurrent(t *testing.T) {
	r, err := programs.Parse(programs.Source())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"zz_generated.go": goForm(t, r.Entries()), "../policies/tables/programs.json": programs.RegoData(r)}
	for path, want := range files {
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale (%v): go test ./programs -update-programs", path, err)
		}
	}
	if !*update && !reflect.DeepEqual(r.Entries(), programs.All()) {
		t.Error("zz_generated.go differs from programs.yaml")
	}
}
