package cli

import (
	"strings"
	"testing"
)

func TestGitHubReport(t *testing.T) {
	out := string(render(t, githubReporter{}, sampleReport()))
	golden(t, "github.golden", []byte(out))
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(line, "::") && line != "2 passed, 2 failed" {
			t.Errorf("line is neither a workflow command nor the summary: %q", line)
		}
	}
	got := string(render(t, githubReporter{}, &testReport{Problems: []string{"policy/a.rego:3:7: rego_parse_error: unexpected }", "no location"}, FailUnder: -1}))
	want := "::error file=policy/a.rego,line=3,title=rivumi policy%3A load error::rego_parse_error: unexpected }\n" +
		"::error title=rivumi policy%3A load error::no location\n0 passed, 0 failed\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestGitHubEscaping(t *testing.T) {
	if got := ghData("50%\nnext\r"); got != "50%25%0Anext%0D" {
		t.Errorf("data %q", got)
	}
	if got := ghProperty("a:b,c"); got != "a%3Ab%2Cc" {
		t.Errorf("property %q", got)
	}
}
