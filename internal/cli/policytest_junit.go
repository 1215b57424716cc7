package cli

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// junitReporter writes JUnit XML, as CI systems ingest it: one suite for
// the Rego tests, one per testcase file, one for load problems and one for
// the coverage threshold when --fail-under is given.
type junitReporter struct{}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *struct{}     `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func (s *junitSuite) add(c junitCase, d time.Duration) {
	s.Tests++
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Error != nil:
		s.Errors++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
	t, _ := time.ParseDuration(s.Time + "s")
	s.Time = seconds(t + d)
}

func (junitReporter) Report(w io.Writer, r *testReport) error {
	var suites []junitSuite
	if len(r.Problems) > 0 {
		s := junitSuite{Name: "load", Time: seconds(0)}
		for _, p := range r.Problems {
			s.add(junitCase{Name: p, Classname: "load", Time: seconds(0), Error: &junitMessage{Message: p, Type: "load"}}, 0)
		}
		suites = append(suites, s)
	}
	if len(r.Rego) > 0 {
		s := junitSuite{Name: "rego", Time: seconds(0)}
		for _, x := range r.Rego {
			c := junitCase{Name: x.Name, Classname: x.Package, File: x.File, Line: x.Line, Time: seconds(x.Duration), SystemOut: x.Output}
			switch {
			case x.Skipped:
				c.Skipped = &struct{}{}
			case !x.Passed:
				c.Failure = &junitMessage{Message: x.Failure, Type: "rego"}
			}
			s.add(c, x.Duration)
		}
		suites = append(suites, s)
	}
	byFile := map[string]int{}
	for _, cr := range r.Cases {
		i, ok := byFile[cr.File]
		if !ok {
			i = len(suites)
			byFile[cr.File] = i
			suites = append(suites, junitSuite{Name: cr.File, Time: seconds(0)})
		}
		c := junitCase{Name: fmt.Sprintf("%s: %s", cr.Name(), cr.Command), Classname: cr.File, File: cr.File, Line: cr.Line, Time: seconds(cr.Duration)}
		if !cr.Passed() {
			c.Failure = &junitMessage{Message: strings.Join(cr.Problems, "; "), Type: "testcase", Text: caseDetails(cr)}
		}
		suites[i].add(c, cr.Duration)
	}
	if r.FailUnder >= 0 && r.Coverage != nil {
		s := junitSuite{Name: "coverage", Time: seconds(0)}
		c := junitCase{Name: fmt.Sprintf("rule coverage at least %g%%", r.FailUnder), Classname: "coverage", Time: seconds(0)}
		if r.CoverageShort() {
			var missed []string
			for _, rc := range r.Coverage.Rules {
				if !rc.Hit() {
					missed = append(missed, rc.ID+" ("+rc.Location+")")
				}
			}
			c.Failure = &junitMessage{Message: fmt.Sprintf("rule coverage %.1f%% is under %g%%", r.Coverage.RulePercent, r.FailUnder),
				Type: "coverage", Text: "not hit: " + strings.Join(missed, ", ")}
		}
		s.add(c, 0)
		suites = append(suites, s)
	}
	top := junitSuites{Name: "rivumi policy test", Time: seconds(r.Duration), Suites: suites}
	for _, s := range suites {
		top.Tests += s.Tests
		top.Failures += s.Failures
		top.Errors += s.Errors
		top.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(top); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// caseDetails is the body of a failed testcase: the reasons and segments.
func caseDetails(c caseResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "command: %s\nexpected %s, got %s\n", c.Command, c.Want, c.Got)
	for _, r := range c.Reasons {
		fmt.Fprintf(&b, "reason: %s %s (segment %d): %s\n", r.Decision, r.Rule, r.Segment, r.Title)
	}
	for _, s := range c.Segments {
		fmt.Fprintf(&b, "segment %d %s: %s%s\n", s.Index, s.Decision, s.Text, segmentFacts(s))
	}
	return b.String()
}
