package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/lineage"

	"github.com/rivumi/rivumi/internal/textdist"
	"github.com/rivumi/rivumi/parser"
)

// A Rego-level explanation: [Engine.Trace] evaluates each segment of a
// command through OPA's evaluator with its tracer on (the same events
// `opa eval --explain` and `opa test --explain` print), over the layering
// in Rego (data.rivumi.main.result, policies/main.rego), whatever path the
// engine's verdicts take (the Go rules or the fast hit queries), and
// checks that the traced evaluation answers what the engine answered.

// TraceMode says which events of the evaluation a trace keeps, in the
// words of `opa eval --explain`.
type TraceMode string

const (
	// TraceFails keeps each failed expression with the rules and queries
	// that led to it (OPA's "fails").
	TraceFails TraceMode = "fails"
	// TraceFull keeps every event but unifications (OPA's "full").
	TraceFull TraceMode = "full"
)

// OPA's "notes" mode is not offered: it shows the calls of the trace()
// built-in, which the policies' capabilities leave out.

// ParseTraceMode reads a mode's name; "" is [TraceFails].
func ParseTraceMode(s string) (TraceMode, error) {
	switch TraceMode(s) {
	case "", TraceFails:
		return TraceFails, nil
	case TraceFull:
		return TraceFull, nil
	}
	return "", fmt.Errorf("unknown trace mode %q (want fails or full)", s)
}

// DefaultTraceLines bounds the trace lines of one [Engine.Trace] (all
// segments together) when [TraceOptions] sets no limit.
const DefaultTraceLines = 400

// maxTraceEvents bounds the events recorded for one segment (unifications
// are not recorded): past it the evaluation goes on untraced and the
// segment says so.
const maxTraceEvents = 100_000

// maxTraceValue bounds a variable's value as a trace line shows it.
const maxTraceValue = 160

// maxRuleFails is how many failed expressions of one rule a summary keeps
// (it counts them all).
const maxRuleFails = 3

// TraceOptions choose what [Engine.Trace] traces.
type TraceOptions struct {
	// Mode is the events kept in each segment's lines ("" is TraceFails).
	Mode TraceMode
	// Rules narrows the trace to the rules with these ids (a YAML rule's
	// id traces the generic rule of its layer, in policies/rules/yaml.rego).
	// An id no rule declares is an error.
	Rules []string
	// All traces every module, the layering in policies/main.rego
	// included. Without All or Rules the trace covers the team's rules
	// (user packs and YAML rules) when the engine loaded any, else the
	// built-in packs.
	All bool
	// MaxLines bounds the trace lines over all segments (0:
	// DefaultTraceLines; below 0: no bound). Rule summaries are not
	// counted.
	MaxLines int
}

// Trace is the Rego-level story of a command's verdict.
type Trace struct {
	Mode TraceMode `json:"mode"`
	// Scope says in words which rules are traced; Files lists the modules
	// they live in.
	Scope string   `json:"scope"`
	Files []string `json:"files"`
	// Indexing reports whether OPA's rule index was on. It is off when the
	// scope is the team's rules or named rules, so that every rule in scope
	// is evaluated and a rule that does not fire shows the expression that
	// failed (with the index on, a rule whose indexed condition does not
	// hold is never entered). It is on for the built-in packs and All, as
	// verdicts are evaluated.
	Indexing bool `json:"indexing"`
	// Note says why no segment was traced (a parse error, a limit, an
	// empty command: the verdict then comes from the engine, not Rego).
	Note     string         `json:"note,omitempty"`
	Segments []SegmentTrace `json:"segments"`
	// Mismatches counts the segments whose traced Rego decision or hits
	// differ from the engine's (see SegmentTrace.Mismatch): never expected,
	// always shown.
	Mismatches int `json:"mismatches"`
	// Lines is how many trace lines were kept; Cut how many more there
	// were past MaxLines.
	Lines int `json:"lines"`
	Cut   int `json:"cut"`
}

