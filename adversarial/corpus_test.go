package adversarial_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/rules"
	"github.com/rivumi/rivumi/verdict"
)

// TestCorpusRates reports how rivumi fares on the hand-written corpora:
// testcases/evasion*.yaml and testcases/benign*.yaml. The cases themselves
// run (and fail) in engine's TestTestcases; this test checks the corpora's
// own promises (sizes, benign cases all allow, evasion cases never allow
// by expectation unless they carry text as data) and logs the pass rates
// per file, with the count of commands rivumi allows but should not.
func TestCorpusRates(t *testing.T) {
	e := eng(t)
	all := corpus(t)
	byFile := map[string][]rules.Testcase{}
	for _, tc := range all {
		f := filepath.Base(tc.File)
		if strings.HasPrefix(f, "evasion") || strings.HasPrefix(f, "benign") {
			byFile[f] = append(byFile[f], tc)
		}
	}
	var files []string
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	total := map[string][3]int{} // cases, passed, unsafe (allowed but must not be)
	var lines []string
	for _, f := range files {
		kind := "evasion"
		if strings.HasPrefix(f, "benign") {
			kind = "benign"
		}
		var n, pass, unsafe, strict int
		for _, tc := range byFile[f] {
			if kind == "benign" && tc.Decision != "allow" {
				t.Errorf("%s: benign cases must expect allow", tc.Name())
			}
			v := e.EvaluateText(context.Background(), tc.Command, caseOpts(tc)...)
			n++
			if v.Decision.String() == tc.Decision {
				pass++
			}
			if v.Decision == verdict.Allow && tc.Decision != "allow" {
				unsafe++
			}
			if v.Decision != verdict.Allow && tc.Decision == "allow" {
				strict++
			}
		}
		c := total[kind]
		total[kind] = [3]int{c[0] + n, c[1] + pass, c[2] + unsafe}
		lines = append(lines, fmt.Sprintf("  %-26s %4d cases, %4d pass (%6.2f%%), %3d allowed but must not be, %3d not allowed but should be",
			f, n, pass, pct(pass, n), unsafe, strict))
	}
	ev, bn := total["evasion"], total["benign"]
	t.Logf("hand-written corpora:\n%s  evasion total %d cases, %d pass (%.2f%%), %d unsafe allows\n  benign total %d cases, %d pass (%.2f%%)",
		strings.Join(lines, "\n")+"\n", ev[0], ev[1], pct(ev[1], ev[0]), ev[2], bn[0], bn[1], pct(bn[1], bn[0]))
	if ev[0] < 400 {
		t.Errorf("only %d evasion cases; the issue asks for at least 400", ev[0])
	}
	if bn[0] < 200 {
		t.Errorf("only %d benign cases; the issue asks for at least 200", bn[0])
	}
}
