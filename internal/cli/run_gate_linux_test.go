package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/execgate"
	"github.com/rivumi/rivumi/harness"
)

// rivumi run --gate with the real policy: `make` is granted (running the
// project's code was consented to), and its recipe's `rm -rf keep ~` is
// refused by the floor at the exec of the recipe's shell — keep survives,
// and the audit entry holds the exec tree with the floor rule.
func TestRunGateStopsAFloorRecipe(t *testing.T) {
	if err := execgate.Available(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	keep := filepath.Join(dir, "keep")
	os.Mkdir(keep, 0o755)
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\trm -rf keep ~\n"), 0o644)
	grants := filepath.Join(dir, "grants.json")
	store, err := harness.LoadGrants(grants)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Add(engine.Grant{Prefix: []string{"make"}, Rules: []string{"exec.workspace-code"}}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "audit.jsonl")
	var stderr bytes.Buffer
	code := Main(context.Background(), []string{"run", "--gate", "deny", "--sandbox", "landlock", "--headless",
		"--audit", log, "--grants", grants, "-C", dir, "--", "make"}, Stdio{In: strings.NewReader(""), Out: &stderr, Err: &stderr})
	if code == ExitNoSandbox {
		t.Skip(stderr.String())
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("the recipe's rm ran (exit %d): %s", code, stderr.String())
	}
	if code == 0 {
		t.Errorf("make succeeded although its recipe was refused: %s", stderr.String())
	}
	es, err := audit.ReadFile(log)
	if err != nil || len(es) == 0 {
		t.Fatal(err)
	}
	run := es[len(es)-1]
	var refused []string
	for _, x := range run.Execs {
		if !x.Allowed {
			refused = append(refused, filepath.Base(x.Argv[0])+":"+x.Rule)
		}
	}
	// make runs its recipe as `sh -c 'rm -rf keep ~'`: the shell is graded
	// by its code and stopped there, before rm.
	if len(refused) == 0 || !strings.HasPrefix(refused[0], "sh:floor.") {
		t.Errorf("exec tree %+v; want the recipe's shell refused by a floor rule", run.Execs)
	}
}