// SegmentTrace is one segment's traced evaluation.
type SegmentTrace struct {
	Segment int      `json:"segment"`
	Text    string   `json:"text"`
	Argv    []string `json:"argv"`
	// Decision and Hits ("layer:rule id", sorted) are what the traced Rego
	// evaluation answered; EngineDecision and EngineHits what the engine
	// answered for the segment ([Engine.Explain]).
	Decision       Decision `json:"decision"`
	Hits           []string `json:"hits"`
	EngineDecision Decision `json:"engine_decision"`
	EngineHits     []string `json:"engine_hits"`
	// Mismatch, when not empty, says how the traced evaluation and the
	// engine disagree.
	Mismatch string `json:"mismatch,omitempty"`
	// Error is the traced evaluation's error (its decision is then deny).
	Error string `json:"error,omitempty"`
	// Rules summarises each rule in scope: the layer rules (entered or not)
	// and every other rule of the scope that was entered, by location.
	Rules []RuleTrace `json:"rules"`
	// Skipped counts the layer rules in scope that the rule index kept
	// from being evaluated (listed one by one only with Indexing off).
	Skipped int `json:"skipped_by_index"`
	// Lines are the trace events in scope, in evaluation order, filtered
	// by the mode.
	Lines []TraceLine `json:"lines"`
	// Cut counts this segment's lines left out past MaxLines; EventsCut
	// reports that recording stopped before the evaluation ended.
	Cut       int  `json:"cut"`
	EventsCut bool `json:"events_cut"`
}

// Outcomes of a rule in a [RuleTrace].
const (
	RuleFired        = "fired"
	RuleNotFired     = "did not fire"
	RuleNotEvaluated = "not evaluated"
)

// RuleTrace is what became of one rule in a segment's evaluation.
type RuleTrace struct {
	// ID is the rule id its METADATA declares ("" for helper rules and the
	// generic YAML rules, whose hits carry the YAML rules' ids).
	ID string `json:"id,omitempty"`
	// Rule is the rule's path (data.rivumi.user.team.deny), Location its
	// file:line.
	Rule     string `json:"rule"`
	Layer    Layer  `json:"layer,omitempty"`
	Location string `json:"location"`
	// Outcome is RuleFired (its body held at least once), RuleNotFired
	// (entered, never held) or RuleNotEvaluated (never entered).
	Outcome string `json:"outcome"`
	// Fails counts the failed expressions of the rule's own body; Failed
	// holds the first of them with their variables' values.
	Fails  int         `json:"fails"`
	Failed []TraceLine `json:"failed,omitempty"`
}

// TraceLine is one event of OPA's evaluation.
type TraceLine struct {
	// Op is OPA's event: Enter, Eval, Exit, Fail, Redo, Index….
	Op string `json:"op"`
	// Depth is the nesting below the traced rule (0 for its Enter).
	Depth int `json:"depth"`
	// Location is file:line of the expression or rule.
	Location string `json:"location"`
	// Text is the expression as written (its first line), or the path of
	// the rule entered.
	Text string `json:"text"`
	// Vars are the values of the expression's variables at the event,
	// under the names the source gives them (a value the compiler bound to
	// a hidden variable is named by the source text it stands for).
	Vars []TraceVar `json:"vars,omitempty"`
}

