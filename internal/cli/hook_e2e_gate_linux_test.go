package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/execgate"
)

// Claude Code with `rivumi hook claude-code --gate deny`: the model runs
// `make`, which the project granted (so the hook allows it); the hook
// rewrites it through updatedInput to run under `rivumi run --gate`, and
// the recipe's `rm -rf HOME` (the agent's home, by its literal path) is
// stopped at the exec: the home's marker survives, the run's audit entry
// holds the exec tree with the floor rule. Against the real CLI.
func TestAgentsE2EClaudeGate(t *testing.T) {
	if os.Getenv("RIVUMI_AGENTS_E2E") == "" {
		t.Skip("run from .ci/agents-e2e (see TestAgentsE2E)")
	}
	if err := execgate.Available(); err != nil {
		t.Skip(err)
	}
	a := newE2EAgent(t, "claude-code")
	a.mock = startMockModel(t)
	args := []string{"hook", "install", "claude-code", "--binary", a.rivumi, "--", "--audit", a.audit, "--socket", "none", "--gate", "deny"}
	if out, code := a.rivumiCmd(args...); code != 0 {
		t.Fatalf("hook install: exit %d\n%s", code, out)
	}
	if out, code := a.rivumiCmd("grant", "add", "--rule", "exec.workspace-code", "--", "make"); code != 0 {
		t.Fatalf("grant add: exit %d\n%s", code, out)
	}
	marker := filepath.Join(a.home, "MARKER")
	if err := os.WriteFile(marker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.proj, "Makefile"), []byte("all:\n\ttouch MAKE-RAN\n\trm -rf "+a.home+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"ANTHROPIC_BASE_URL=" + a.mock.url, "ANTHROPIC_API_KEY=sk-ant-dummy",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		// The rewritten command runs this test binary as rivumi (the hook
		// names its own executable), as the wrapper in bin/ does.
		execEnv + "=1"}
	n := a.calls()
	a.mock.set("Bash", map[string]any{"command": "make"})
	a.run(env, "-p", "do it", "--output-format", "stream-json", "--verbose")
	a.expect("gated make", "MAKE-RAN", true, "allow", n)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the recipe's rm -rf of the home ran:\n%s", tail(a.lastOut, 4000))
	}
	es, err := audit.ReadFile(filepath.Join(a.home, ".local", "state", "rivumi", "audit.jsonl"))
	if err != nil {
		t.Fatalf("the run's audit log: %v\n%s", err, tail(a.lastOut, 4000))
	}
	var tree []string
	stopped := false
	for _, e := range es {
		for _, x := range e.Execs {
			tree = append(tree, strings.Join(x.Argv, " ")+" "+x.Rule)
			stopped = stopped || (!x.Allowed && strings.HasPrefix(x.Rule, "floor."))
		}
	}
	if !stopped {
		t.Errorf("no exec refused by a floor rule; exec tree:\n%s\n%s", strings.Join(tree, "\n"), tail(a.lastOut, 4000))
	}
}
