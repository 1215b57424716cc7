package codescan

import (
	"os/exec"
	"testing"
	"strings"
)

func TestSedDiff(t *testing.T) {
	for _, tc := range sedCases {
		got := Sed(tc.script)
		cmd := exec.Command("sed", "--sandbox", "-n", "--debug", "-e", tc.script)
		cmd.Stdin = strings.NewReader("")
		cmd.Dir = "/tmp/sedt"
		out, err := cmd.CombinedOutput()
		ok := err == nil
		parseErr := !got.Safe && !got.Executes && len(got.Writes) == 0
		if got.Safe && len(got.Reads) == 0 && !ok {
			t.Logf("LENIENT: %q ours safe, sed: %s", tc.script, strings.SplitN(string(out), "\n", 2)[0])
		}
		if parseErr && ok {
			t.Logf("STRICT: %q ours %q, sed accepts", tc.script, got.Reason)
		}
	}
}

func TestSedTextDiff(t *testing.T) {
	for _, tc := range append(append([]sedCase{}, sedTextCases...), sedLabelCases...) {
		cmd := exec.Command("sed", "--sandbox", "-n", "--debug", "-e", tc.script)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		t.Logf("%q sandbox ok=%v %q", tc.script, err == nil, strings.SplitN(string(out), "\n", 2)[0])
	}
}