// TraceVar is a variable's value at an event.
type TraceVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Trace grades text like [Engine.Explain] and evaluates each of its
// segments again through OPA with the tracer on. It returns the
// explanation (the engine's own answer) and the trace. The traced
// evaluation's decision and hits are compared with the engine's for every
// segment; a difference is recorded in the segment's Mismatch and counted
// in Trace.Mismatches, never dropped. A segment whose traced evaluation
// fails records the error. Trace fails only when the options are invalid
// (an unknown mode or rule id) or the Rego policy cannot be prepared.
// The engine's per-evaluation deadline ([EvalTimeout]) bounds the
// explanation and each segment's traced evaluation (one past it records
// the error).
func (e *Engine) Trace(ctx context.Context, text string, topts TraceOptions, opts ...EvalOption) (Explanation, *Trace, error) {
	mode, err := ParseTraceMode(string(topts.Mode))
	if err != nil {
		return Explanation{}, nil, err
	}
	rp, err := e.c.rego()
	if err != nil {
		return Explanation{}, nil, err
	}
	pq, err := rp.pq()
	if err != nil {
		return Explanation{}, nil, &PolicyError{Problems: astProblems(err)}
	}
	sc, err := e.traceScope(rp, topts)
	if err != nil {
		return Explanation{}, nil, err
	}
	x := e.Explain(ctx, text, opts...)
	t := &Trace{Mode: mode, Scope: sc.desc, Files: sc.files, Indexing: sc.index, Segments: []SegmentTrace{}}
	cmd := x.Command
	switch {
	case cmd == nil:
		t.Note = "nothing was evaluated: " + reasonText(x.Verdict)
		return x, t, nil
	case cmd.Shape.Limit != "":
		t.Note = "the command exceeds the parser's " + cmd.Shape.Limit + " limit: the engine denies it without evaluating the Rego"
		return x, t, nil
	case cmd.Shape.Error != nil:
		t.Note = "the command does not parse: the engine grades it by a floor scan of the raw text, not by the Rego"
		return x, t, nil
	case len(cmd.Segments) == 0:
		t.Note = "the command holds no segment: nothing was evaluated"
		return x, t, nil
	}
	c := newEvalConfig(opts)
	shape := shapeValue(&cmd.Shape)
	grants := e.withStanding(c.grants)
	budget := topts.MaxLines
	if budget == 0 {
		budget = DefaultTraceLines
	}
	for i, seg := range cmd.Segments {
		tr := &boundedTracer{max: maxTraceEvents}
		in := segmentInput(cmd, i, shape, grantedRules(grants, seg))
		sctx, cancel := e.deadline(ctx)
		res, err := pq.Eval(sctx, rego.EvalParsedInput(in), rego.EvalQueryTracer(tr), rego.EvalRuleIndexing(sc.index))
		cancel()
		st := SegmentTrace{Segment: seg.Index, Text: seg.Text, Argv: seg.Argv, EventsCut: tr.dropped > 0}
		var reasons []Reason
		if err == nil {
			st.Decision, reasons, err = e.segmentResult(res, seg)
		}
		if err != nil {
			st.Decision, st.Error = Deny, err.Error()
		}
		st.Hits = reasonIDs(reasons)
		var engineErr string
		st.EngineDecision, st.EngineHits, engineErr = engineSegment(x, i, seg)
		st.Mismatch = traceMismatch(st, engineErr)
		if st.Mismatch != "" {
			t.Mismatches++
		}
		st.Rules, st.Skipped = sc.summarize(tr.events)
		lines := sc.lines(mode, tr.events)
		if budget >= 0 && len(lines) > budget {
			st.Cut = len(lines) - budget
			lines = lines[:budget]
		}
		if budget > 0 {
			budget -= len(lines)
		}
		st.Lines = lines
		t.Lines += len(lines)
		t.Cut += st.Cut
		t.Segments = append(t.Segments, st)
	}
	return x, t, nil
}

// reasonText is a verdict's first reason, for a note.
func reasonText(v Verdict) string {
	if len(v.Reasons) == 0 {
		return v.Decision.String()
	}
	return v.Reasons[0].Rule + ": " + v.Reasons[0].Justification
}

// reasonIDs lists reasons as sorted "layer:rule" strings.
func reasonIDs(rs []Reason) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, string(r.Layer)+":"+r.Rule)
	}
	sort.Strings(out)
	return out
}

