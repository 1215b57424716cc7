package codescan

import (
	"math/rand"
	"os/exec"
	"strings"
	"testing"
)

func TestSedRandomDiff(t *testing.T) {
	toks := []string{"s", "/", "a", "b", "e", "w", " ", "x", ";", "\n", "\\", "[", "]", "^", ":", "{", "}", "!", "1", "0", "$", ",", "~", "+", "p", "g", "I", "M", "y", "i", "c", "r", "#", "n", "|", "%", "=", "l", "q", "b", "t", "T", "v", "F", "z", ".", "*", "-", "\\n", "[:alpha:]", "s/a/b/", "w f", "e id", "a\\", "\t", "\r", "i\\\n", "a ", "c\\x", "\\\n", "e", "w /x\n", "s/[/]/", "}", "{", "#n\n", "\\%", "I", "0,", "/x/", "\v", "\f", ":x\r", "bx\r", "b x", ":x", "#"}
	r := rand.New(rand.NewSource(7))
	n := 0
	for iter := 0; iter < 40000; iter++ {
		k := 1 + r.Intn(10)
		var sb strings.Builder
		for j := 0; j < k; j++ {
			sb.WriteString(toks[r.Intn(len(toks))])
		}
		script := sb.String()
		got := Sed(script)
		if !got.Safe || len(got.Reads) > 0 {
			continue
		}
		n++
		cmd := exec.Command("sed", "--sandbox", "-n", "--debug", "-e", script)
		cmd.Stdin = strings.NewReader("")
		cmd.Dir = "/tmp/sedt"
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("LENIENT: %q sed: %s", script, strings.SplitN(string(out), "\n", 2)[0])
		}
	}
	t.Logf("checked %d safe scripts", n)
}
