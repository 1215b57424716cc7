package adversarial_test

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/adversarial"
)

// checkScript reads NUL-terminated commands on stdin and, for each, prints
// its index when bash rejects its syntax. Wrapping a command in a function
// definition makes bash parse it without running any of it.
const checkScript = `i=0
while IFS= read -r -d '' c; do
  if ! eval "__syntax_check() {"$'\n'"$c"$'\n'"}" 2>/dev/null; then
    printf '%d\n' "$i"
  fi
  i=$((i+1))
done`

// bashSyntaxErrors returns the indices of the commands bash cannot parse.
func bashSyntaxErrors(t *testing.T, cmds []string) []int {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("bash is required in CI")
		}
		t.Skip("bash not found")
	}
	var in bytes.Buffer
	for _, c := range cmds {
		in.WriteString(c)
		in.WriteByte(0)
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", checkScript)
	cmd.Stdin = &in
	cmd.Env = []string{"PATH=/nonexistent", "LC_ALL=C.UTF-8"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash syntax check: %v", err)
	}
	var bad []int
	for _, l := range strings.Fields(string(out)) {
		n, err := strconv.Atoi(l)
		if err != nil {
			t.Fatalf("bash syntax check printed %q", l)
		}
		bad = append(bad, n)
	}
	return bad
}

// TestGeneratedIsBash checks the generator against bash itself: every
// generated case must be a command bash parses (otherwise it would test
// rivumi on text no shell runs).
func TestGeneratedIsBash(t *testing.T) {
	cases := adversarial.Generate()
	cmds := make([]string, len(cases))
	for i, c := range cases {
		cmds[i] = c.Command
	}
	bad := bashSyntaxErrors(t, cmds)
	for _, i := range bad {
		if len(bad) > 20 {
			break
		}
		c := cases[i]
		t.Errorf("bash rejects %s/%s [%s]: %q", c.Seed, c.Family, c.Transform, c.Command)
	}
	if len(bad) > 20 {
		t.Errorf("bash rejects %d generated cases, e.g. %q", len(bad), cases[bad[0]].Command)
	}
}