// engineSegment is the engine's decision and hits for segment i of x,
// or, when the engine's evaluation failed (it graded no segment), the
// verdict's decision and reasons and why it failed.
func engineSegment(x Explanation, i int, seg *parser.Segment) (Decision, []string, string) {
	if i >= len(x.Decisions) {
		return x.Verdict.Decision, reasonIDs(x.Verdict.Reasons), reasonText(x.Verdict)
	}
	var rs []Reason
	for _, h := range x.Hits {
		if h.Segment == seg.Index {
			rs = append(rs, h)
		}
	}
	return x.Decisions[i], reasonIDs(rs), ""
}

// traceMismatch says how the traced evaluation and the engine disagree
// on a segment, or "" when they agree. engineErr is why the engine's
// evaluation failed ("" when it graded the segment): when both failed they
// agree (the segment's Error says why the traced one did).
func traceMismatch(st SegmentTrace, engineErr string) string {
	switch {
	case st.Error != "" && engineErr != "":
		return ""
	case st.Error != "":
		return fmt.Sprintf("the traced Rego evaluation failed (%s), the engine answered %s", st.Error, st.EngineDecision)
	case engineErr != "":
		return fmt.Sprintf("the engine's evaluation failed (%s), the traced Rego evaluation decides %s", engineErr, st.Decision)
	}
	var diffs []string
	if st.Decision != st.EngineDecision {
		diffs = append(diffs, fmt.Sprintf("the traced Rego evaluation decides %s, the engine answered %s", st.Decision, st.EngineDecision))
	}
	if !slices.Equal(st.Hits, st.EngineHits) {
		diffs = append(diffs, fmt.Sprintf("the traced Rego hits are [%s], the engine's [%s]", strings.Join(st.Hits, " "), strings.Join(st.EngineHits, " ")))
	}
	return strings.Join(diffs, "; ")
}

// boundedTracer records the events of one evaluation, unifications left
// out, up to max.
type boundedTracer struct {
	events  []*topdown.Event
	max     int
	dropped int
}

func (t *boundedTracer) Enabled() bool { return true }

// Config asks for the local variables' values at each event.
func (t *boundedTracer) Config() topdown.TraceConfig {
	return topdown.TraceConfig{PlugLocalVars: true}
}

func (t *boundedTracer) TraceEvent(ev topdown.Event) {
	if ev.Op == topdown.UnifyOp {
		return
	}
	if len(t.events) >= t.max {
		t.dropped++
		return
	}
	t.events = append(t.events, &ev)
}

// traceScope is which rules a trace covers.
type traceScope struct {
	desc  string
	files []string
	// inFile holds the files whose rules are all in scope; rules (when
	// not nil) holds instead the rules in scope, by location.
	inFile map[string]bool
	rules  map[string]bool
	index  bool
	// layerRules are the layer rules in scope, in location order.
	layerRules []*ast.Rule
	// ids maps "file:line" of a rule to the id its METADATA declares.
	ids map[string]string
}

