package testenv_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/internal/testenv"
)

func TestRunMarkerIsTheHarnessOne(t *testing.T) {
	if testenv.RunMarkerEnv != harness.RunMarkerEnv {
		t.Errorf("testenv.RunMarkerEnv %q, harness.RunMarkerEnv %q", testenv.RunMarkerEnv, harness.RunMarkerEnv)
	}
}

// Outside a run nothing skips; with the marker set, SkipInsideRun skips
// (run in a child: a skip ends the test that calls it).
func TestSkipInsideRun(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		testenv.SkipInsideRun(t, "something")
		t.Log("not skipped")
		return
	}
	for _, tc := range []struct {
		marker, want string
	}{{"", "not skipped"}, {"r-1", "the sandbox refuses something by design"}} {
		self, _ := os.Executable()
		cmd := exec.Command(self, "-test.run=^TestSkipInsideRun$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", testenv.RunMarkerEnv+"="+tc.marker)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("marker %q: %v\n%s\nwant %q", tc.marker, err, out, tc.want)
		}
	}
}
