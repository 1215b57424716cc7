package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Twenty concurrent `rivumi trust` runs on twenty projects all print
// "trusted", and all twenty stay trusted (before the trust store was
// locked, one did).
func TestTrustConcurrent(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv(noConfigEnv, "")
	const n = 20
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("p%02d", i))
		if err := os.MkdirAll(filepath.Join(p, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		rule := fmt.Sprintf("rules:\n  - id: team.no-x%d\n    pattern: [x%d]\n    decision: deny\n    justification: no\n", i, i)
		if err := os.WriteFile(filepath.Join(p, ".rivumi.yaml"), []byte(rule), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String() + errb.String()
	}
	var wg sync.WaitGroup
	outs := make([]string, n)
	codes := make([]int, n)
	for i := range n {
		wg.Go(func() { codes[i], outs[i] = run("trust", "-C", filepath.Join(dir, fmt.Sprintf("p%02d", i))) })
	}
	wg.Wait()
	kept := 0
	for i := range n {
		if codes[i] != 0 || !strings.HasPrefix(outs[i], "trusted: ") {
			t.Errorf("trust p%02d: exit %d: %s", i, codes[i], outs[i])
		}
		if code, _ := run("trust", "--check", "-C", filepath.Join(dir, fmt.Sprintf("p%02d", i))); code == 0 {
			kept++
		}
	}
	if kept != n {
		t.Errorf("%d of %d projects stay trusted after %d concurrent `rivumi trust`", kept, n, n)
	}
}
