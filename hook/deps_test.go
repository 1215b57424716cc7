package hook_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/hook"
)

// The hook adapters link no policy engine, no server and no harness
// (issue 32 item 5): they speak package verdict and take a grader, so a
// small client can answer hook calls without OPA.
func TestHookLinksNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/rivumi/rivumi/hook").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/open-policy-agent/") || p == "github.com/rivumi/rivumi/engine" ||
			p == "github.com/rivumi/rivumi/server" || p == "github.com/rivumi/rivumi/harness" {
			t.Errorf("package hook links %s", p)
		}
	}
}

// The hook's own deadline is the engine's default evaluation timeout.
func TestDefaultTimeoutMatchesEngine(t *testing.T) {
	if hook.DefaultTimeout != engine.DefaultEvalTimeout {
		t.Errorf("hook.DefaultTimeout %v, engine.DefaultEvalTimeout %v", hook.DefaultTimeout, engine.DefaultEvalTimeout)
	}
}
