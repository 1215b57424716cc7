package cli

import (
	"strings"
	"testing"
)

func TestTextReport(t *testing.T) {
	golden(t, "text.golden", render(t, textReporter{}, sampleReport()))
	golden(t, "text-verbose.golden", render(t, textReporter{verbose: true}, sampleReport()))
}

func TestTextReportColor(t *testing.T) {
	out := string(render(t, textReporter{color: true}, sampleReport()))
	if !strings.Contains(out, "\x1b[") {
		t.Error("no colour when asked")
	}
	plain := string(render(t, textReporter{}, sampleReport()))
	if strings.Contains(plain, "\x1b[") {
		t.Error("colour when not asked")
	}
	lines := strings.Split(strings.TrimSuffix(plain, "\n"), "\n")
	if last := lines[len(lines)-1]; last != "2 passed, 2 failed" {
		t.Errorf("last line %q", last)
	}
}

func TestTextReportProblems(t *testing.T) {
	out := string(render(t, textReporter{}, &testReport{Problems: []string{"policy/a.rego:3:1: rego_parse_error: unexpected }"}}))
	if out != "policy/a.rego:3:1: rego_parse_error: unexpected }\nFAIL: 1 load problem\n" {
		t.Errorf("got %q", out)
	}
}
