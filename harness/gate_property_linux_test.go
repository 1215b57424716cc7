package harness_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/verdict"
)

// The gate's invariant on random trees: shells nested in shells (sh -c,
// subshells, pipelines, && and ||) run touch commands on marker files;
// the grader denies the odd markers. After the run no denied marker exists
// (no gated tree executed a denied argv) and every allowed one does (the
// gate let through what the policy allows).
func TestGateRandomTreesNeverRunADeniedArgv(t *testing.T) {
	denyOdd := verdict.GraderFunc(func(_ context.Context, r verdict.Request) (verdict.Verdict, error) {
		argv := r.Argv
		for _, a := range argv {
			if strings.Contains(a, "odd-") && filepath.Base(argv[0]) == "touch" {
				return verdict.Verdict{Decision: verdict.Deny, Reasons: []verdict.Reason{{Rule: "test.odd", Decision: verdict.Deny}}}, nil
			}
		}
		return verdict.Verdict{Decision: verdict.Allow}, nil
	})
	h, ws := sandboxed(t, harness.SandboxLandlock, harness.Config{GateGrader: denyOdd, Gate: harness.GateDeny})
	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	for tree := range 15 {
		dir := filepath.Join(ws, fmt.Sprint(tree))
		os.Mkdir(dir, 0o755)
		var want, deny []string
		n := 0
		// leaf returns a command touching a new marker, allowed or denied
		// at random.
		leaf := func() string {
			n++
			name := fmt.Sprintf("even-%d", n)
			if rng.IntN(2) == 0 {
				name = fmt.Sprintf("odd-%d", n)
				deny = append(deny, name)
			} else {
				want = append(want, name)
			}
			return "touch " + name
		}
		var gen func(depth int) string
		gen = func(depth int) string {
			if depth == 0 {
				return leaf()
			}
			a, b := gen(depth-1), gen(depth-1)
			switch rng.IntN(5) {
			case 0:
				return "sh -c '" + strings.ReplaceAll(a+"; "+b, "'", `'\''`) + "'"
			case 1:
				return "(" + a + "); " + b
			case 2:
				return a + " | cat; " + b
			case 3:
				return "{ " + a + " || true; }; " + b // a denied touch fails: || keeps going
			default:
				return a + "; " + b
			}
		}
		script := gen(1 + rng.IntN(3))
		res, err := h.Run(context.Background(), harness.Request{Argv: []string{"/bin/sh", "-c", script}, Dir: dir, Timeout: 20 * time.Second})
		if err != nil || !res.Ran {
			t.Fatalf("tree %d: %v %s", tree, err, res.Refusal)
		}
		for _, f := range deny {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("tree %d: denied %s ran\n%s", tree, f, script)
			}
		}
		for _, f := range want {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("tree %d: allowed %s did not run\n%s\n%s", tree, f, script, res.Stderr.String())
			}
		}
	}
}
