package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/rivumi/rivumi/engine"
	"github.com/spf13/pflag"
)

// `policy explain --trace`: the Rego-level explanation ([engine.Trace]).

// traceFlags are policy explain's trace flags.
type traceFlags struct {
	mode  traceModeFlag
	rules stringList
	all   bool
	lines int
}

func (t *traceFlags) register(fs *pflag.FlagSet) {
	fs.Var(&t.mode, "trace", "also trace the Rego evaluation of each segment with OPA's tracer: --trace or --trace=fails keeps each failed expression and the rules that led to it, --trace=full every evaluation step (opa eval --explain's modes)")
	fs.Var(&t.rules, "trace-rule", "trace only the rule with this `ID` (repeatable; implies --trace); the rule is evaluated even where OPA's rule index would skip it")
	fs.BoolVar(&t.all, "trace-all", false, "trace every module, the layering in policies/main.rego included (implies --trace); by default the trace covers the team's rules (--policy packs, YAML rules), else the built-in packs")
	fs.IntVar(&t.lines, "trace-lines", engine.DefaultTraceLines, "show at most `N` trace lines over all segments (0: no bound); the per-rule summaries are always shown")
}

// on reports whether a trace was asked for.
func (t *traceFlags) on() bool { return t.mode.set || len(t.rules) > 0 || t.all }

func (t *traceFlags) options() engine.TraceOptions {
	lines := t.lines
	if lines <= 0 {
		lines = -1
	}
	return engine.TraceOptions{Mode: engine.TraceMode(t.mode.mode), Rules: t.rules, All: t.all, MaxLines: lines}
}

// traceModeFlag is --trace[=MODE]: a flag that may stand alone.
type traceModeFlag struct {
	mode string
	set  bool
}

func (f *traceModeFlag) String() string { return f.mode }

func (f *traceModeFlag) Set(v string) error {
	switch v {
	case "false":
		f.mode, f.set = "", false
		return nil
	case "true":
		v = string(engine.TraceFails)
	}
	m, err := engine.ParseTraceMode(v)
	if err != nil {
		return err
	}
	f.mode, f.set = string(m), true
	return nil
}

func (f *traceModeFlag) IsBoolFlag() bool { return true }

// Type is what pflag shows of the value, which the flag may go without.
func (f *traceModeFlag) Type() string { return "string" }

// tracedExplanation is policy explain --trace --format json: the
// explanation's fields and the trace.
type tracedExplanation struct {
	engine.Explanation
	Trace *engine.Trace `json:"trace"`
}

// printTrace writes the trace for people: per segment the argv, the
// traced decision against the engine's, what became of each rule in
// scope, then the trace lines.
func printTrace(w io.Writer, t *engine.Trace) {
	p := newPalette(w)
	index := "rule index on"
	if !t.Indexing {
		index = "rule index off: every rule in scope is evaluated"
	}
	fmt.Fprintf(w, "\n%s\n", p.bold.Sprintf("Rego trace (%s) of %s (%s)", t.Mode, t.Scope, index))
	if len(t.Files) > 0 {
		fmt.Fprintf(w, "files: %s\n", strings.Join(t.Files, " "))
	}
	if t.Note != "" {
		fmt.Fprintf(w, "%s\n", t.Note)
	}
	if t.Mismatches > 0 {
		fmt.Fprintf(w, "%s\n", p.deny.Sprintf("MISMATCH: on %d segment(s) the traced Rego evaluation differs from the engine's answer above; the verdict is not explained by this trace (a bug in rivumi: please report it)", t.Mismatches))
	}
	for _, s := range t.Segments {
		fmt.Fprintf(w, "\nsegment %d: %s\n", s.Segment, s.Text)
		fmt.Fprintf(w, "  argv: %q\n", s.Argv)
		fmt.Fprintf(w, "  Rego: %s [%s]", p.decision(s.Decision), strings.Join(s.Hits, " "))
		if s.Mismatch == "" {
			fmt.Fprintf(w, ", as the engine answered\n")
		} else {
			fmt.Fprintf(w, "\n  %s\n", p.deny.Sprintf("MISMATCH: %s", s.Mismatch))
		}
		if s.Error != "" {
			fmt.Fprintf(w, "  %s\n", p.deny.Sprintf("error: %s", s.Error))
		}
		printRuleTraces(w, p, s.Rules)
		if s.Skipped > 0 {
			fmt.Fprintf(w, "  %s\n", p.dim.Sprintf("%d other rule(s) in scope not evaluated: OPA's rule index ruled them out (--trace-rule ID evaluates one whatever the index says)", s.Skipped))
		}
		if len(s.Lines) > 0 {
			fmt.Fprintf(w, "  trace:\n")
			printTraceLines(w, s.Lines, "    ")
		}
		if s.Cut > 0 {
			fmt.Fprintf(w, "  %s\n", p.dim.Sprintf("… %d more trace line(s) cut (--trace-lines N shows more, 0 all)", s.Cut))
		}
		if s.EventsCut {
			fmt.Fprintf(w, "  %s\n", p.dim.Sprint("… the evaluation was too long to record whole: the trace and summaries stop early"))
		}
	}
}

func printRuleTraces(w io.Writer, p palette, rs []engine.RuleTrace) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "  rules:\n")
	locW, idW := 0, 0
	for _, r := range rs {
		locW = max(locW, len(r.Location))
		idW = max(idW, len(ruleName(r)))
	}
	for _, r := range rs {
		outcome := r.Outcome
		if r.Outcome == engine.RuleFired {
			outcome = p.bold.Sprint(outcome)
		}
		layer := string(r.Layer)
		if layer == "" {
			layer = "-"
		}
		fmt.Fprintf(w, "    %-*s  %-5s  %-*s  %s\n", locW, r.Location, layer, idW, ruleName(r), outcome)
		if r.Outcome == engine.RuleFired {
			continue // its failed iterations are in the trace
		}
		for _, f := range r.Failed {
			fmt.Fprintf(w, "      failed at %s: %s\n", f.Location, f.Text)
			for _, v := range f.Vars {
				fmt.Fprintf(w, "        %s = %s\n", v.Name, v.Value)
			}
		}
		if more := r.Fails - len(r.Failed); more > 0 {
			fmt.Fprintf(w, "      %s\n", p.dim.Sprintf("and %d more failed expression(s) of this rule (see the trace)", more))
		}
	}
}

// ruleName is a rule's id, else its path (helpers, generic YAML rules).
func ruleName(r engine.RuleTrace) string {
	if r.ID != "" {
		return r.ID
	}
	return r.Rule
}

// printTraceLines writes lines as opa eval --explain does: location, the
// event indented by depth, then the values of its variables.
func printTraceLines(w io.Writer, ls []engine.TraceLine, pre string) {
	locW, evW := 0, 0
	events := make([]string, len(ls))
	for i, l := range ls {
		events[i] = strings.Repeat("| ", l.Depth) + l.Op + " " + l.Text
		locW = max(locW, len(l.Location))
		evW = max(evW, len(events[i]))
	}
	evW = min(evW, 72)
	for i, l := range ls {
		if len(l.Vars) == 0 {
			fmt.Fprintf(w, "%s%-*s  %s\n", pre, locW, l.Location, events[i])
			continue
		}
		vs := make([]string, len(l.Vars))
		for j, v := range l.Vars {
			vs[j] = v.Name + ": " + v.Value
		}
		fmt.Fprintf(w, "%s%-*s  %-*s  {%s}\n", pre, locW, l.Location, evW, events[i], strings.Join(vs, ", "))
	}
}
