package cli

import (
	"encoding/xml"
	"testing"
)

func TestJUnitReport(t *testing.T) {
	out := render(t, junitReporter{}, sampleReport())
	golden(t, "junit.golden", out)
	var s junitSuites
	if err := xml.Unmarshal(out, &s); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if s.Tests != 6 || s.Failures != 3 || s.Skipped != 1 || len(s.Suites) != 3 {
		t.Errorf("suites %+v", s)
	}
	names := map[string]junitSuite{}
	for _, su := range s.Suites {
		names[su.Name] = su
	}
	if su := names["cases.yaml"]; su.Tests != 2 || su.Failures != 1 || su.Cases[1].Failure == nil || su.Cases[1].Line != 4 {
		t.Errorf("cases.yaml suite %+v", su)
	}
	if su := names["coverage"]; su.Failures != 1 {
		t.Errorf("coverage suite %+v", su)
	}
	// Load problems are errors.
	out = render(t, junitReporter{}, &testReport{Problems: []string{"a.rego:1:1: bad"}, FailUnder: -1})
	if err := xml.Unmarshal(out, &s); err != nil || s.Errors != 1 {
		t.Errorf("problems: %v %+v", err, s)
	}
}
