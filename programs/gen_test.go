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

// goForm renders entries as the Go source of zz_generated.go: the entries
// as one static table (the linker lays it out: no code runs to build it),
// the strings that fields point to in another, and the maps, which Go
// cannot lay out statically, in a function that load calls once.
func goForm(t *testing.T, ps []*programs.Program) []byte {
	g := &goGen{t: t, strIndex: map[string]int{}}
	var entries bytes.Buffer
	for i, p := range ps {
		g.entry = i
		fmt.Fprintf(&entries, "\t%s,\n", g.literal(reflect.ValueOf(*p), false, true))
	}
	var b bytes.Buffer
	b.WriteString("// Code generated from programs.yaml by `go test ./programs -update-programs`. DO NOT EDIT.\n\npackage programs\n\n")
	b.WriteString("// generated are the registry's entries, laid out by the linker: building\n// them costs no process anything. Their maps are set by generatedMaps.\nvar generated = []*Program{\n")
	b.Write(entries.Bytes())
	b.WriteString("}\n\n// generatedStrings are what the entries' string pointers point to.\nvar generatedStrings = [...]string{\n")
	for _, s := range g.strs {
		fmt.Fprintf(&b, "\t%q,\n", s)
	}
	b.WriteString("}\n\n// generatedSubs are what the entries' subcommand maps point to.\nvar generatedSubs = [...]Sub{\n")
	for _, s := range g.subs {
		fmt.Fprintf(&b, "\t%s,\n", s)
	}
	b.WriteString("}\n\n// generatedMaps sets the entries' maps (load calls it once).\nfunc generatedMaps() {\n")
	for _, st := range g.maps {
		b.WriteString("\t" + st + "\n")
	}
	b.WriteString("}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// goGen holds what goForm collects while it renders the entries.
type goGen struct {
	t        *testing.T
	entry    int            // the entry being rendered
	strs     []string       // generatedStrings
	strIndex map[string]int // its index by value
	maps     []string       // the statements of generatedMaps
	subs     []string       // generatedSubs
}

// literal renders v as a Go composite literal; typed says whether the
// context needs the type written out (elided in slices and maps), static
// whether it is part of the static table (where a map is left out, for
// generatedMaps to set, and a string pointer points into
// generatedStrings).
func (g *goGen) literal(v reflect.Value, typed, static bool) string {
	t := g.t
	switch v.Kind() {
	case reflect.String:
		return fmt.Sprintf("%q", v.String())
	case reflect.Bool:
		return fmt.Sprint(v.Bool())
	case reflect.Int:
		return fmt.Sprint(v.Int())
	case reflect.Pointer:
		if v.Elem().Kind() == reflect.Struct && static {
			return g.literal(v.Elem(), false, static)
		}
		if v.Elem().Kind() == reflect.Struct {
			// A map's value (a subcommand): into the static generatedSubs.
			if v.Elem().Type() != reflect.TypeOf(programs.Sub{}) {
				t.Fatalf("literal: %s in a map", v.Type())
			}
			g.subs = append(g.subs, g.literal(v.Elem(), false, true))
			return fmt.Sprintf("&generatedSubs[%d]", len(g.subs)-1)
		}
		if v.Elem().Kind() != reflect.String {
			t.Fatalf("literal: %s", v.Type())
		}
		s := v.Elem().String()
		i, ok := g.strIndex[s]
		if !ok {
			i = len(g.strs)
			g.strIndex[s] = i
			g.strs = append(g.strs, s)
		}
		return fmt.Sprintf("&generatedStrings[%d]", i)
	case reflect.Slice:
		var items []string
		for i := 0; i < v.Len(); i++ {
			items = append(items, g.literal(v.Index(i), false, static))
		}
		return typeName(v.Type(), typed) + "{" + strings.Join(items, ", ") + "}"
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		var items []string
		for _, k := range keys {
			items = append(items, fmt.Sprintf("%q: %s", k.String(), g.literal(v.MapIndex(k), false, false)))
		}
		return typeName(v.Type(), typed) + "{" + strings.Join(items, ", ") + "}"
	case reflect.Struct:
		var fields []string
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if f.IsZero() && !(f.Kind() == reflect.Slice && !f.IsNil()) {
				continue
			}
			name := v.Type().Field(i).Name
			if static && f.Kind() == reflect.Map {
				g.maps = append(g.maps, fmt.Sprintf("generated[%d].%s = %s", g.entry, name, g.literal(f, true, false)))
				continue
			}
			fields = append(fields, name+": "+g.literal(f, true, static))
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
