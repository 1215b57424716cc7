package policies_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"

	"github.com/rivumi/rivumi/policies"
)

// The packs come from the embedded policies.FS, as the engine loads them;
// the _test.rego files from this directory on disk, since not all of them
// are embedded (main_test.rego is not).

// packs parses the embedded non-test modules and merges the embedded JSON
// data, the way engine/compile.go does (JSON documents merged at the root).
func packs(t *testing.T) (map[string]*ast.Module, map[string]any) {
	t.Helper()
	mods := map[string]*ast.Module{}
	data := map[string]any{}
	err := fs.WalkDir(policies.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(policies.FS, p)
		if err != nil {
			return err
		}
		switch {
		case strings.HasSuffix(p, "_test.rego"):
		case strings.HasSuffix(p, ".rego"):
			m, err := parse(p, b)
			if err != nil {
				return err
			}
			mods[p] = m
		case strings.HasSuffix(p, ".json"):
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			merge(data, doc)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("load embedded policies: %v", err)
	}
	return mods, data
}

// testSources returns the _test.rego files below this directory, by path.
func testSources(t *testing.T) map[string][]byte {
	t.Helper()
	srcs := map[string][]byte{}
	err := fs.WalkDir(os.DirFS("."), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.rego") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		srcs[p] = b
		return nil
	})
	if err != nil {
		t.Fatalf("read tests: %v", err)
	}
	if len(srcs) == 0 {
		t.Fatal("no _test.rego files found")
	}
	return srcs
}

func parse(name string, src []byte) (*ast.Module, error) {
	return ast.ParseModuleWithOpts(name, string(src), ast.ParserOptions{
		RegoVersion:       ast.RegoV1,
		ProcessAnnotation: true,
	})
}

func merge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				merge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// TestRego runs every Rego unit test in process, over the embedded packs and
// their data tables, and fails on any test that fails or errors.
func TestRego(t *testing.T) {
	mods, data := packs(t)
	for p, src := range testSources(t) {
		m, err := parse(p, src)
		if err != nil {
			t.Fatal(err)
		}
		mods[p] = m
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	runner := tester.NewRunner().
		SetCompiler(ast.NewCompiler().WithStrict(true).WithEnablePrintStatements(true)).
		SetStore(inmem.NewFromObject(data)).
		SetModules(mods).
		RaiseBuiltinErrors(true).
		SetParallel(2)
	ch, err := runner.RunTests(ctx, nil)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	var results []*tester.Result
	for r := range ch {
		results = append(results, r)
	}
	if len(results) == 0 {
		t.Fatal("no Rego tests ran")
	}
	sort.Slice(results, func(i, j int) bool {
		if results[i].Package != results[j].Package {
			return results[i].Package < results[j].Package
		}
		return results[i].Name < results[j].Name
	})
	failed := 0
	for _, r := range results {
		switch {
		case r.Error != nil:
			failed++
			t.Errorf("%s:%d: %s.%s: error: %v", r.Location.File, r.Location.Row, r.Package, r.Name, r.Error)
		case r.Fail:
			failed++
			at := ""
			if r.FailedAt != nil {
				at = fmt.Sprintf(" (failed at %s)", r.FailedAt)
			}
			t.Errorf("%s:%d: %s.%s: FAIL%s", r.Location.File, r.Location.Row, r.Package, r.Name, at)
		case r.Skip:
			t.Logf("%s.%s: skipped", r.Package, r.Name)
		}
		if len(r.Output) > 0 {
			t.Logf("%s.%s: %s", r.Package, r.Name, r.Output)
		}
	}
	t.Logf("%d Rego tests, %d failed", len(results), failed)
}

// TestEveryRuleIDHasATest checks that each rule id declared in METADATA
// (custom.id) under rules/ is mentioned, quoted, in some _test.rego file.
func TestEveryRuleIDHasATest(t *testing.T) {
	mods, _ := packs(t)
	ids := map[string]string{} // id -> where it is declared
	for p, m := range mods {
		if path.Dir(p) != "rules" {
			continue
		}
		for _, a := range m.Annotations {
			id, ok := a.Custom["id"].(string)
			if !ok || id == "" {
				continue
			}
			ids[id] = fmt.Sprintf("%s:%d", p, a.Location.Row)
		}
	}
	if len(ids) == 0 {
		t.Fatal("no rule ids found in METADATA under rules/")
	}
	var tests strings.Builder
	for _, src := range testSources(t) {
		tests.Write(src)
	}
	all := tests.String()
	var missing []string
	for id, where := range ids {
		if !strings.Contains(all, `"`+id+`"`) {
			missing = append(missing, fmt.Sprintf("%s: rule %s has no Rego test", where, id))
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Error(m)
	}
}

// TestPacksEmbedded checks that every .rego pack on disk is embedded, so
// that what `opa test policies/` tests is what the engine loads.
func TestPacksEmbedded(t *testing.T) {
	err := fs.WalkDir(os.DirFS("."), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !strings.HasSuffix(p, ".rego") && !strings.HasSuffix(p, ".json") || strings.HasSuffix(p, "_test.rego") {
			return nil
		}
		if _, err := fs.Stat(policies.FS, p); err != nil {
			t.Errorf("%s is not embedded (policies/embed.go): the engine would not load it", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
