package policies_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/rivumi/rivumi/policies"
)

// TestNoSlowIndexForms keeps out of the packs an expression shape that OPA's
// rule index handles slowly: a data lookup keyed by input, compared with a
// constant in the same expression (`data.t[input.x] == true`). It cost ~6 µs
// per segment, a seventh of a verdict; binding the lookup first
// (`v := data.t[input.x]; v == true`) costs nothing extra.
func TestNoSlowIndexForms(t *testing.T) {
	checked := 0
	err := fs.WalkDir(policies.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") || strings.HasSuffix(p, "_test.rego") {
			return err
		}
		src, err := fs.ReadFile(policies.FS, p)
		if err != nil {
			return err
		}
		m, err := ast.ParseModuleWithOpts(p, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return err
		}
		ast.WalkExprs(m, func(e *ast.Expr) bool {
			checked++
			terms, ok := e.Terms.([]*ast.Term)
			if !ok || len(terms) != 3 || !(ast.Equal.Ref().Equal(e.Operator()) || ast.Equality.Ref().Equal(e.Operator())) {
				return false
			}
			for _, side := range [][2]*ast.Term{{terms[1], terms[2]}, {terms[2], terms[1]}} {
				if dataKeyedByInput(side[0]) && ast.IsScalar(side[1].Value) {
					t.Errorf("%s:%d: %v: bind the lookup to a variable first, then compare (OPA's index makes this form slow)", p, e.Location.Row, e)
				}
			}
			return false
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 400 {
		t.Fatalf("only %d expressions checked: the walk is broken", checked)
	}
}

// dataKeyedByInput reports whether t is data.… with an input.… key.
func dataKeyedByInput(t *ast.Term) bool {
	r, ok := t.Value.(ast.Ref)
	if !ok || !r.HasPrefix(ast.DefaultRootRef) {
		return false
	}
	for _, k := range r[1:] {
		if kr, ok := k.Value.(ast.Ref); ok && kr.HasPrefix(ast.InputRootRef) {
			return true
		}
	}
	return false
}
