package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/fatih/color"
)

// textReporter writes for humans: failures in full, passes with verbose,
// coverage, and the summary line `N passed, N failed` last. Colour only
// when asked (see useColor).
type textReporter struct {
	color   bool
	verbose bool
}

func (t textReporter) Report(w io.Writer, r *testReport) error {
	ew := &errWriter{w: w}
	p := newPalette(nil)
	for _, c := range []*color.Color{p.allow, p.ask, p.deny, p.dim, p.bold} {
		if t.color {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	fail, pass := p.deny.Sprint("FAIL"), p.allow.Sprint("ok")
	if len(r.Problems) > 0 {
		for _, pr := range r.Problems {
			ew.printf("%s\n", pr)
		}
		ew.printf("%s: %s\n", fail, plural(len(r.Problems), "load problem"))
		return ew.err
	}
	for _, x := range r.Rego {
		switch {
		case x.Skipped:
			if t.verbose {
				ew.printf("%s %s (%s:%d)\n", p.dim.Sprint("skip"), x.Name, x.File, x.Line)
			}
		case x.Passed:
			if t.verbose {
				ew.printf("%s   %s (%s:%d)\n", pass, x.Name, x.File, x.Line)
			}
		default:
			ew.printf("%s %s (%s:%d)\n", fail, x.Name, x.File, x.Line)
			ew.printf("    %s\n", x.Failure)
			if x.Output != "" {
				ew.printf("    output:\n%s", indentLines(x.Output, "      "))
			}
		}
	}
	for _, c := range r.Cases {
		if c.Passed() {
			if t.verbose {
				ew.printf("%s   %s: %s\n", pass, c.Name(), c.Command)
			}
			continue
		}
		ew.printf("%s %s: %s\n", fail, c.Name(), c.Command)
		for _, pr := range c.Problems {
			ew.printf("    %s\n", pr)
		}
		if len(c.Reasons) > 0 {
			ew.printf("    reasons:\n")
			for _, rs := range c.Reasons {
				seg := ""
				if rs.Segment >= 0 {
					seg = fmt.Sprintf(" [segment %d]", rs.Segment)
				}
				ew.printf("      %-5s %s%s: %s\n", p.decision(rs.Decision), rs.Rule, seg, rs.Title)
			}
		}
		if len(c.Segments) > 0 {
			ew.printf("    segments:\n")
			for _, s := range c.Segments {
				ew.printf("      %d %-5s %s%s\n", s.Index, s.Decision, s.Text, p.dim.Sprint(segmentFacts(s)))
			}
		}
	}
	passed, _, skipped := r.Counts()
	regoPassed, cases := 0, len(r.Cases)
	for _, x := range r.Rego {
		if x.Passed {
			regoPassed++
		}
	}
	casesPassed := passed - regoPassed
	ew.printf("Rego tests: %d passed, %d failed; testcases: %d passed, %d failed\n",
		regoPassed, len(r.Rego)-regoPassed-skipped, casesPassed, cases-casesPassed)
	if skipped > 0 {
		ew.printf("%d skipped\n", skipped)
	}
	if r.Examples > 0 {
		ew.printf("YAML rules: %d match examples hit their rules (checked at load)\n", r.Examples)
	}
	if r.BuiltinSkipped {
		ew.printf("(the built-in packs' own Rego tests did not run: --builtin runs them too)\n")
	}
	if cov := r.Coverage; cov != nil {
		ew.printf("rule coverage: %d of %d rule ids hit (%.1f%%)\n", cov.RulesHit, len(cov.Rules), cov.RulePercent)
		for _, rc := range cov.Rules {
			if !rc.Hit() {
				ew.printf("  not hit: %s (%s, %s)\n", rc.ID, rc.Layer, rc.Location)
			}
		}
		ew.printf("line coverage: %d of %d lines (%.1f%%)\n", cov.LinesCovered, cov.LinesCovered+cov.LinesMissed, cov.LinePercent)
		for _, f := range cov.Files {
			if f.NotCovered == 0 && !t.verbose {
				continue
			}
			ranges := make([]string, len(f.Missed))
			for i, m := range f.Missed {
				ranges[i] = m.String()
			}
			missed := ""
			if len(ranges) > 0 {
				missed = "; not covered: " + strings.Join(ranges, ", ")
			}
			ew.printf("  %s: %.1f%%%s\n", f.File, f.Percent, missed)
		}
		if r.CoverageShort() {
			ew.printf("%s: rule coverage %.1f%% is under --fail-under %g%%\n", fail, cov.RulePercent, r.FailUnder)
		}
	}
	ew.printf("%s\n", r.summary())
	return ew.err
}

// segmentFacts is "  (program git, subcommand push, flags force)".
func segmentFacts(s segmentSummary) string {
	var parts []string
	if s.Program != "" {
		parts = append(parts, "program "+s.Program)
	}
	if s.Subcommand != "" {
		parts = append(parts, "subcommand "+s.Subcommand)
	}
	if len(s.Wrappers) > 0 {
		parts = append(parts, "wrappers "+strings.Join(s.Wrappers, " "))
	}
	if len(s.Flags) > 0 {
		parts = append(parts, "flags "+strings.Join(s.Flags, " "))
	}
	if len(s.Tags) > 0 {
		parts = append(parts, "tags "+strings.Join(s.Tags, " "))
	}
	if len(parts) == 0 {
		return ""
	}
	return "  (" + strings.Join(parts, ", ") + ")"
}

// indentLines prefixes every line of s, ending with a newline.
func indentLines(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	if !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
