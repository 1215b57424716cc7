package cli

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/rivumi/rivumi/internal/lazyre"
)

// githubReporter writes GitHub Actions workflow commands: an ::error
// annotation per failure and load problem (with file and line, so the
// failure shows on the pull request's diff), a ::warning per rule id no
// test hits (with --coverage), then the summary line.
type githubReporter struct{}

// location splits "file:line:col: message" (col optional).
var location = lazyre.New(`(?s)^([^:\s][^:]*):(\d+)(?::(\d+))?: (.*)$`)

func (githubReporter) Report(w io.Writer, r *testReport) error {
	ew := &errWriter{w: w}
	annotate := func(kind, file string, line int, title, msg string) {
		props := []string{}
		if file != "" {
			props = append(props, "file="+ghProperty(file))
			if line > 0 {
				props = append(props, fmt.Sprintf("line=%d", line))
			}
		}
		props = append(props, "title="+ghProperty(title))
		ew.printf("::%s %s::%s\n", kind, strings.Join(props, ","), ghData(msg))
	}
	for _, p := range r.Problems {
		if m := location().FindStringSubmatch(p); m != nil {
			var line int
			fmt.Sscan(m[2], &line)
			annotate("error", m[1], line, "rivumi policy: load error", m[4])
		} else {
			annotate("error", "", 0, "rivumi policy: load error", p)
		}
	}
	for _, x := range r.Rego {
		if !x.Passed && !x.Skipped {
			file, line, msg := x.File, x.Line, x.Failure
			if m := location().FindStringSubmatch(msg); m != nil && m[1] == file {
				fmt.Sscan(m[2], &line) // point at the expression that failed
				msg = m[4]
			}
			annotate("error", file, line, "Rego test "+x.Name, msg)
		}
	}
	for _, c := range r.Cases {
		if !c.Passed() {
			annotate("error", c.File, c.Line, "rivumi testcase", c.Command+": "+strings.Join(c.Problems, "; ")+"\n"+caseDetails(c))
		}
	}
	if cov := r.Coverage; cov != nil {
		for _, rc := range cov.Rules {
			if rc.Hit() {
				continue
			}
			file, line := rc.Location, 0
			if m := regexp.MustCompile(`^(.*):(\d+)$`).FindStringSubmatch(rc.Location); m != nil {
				file = m[1]
				fmt.Sscan(m[2], &line)
			}
			annotate("warning", file, line, "rule not covered", "no test or testcase hits rule "+rc.ID)
		}
		if r.CoverageShort() {
			annotate("error", "", 0, "rivumi policy: coverage", fmt.Sprintf("rule coverage %.1f%% is under %g%%", cov.RulePercent, r.FailUnder))
		}
	}
	ew.printf("%s\n", r.summary())
	return ew.err
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(strings.TrimRight(s, "\n"))
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
