package lazyre_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/internal/lazyre"
)

func TestNew(t *testing.T) {
	re := lazyre.New(`^a+$`)
	var wg sync.WaitGroup
	got := make([]*regexp.Regexp, 8)
	for i := range got {
		wg.Go(func() { got[i] = re() })
	}
	wg.Wait()
	for _, r := range got {
		if r != got[0] {
			t.Fatal("New compiled more than once")
		}
	}
	if !got[0].MatchString("aaa") || got[0].MatchString("ab") {
		t.Errorf("New(`^a+$`) matches wrongly")
	}
	bad := lazyre.New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("New(`(`)() did not panic")
		}
	}()
	bad()
}

// TestPatternsCompile walks the module's Go files (tests aside): every
// constant pattern given to lazyre.New compiles, and no package-level
// variable is initialised with regexp.MustCompile (it would compile at
// every start of every process; use lazyre.New), eagerPatterns aside.
func TestPatternsCompile(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			ast.Inspect(g, func(x ast.Node) bool {
				if _, ok := x.(*ast.FuncLit); ok {
					return false // runs when called, not at initialisation
				}
				if isCall(x, "regexp", "MustCompile") && !eagerAllowed(root, path) {
					t.Errorf("%s: a package-level regexp.MustCompile compiles at every start: use lazyre.New", fset.Position(x.Pos()))
				}
				return true
			})
		}
		ast.Inspect(f, func(x ast.Node) bool {
			if !isCall(x, "lazyre", "New") {
				return true
			}
			call := x.(*ast.CallExpr)
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: lazyre.New wants a constant pattern (this test compiles it)", fset.Position(call.Pos()))
				return true
			}
			expr, err := strconv.Unquote(lit.Value)
			if err == nil {
				_, err = regexp.Compile(expr)
			}
			if err != nil {
				t.Errorf("%s: %v", fset.Position(lit.Pos()), err)
			}
			n++
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d patterns", n)
}

// eagerPatterns are the directories where package-level patterns stay for
// now, with why.
var eagerPatterns = map[string]string{}

func eagerAllowed(root, path string) bool {
	rel, err := filepath.Rel(root, filepath.Dir(path))
	_, ok := eagerPatterns[filepath.ToSlash(rel)]
	return err == nil && ok
}

// isCall reports whether x is a call of pkg.name.
func isCall(x ast.Node, pkg, name string) bool {
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}
