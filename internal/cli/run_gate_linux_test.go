package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/execgate"
	"github.com/rivumi/rivumi/grant"
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
	grants := grantMake(t, dir)
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

// Killing rivumi (the gate's supervisor) with SIGKILL mid-run ends the
// whole tree at once: the Landlock helper's lifeline reads end of file and
// it kills every descendant; nothing of the run goes on unwatched.
func TestRunGateSupervisorKilledEndsTheTree(t *testing.T) {
	if err := execgate.Available(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	token := "gate-lifeline-" + strconv.Itoa(os.Getpid())
	ticks := filepath.Join(dir, "ticks")
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\t@: "+token+"; while :; do /bin/echo x >> ticks; sleep 0.05; done\n"), 0o644)
	grants := grantMake(t, dir)
	cmd := exec.Command(self, "run", "--gate", "deny", "--sandbox", "landlock", "--headless", "--timeout", "2m",
		"--audit", filepath.Join(dir, "audit.jsonl"), "--grants", grants, "-C", dir, "--", "make")
	cmd.Env = append(os.Environ(), execEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() //nolint:errcheck
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, _ := os.ReadFile(ticks); len(b) >= 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the loop never ticked: %s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() //nolint:errcheck
	time.Sleep(300 * time.Millisecond)
	before, _ := os.ReadFile(ticks)
	time.Sleep(700 * time.Millisecond)
	after, _ := os.ReadFile(ticks)
	if len(after) != len(before) {
		t.Errorf("the tree went on after its supervisor was killed: %d → %d bytes of ticks", len(before), len(after))
	}
	if pids := processesWith(token); len(pids) > 0 {
		t.Errorf("processes of the run still alive after its supervisor was killed: %v", pids)
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL) //nolint:errcheck
		}
	}
}

// processesWith lists the processes whose command line holds s.
func processesWith(s string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && bytes.Contains(b, []byte(s)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// grantMake writes a grants file in dir that grants `make` its ask for
// running workspace code (running the project's code was consented to),
// and returns its path.
func grantMake(t *testing.T, dir string) string {
	t.Helper()
	grants := filepath.Join(dir, "grants.json")
	store, err := grant.Load(grants)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Add(engine.Grant{Prefix: []string{"make"}, Rules: []string{"exec.workspace-code"}}); err != nil {
		t.Fatal(err)
	}
	return grants
}
