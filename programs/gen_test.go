package programs_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/programs"
)

var update = flag.Bool("update-programs", false, "rewrite zz_generated.go and ../policies/tables/programs.json from programs.yaml")

// goForm renders entries as the Go source of zz_generated.go.
func goForm(t *testing.T, ps []*programs.Program) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated from programs.yaml by `go test ./programs -update-programs`. DO NOT EDIT.\n\npackage programs\n\nvar generated = []*Program{\n")
	for _, p := range ps {
		v := reflect.ValueOf(*p)
		var fields []string
		for i := 0; i < v.NumField(); i++ {
			f, name := v.Field(i), v.Type().Field(i).Name
			if f.IsZero() {
				continue
			}
			switch x := f.Interface().(type) {
			case string:
				fields = append(fields, fmt.Sprintf("%s: %q", name, x))
			case bool:
				fields = append(fields, name+": true")
			case []string:
				fields = append(fields, fmt.Sprintf("%s: %#v", name, x))
			default:
				t.Fatalf("field %s: %T", name, x)
			}
		}
		fmt.Fprintf(&b, "\t{%s},\n", strings.Join(fields, ", "))
	}
	b.WriteString("}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return out
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
