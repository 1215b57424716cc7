package codescan

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestJqSuite runs the differential check of TestJqAgainstJq over the
// programs of a jq test file (jq's tests/jq.test: groups of program, input
// and outputs; "%%FAIL" before a program that must not compile), named by
// RIVUMI_JQ_TESTS. It needs jq on PATH and is skipped otherwise:
//
//	RIVUMI_JQ_TESTS=/path/to/jq/tests/jq.test go test -run TestJqSuite -v ./codescan
func TestJqSuite(t *testing.T) {
	path := os.Getenv("RIVUMI_JQ_TESTS")
	if path == "" {
		t.Skip("RIVUMI_JQ_TESTS is not set")
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("jq not installed")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var programs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	start := true
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			start = true
		case strings.HasPrefix(line, "#") && start:
		case strings.HasPrefix(line, "%%FAIL"):
		case start:
			programs = append(programs, line)
			start = false
		}
	}
	safe, rejected := 0, 0
	for _, p := range programs {
		if !Jq(p).Safe {
			continue
		}
		safe++
		if !jqOracle(t, jq, p) {
			rejected++
		}
	}
	t.Logf("%d programs, %d safe, %d of those rejected by %s", len(programs), safe, rejected, jq)
}

// jqSentinel is the one variable of the environment jqOracle gives jq.
const jqSentinel = "rivumi-jq-sentinel-7c1f"

// jqLeaks are what a compiled jq program that reads the environment, the
// search path, modules or its inputs' names holds: the environment's value
// (LOADK of $ENV), calls of the C builtins, and $__loc__'s constant.
var jqLeaks = []string{
	jqSentinel, "CALL_BUILTIN env", "CALL_BUILTIN input_filename", "CALL_BUILTIN get_search_list",
	"CALL_BUILTIN get_prog_origin", "CALL_BUILTIN get_jq_origin", "CALL_BUILTIN modulemeta", `"file":"<top-level>"`,
}

// jqOracle compiles filter with jq and fails the test if jq's program
// reaches outside its inputs; it returns false when jq rejects the filter.
func jqOracle(t *testing.T, jq, filter string) bool {
	t.Helper()
	cmd := exec.Command(jq, "--debug-dump-disasm", "--arg", "x", "1", filter)
	cmd.Env = []string{"RIVUMI_SENTINEL=" + jqSentinel, "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	dump := string(out)
	for _, bad := range jqLeaks {
		if strings.Contains(dump, bad) {
			t.Errorf("Jq(%q) is safe but jq's program holds %q:\n%s", filter, bad, dump)
		}
	}
	if err != nil && strings.Contains(dump, "compile error") {
		t.Logf("jq rejects %q: %s", filter, strings.TrimSpace(dump))
		return false
	}
	return true
}