// ruleKey identifies a rule by where it is written.
func ruleKey(r *ast.Rule) string {
	if r.Location == nil {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", r.Location.File, r.Location.Row, r.Location.Col)
}

func lineOf(l *ast.Location) string {
	if l == nil {
		return "query"
	}
	return fmt.Sprintf("%s:%d", l.File, l.Row)
}

// layerOf is the layer a rule adds hits to: a partial set named floor,
// deny, ask or allow directly in its package; "" for any other rule.
func layerOf(r *ast.Rule) Layer {
	ref := r.Head.Ref()
	if r.Head.RuleKind() != ast.MultiValue || len(r.Head.Args) > 0 || len(ref) != 1 {
		return ""
	}
	return layerSets[ref[0].Value.String()]
}

// rulePath is the path of the document a rule defines
// (data.rivumi.user.team.deny).
func rulePath(r *ast.Rule) string {
	if r.Module == nil {
		return r.Head.Ref().String()
	}
	return r.Ref().ConstantPrefix().String()
}

func (sc *traceScope) has(r *ast.Rule) bool {
	if sc.rules != nil {
		return sc.rules[ruleKey(r)]
	}
	return r.Location != nil && sc.inFile[r.Location.File]
}

// traceScope works out the rules opts asks to trace over the compiled
// modules of rp.
func (e *Engine) traceScope(rp *regoPolicy, opts TraceOptions) (*traceScope, error) {
	mods := rp.compiler.Modules
	names := make([]string, 0, len(mods))
	for n := range mods {
		names = append(names, n)
	}
	sort.Strings(names)
	sc := &traceScope{inFile: map[string]bool{}, ids: map[string]string{}}
	for id, m := range e.c.meta {
		sc.ids[m.Location] = id
	}
	yamlName := "policies/" + yamlModule
	var team []string
	for _, n := range names {
		if mods[n].Package.Path.HasPrefix(userRef) || n == yamlName {
			team = append(team, n)
		}
	}
	switch {
	case len(opts.Rules) > 0:
		sc.rules = map[string]bool{}
		sc.index = false
		var known []string
		for id := range e.c.meta {
			known = append(known, id)
		}
		sort.Strings(known)
		for _, id := range opts.Rules {
			m, ok := e.c.meta[id]
			if !ok {
				if best, near := textdist.Closest(id, known); near {
					return nil, fmt.Errorf("no rule has the id %q (did you mean %q?)", id, best)
				}
				return nil, fmt.Errorf("no rule has the id %q", id)
			}
			found := false
			for _, n := range names {
				for _, r := range mods[n].Rules {
					// The rule that declares the id, and any other body whose
					// hit carries it.
					if layerOf(r) != "" && (lineOf(r.Location) == m.Location || hitID(r) == id) {
						sc.rules[ruleKey(r)], found = true, true
					}
				}
			}
			if !found && mods[yamlName] != nil && m.User {
				// A YAML rule: its hits come from the generic rule of its layer.
				for _, r := range mods[yamlName].Rules {
					if layerOf(r) == m.Layer {
						sc.rules[ruleKey(r)], found = true, true
					}
				}
			}
			if !found {
				return nil, fmt.Errorf("rule %s (%s) has no Rego rule to trace", id, m.Location)
			}
		}
		sc.desc = "the rules " + strings.Join(opts.Rules, ", ")
	case opts.All:
		sc.index = true
		for _, n := range names {
			sc.inFile[n] = true
		}
		sc.desc = "every module"
	case len(team) > 0:
		sc.index = false
		for _, n := range team {
			sc.inFile[n] = true
		}
		sc.desc = "the team's rules"
	default:
		sc.index = true
		rulesRef := ast.MustParseRef("data.rivumi.rules")
		for _, n := range names {
			if mods[n].Package.Path.Equal(rulesRef) {
				sc.inFile[n] = true
			}
		}
		sc.desc = "the built-in packs"
	}
	for _, n := range names {
		for _, r := range mods[n].Rules {
			if !sc.has(r) {
				continue
			}
			if !slices.Contains(sc.files, n) {
				sc.files = append(sc.files, n)
			}
			if layerOf(r) != "" {
				sc.layerRules = append(sc.layerRules, r)
			}
		}
	}
	return sc, nil
}

// walk follows the query tree of a trace: for each event, whether it runs
// inside a rule in scope and how deep below that rule's Enter.
type walk struct {
	sc    *traceScope
	in    map[uint64]bool
	depth map[uint64]int
	base  map[uint64]int
	alias map[ast.Var]string
}

func newWalk(sc *traceScope) *walk {
	return &walk{sc: sc, in: map[uint64]bool{}, depth: map[uint64]int{}, base: map[uint64]int{}, alias: map[ast.Var]string{}}
}

// see records ev; it must be called on every event, in order.
func (w *walk) see(ev *topdown.Event) {
	q := ev.QueryID
	if _, seen := w.depth[q]; !seen {
		w.depth[q] = w.depth[ev.ParentID] + 1
		w.in[q], w.base[q] = w.in[ev.ParentID], w.base[ev.ParentID]
	}
	if r, ok := ev.Node.(*ast.Rule); ok && ev.Op == topdown.EnterOp && !w.in[q] && w.sc.has(r) {
		w.in[q], w.base[q] = true, w.depth[q]
	}
	// A compiler-made variable bound to a term the source wrote
	// (`__local7__ = input.segment.flags` for `"k" in input.segment.flags`)
	// is named by that term's text.
	if x, ok := ev.Node.(*ast.Expr); ok && ev.Op == topdown.EvalOp && (x.IsEquality() || x.IsAssignment()) {
		if v, isVar := x.Operand(0).Value.(ast.Var); isVar && v.IsGenerated() && ev.Location != nil {
			if text := string(ev.Location.Text); text != "" && !strings.Contains(text, "\n") && len(text) <= 80 {
				w.alias[v] = text
			}
		}
	}
}

// line renders ev as a trace line.
func (w *walk) line(ev *topdown.Event) TraceLine {
	d := w.depth[ev.QueryID] - w.base[ev.QueryID]
	switch ev.Op {
	case topdown.EnterOp:
	case topdown.RedoOp:
		if _, isExpr := ev.Node.(*ast.Expr); isExpr {
			d++
		}
	default:
		d++
	}
	return TraceLine{Op: string(ev.Op), Depth: d, Location: lineOf(ev.Location), Text: eventText(ev), Vars: w.vars(ev)}
}

// eventText is what a trace line shows of ev's node: the rule's path, or
// the source text of the expression (its first line).
func eventText(ev *topdown.Event) string {
	var s string
	switch n := ev.Node.(type) {
	case *ast.Rule:
		s = rulePath(n)
	default:
		if ev.Ref != nil {
			s = ev.Ref.String()
		} else if ev.Location != nil && len(ev.Location.Text) > 0 {
			s = string(ev.Location.Text)
		} else if ev.Node != nil {
			s = fmt.Sprint(ev.Node)
		}
	}
	if first, _, multi := strings.Cut(s, "\n"); multi {
		s = strings.TrimRight(first, " \t") + " …"
	}
	if ev.Message != "" {
		s += " (" + ev.Message + ")"
	}
	return s
}

// vars are the values of the variables ev's node names (a rule's head
// only), under their source names, sorted by name.
func (w *walk) vars(ev *topdown.Event) []TraceVar {
	var node any = ev.Node
	switch n := ev.Node.(type) {
	case *ast.Rule:
		node = n.Head
	case *ast.Expr:
	default:
		return nil
	}
	seen := map[string]bool{}
	var out []TraceVar
	ast.WalkVars(node, func(v ast.Var) bool {
		if ev.Locals == nil {
			return true
		}
		val := ev.Locals.Get(v)
		if val == nil {
			return false
		}
		name := ""
		if md, ok := ev.LocalMetadata[v]; ok && !md.Name.IsGenerated() {
			name = string(md.Name)
		} else if a, ok := w.alias[v]; ok {
			name = a
		}
		if name == "" || seen[name] {
			return false
		}
		seen[name] = true
		out = append(out, TraceVar{Name: name, Value: truncate(val.String(), maxTraceValue)})
		return false
	})
	if x, ok := node.(*ast.Expr); ok && ev.Input() != nil {
		out = append(out, inputValues(ev, x, seen)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// inputValues are the values of the parts of the input an expression
// reads (input.segment.flags, input.segment.options["data"]): each input
// reference with its bound variables filled in, up to its first unbound
// one.
func inputValues(ev *topdown.Event, x *ast.Expr, seen map[string]bool) []TraceVar {
	var out []TraceVar
	ast.WalkRefs(x, func(r ast.Ref) bool {
		if !r[0].Equal(ast.InputRootDocument) {
			return false
		}
		p := make(ast.Ref, len(r))
		copy(p, r)
		for i := 1; i < len(p); i++ {
			if v, isVar := p[i].Value.(ast.Var); isVar && ev.Locals != nil {
				if val := ev.Locals.Get(v); val != nil {
					p[i] = ast.NewTerm(val)
				}
			}
		}
		p = p.GroundPrefix()
		if len(p) < 2 {
			return false
		}
		name := p.String()
		if seen[name] {
			return false
		}
		seen[name] = true
		val, err := ev.Input().Value.Find(p[1:])
		value := "undefined"
		if err == nil {
			value = truncate(val.String(), maxTraceValue)
		}
		out = append(out, TraceVar{Name: name, Value: value})
		return false
	})
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// lines are the events of a trace kept by mode that run inside a rule in
// scope.
func (sc *traceScope) lines(mode TraceMode, events []*topdown.Event) []TraceLine {
	w := newWalk(sc)
	for _, ev := range events {
		w.see(ev)
	}
	kept := lineage.Full(events)
	if mode == TraceFails {
		kept = lineage.Fails(events)
	}
	out := []TraceLine{}
	for _, ev := range kept {
		if w.in[ev.QueryID] {
			out = append(out, w.line(ev))
		}
	}
	return out
}

// summarize tells what became of each rule in scope, and counts the layer
// rules the index kept out when they are not listed.
func (sc *traceScope) summarize(events []*topdown.Event) ([]RuleTrace, int) {
	w := newWalk(sc)
	type state struct {
		r       *ast.Rule
		queries map[uint64]bool
		rt      RuleTrace
	}
	byKey := map[string]*state{}
	byQuery := map[uint64]*state{}
	var order []string
	for _, ev := range events {
		w.see(ev)
		if r, ok := ev.Node.(*ast.Rule); ok && ev.Op == topdown.EnterOp && sc.has(r) {
			k := ruleKey(r)
			s := byKey[k]
			if s == nil {
				s = &state{r: r, queries: map[uint64]bool{}, rt: sc.ruleTrace(r, RuleNotFired)}
				byKey[k] = s
				order = append(order, k)
			}
			byQuery[ev.QueryID] = s
			continue
		}
		s := byQuery[ev.QueryID]
		if s == nil {
			continue
		}
		switch ev.Op {
		case topdown.ExitOp:
			if _, isRule := ev.Node.(*ast.Rule); isRule {
				s.rt.Outcome = RuleFired
			}
		case topdown.FailOp:
			s.rt.Fails++
			if len(s.rt.Failed) < maxRuleFails {
				l := w.line(ev)
				l.Depth = 0
				s.rt.Failed = append(s.rt.Failed, l)
			}
		}
	}
	skipped := 0
	for _, r := range sc.layerRules {
		k := ruleKey(r)
		if byKey[k] != nil {
			continue
		}
		if sc.index {
			skipped++
			continue
		}
		byKey[k] = &state{r: r, rt: sc.ruleTrace(r, RuleNotEvaluated)}
		order = append(order, k)
	}
	out := make([]RuleTrace, 0, len(order))
	for _, k := range order {
		out = append(out, byKey[k].rt)
	}
	sort.SliceStable(out, func(i, j int) bool { return lessLocation(out[i].Location, out[j].Location) })
	return out, skipped
}

func (sc *traceScope) ruleTrace(r *ast.Rule, outcome string) RuleTrace {
	loc := lineOf(r.Location)
	id := sc.ids[loc]
	if id == "" {
		id = hitID(r) // a second body of a rule declared above
	}
	return RuleTrace{ID: id, Rule: rulePath(r), Layer: layerOf(r), Location: loc, Outcome: outcome}
}

// lessLocation orders "file:line" by file, then line as a number.
func lessLocation(a, b string) bool {
	fa, la := splitLocation(a)
	fb, lb := splitLocation(b)
	if fa != fb {
		return fa < fb
	}
	return la < lb
}

func splitLocation(s string) (string, int) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	n := 0
	for _, c := range s[i+1:] {
		if c < '0' || c > '9' {
			return s, 0
		}
		n = n*10 + int(c-'0')
	}
	return s[:i], n
}
