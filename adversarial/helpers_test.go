package adversarial_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/rules"
	"github.com/rivumi/rivumi/verdict"
)

var (
	engineOnce sync.Once
	sharedEng  *engine.Engine
	engineErr  error
)

// eng compiles the embedded packs once per test binary.
func eng(t testing.TB) *engine.Engine {
	t.Helper()
	engineOnce.Do(func() { sharedEng, engineErr = engine.New(context.Background()) })
	if engineErr != nil {
		t.Fatalf("engine.New: %v", engineErr)
	}
	return sharedEng
}

// The workspace, home and cwd every adversarial case is graded in (the
// defaults of the testcases files).
const (
	workspace = "/work/proj"
	home      = "/home/dev"
)

func evalOpts(shell string) []engine.EvalOption {
	if shell == "" {
		shell = "bash"
	}
	return []engine.EvalOption{engine.Workspace(workspace), engine.Home(home), engine.Cwd(workspace), engine.Shell(shell)}
}

// reasonIDs lists the distinct rule ids of a verdict, sorted.
func reasonIDs(v verdict.Verdict) string {
	m := map[string]bool{}
	for _, r := range v.Reasons {
		m[r.Rule] = true
	}
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return strings.Join(ids, ",")
}

// corpus loads every testcase of ../testcases.
func corpus(t testing.TB) []rules.Testcase {
	t.Helper()
	cs, err := rules.LoadTestcases("../testcases")
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func caseOpts(tc rules.Testcase) []engine.EvalOption {
	c := engine.TestcaseContext(tc)
	c.Grants = nil // the adversarial corpus grades without grants
	return engine.ContextOptions(c)
}

// tally counts passes per key and prints a table.
type tally struct {
	keys []string
	n    map[string][2]int // total, passed
}

func newTally() *tally { return &tally{n: map[string][2]int{}} }

func (t *tally) add(key string, ok bool) {
	c, seen := t.n[key]
	if !seen {
		t.keys = append(t.keys, key)
	}
	c[0]++
	if ok {
		c[1]++
	}
	t.n[key] = c
}

func (t *tally) String() string {
	var b strings.Builder
	for _, k := range t.keys {
		c := t.n[k]
		fmt.Fprintf(&b, "  %-22s %5d/%-5d %6.2f%%\n", k, c[1], c[0], pct(c[1], c[0]))
	}
	return b.String()
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}
