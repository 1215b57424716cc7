package policies_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/policies"
)

// The packs are loaded by the engine, as they ship; the _test.rego files
// come from this directory on disk, since not all of them are embedded
// (main_test.rego, the layering tests of main.rego, is not).

func newEngine(t *testing.T) *engine.Engine {
	t.Helper()
	e, err := engine.New(context.Background())
	if err != nil {
		t.Fatalf("compile embedded policies: %v", err)
	}
	return e
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

// TestRego runs every Rego unit test on disk over the packs the engine
// compiles, and fails on any test that fails or errors. The embedded tests
// are run by the engine itself; the others are passed as extra sources.
func TestRego(t *testing.T) {
	var extra []engine.Source
	for p, src := range testSources(t) {
		if _, err := fs.Stat(policies.FS, p); err != nil {
			extra = append(extra, engine.Source{Name: "policies/" + p, Text: string(src)})
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	results, err := newEngine(t).RunRegoTests(ctx, engine.RegoTestOptions{Sources: extra})
	if err != nil {
		t.Fatalf("run Rego tests: %v", err)
	}
	if len(results) == 0 {
		t.Fatal("no Rego tests ran")
	}
	failed := 0
	for _, r := range results {
		switch {
		case r.Skipped:
			t.Logf("%s: skipped", r.Name)
		case !r.Passed:
			failed++
			t.Errorf("%s:%d: %s: FAIL: %s", r.File, r.Line, r.Name, r.Failure)
		}
		if r.Output != "" {
			t.Logf("%s: %s", r.Name, r.Output)
		}
	}
	t.Logf("%d Rego tests, %d failed", len(results), failed)
}

// TestEveryRuleIDHasATest checks that each rule id declared in METADATA
// (custom.id) under rules/ is mentioned, quoted, in some _test.rego file.
func TestEveryRuleIDHasATest(t *testing.T) {
	ids := map[string]string{} // id -> where it is declared
	for id, m := range newEngine(t).Rules() {
		if strings.HasPrefix(m.Location, "policies/rules/") {
			ids[id] = m.Location
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
