package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/rivumi/rivumi/codescan"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/policies/native"
)

// Engine grades commands. Create it with [New]; it is safe for concurrent
// use.
type Engine struct {
	c        *compiled
	cache    *hitCache
	verdicts *verdictCache
	timeout  time.Duration // per evaluation; 0: none of its own
}

// New loads and compiles the embedded packs plus the user packs named by
// opts. It returns a *PolicyError (file:line:col per problem) when any
// policy fails to parse, compile, or declare its METADATA.
func New(ctx context.Context, opts ...Option) (*Engine, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	// Compiling allocates ~6 MB of short-lived garbage; collecting it while
	// compiling only delays the first verdict, so the collector pauses until
	// New returns (it is a process-wide setting, restored on return).
	defer pauseGC()()
	c, err := compile(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	size := DefaultCacheSize
	if cfg.cacheSize != nil {
		size = *cfg.cacheSize
	}
	timeout := DefaultEvalTimeout
	if cfg.evalTimeout != nil {
		timeout = max(*cfg.evalTimeout, 0)
	}
	return &Engine{c: c, cache: newHitCache(size), verdicts: newVerdictCache(size), timeout: timeout}, nil
}

// gcPause counts the New calls in progress: the first pauses the collector,
// the last restores the setting found then (concurrent New calls must not
// restore each other's -1 and leave it off).
var gcPause struct {
	sync.Mutex
	n     int
	saved int
}

func pauseGC() (resume func()) {
	gcPause.Lock()
	if gcPause.n == 0 {
		gcPause.saved = debug.SetGCPercent(-1)
	}
	gcPause.n++
	gcPause.Unlock()
	return func() {
		gcPause.Lock()
		gcPause.n--
		if gcPause.n == 0 {
			debug.SetGCPercent(gcPause.saved)
		}
		gcPause.Unlock()
	}
}

// PolicyHash identifies the compiled policy (sources and data).
func (e *Engine) PolicyHash() string { return e.c.hash }

// Rules returns the METADATA of every rule, by id.
func (e *Engine) Rules() map[string]RuleMeta {
	out := make(map[string]RuleMeta, len(e.c.meta))
	for k, v := range e.c.meta {
		out[k] = v
	}
	return out
}

// Engine-made rule ids (reasons that do not come from a Rego rule).
const (
	RuleLimit      = "engine.limit"
	RuleParseError = "engine.parse-error"
	RuleEvalError  = "engine.error"
	RuleUnknownID  = "engine.unknown-rule"
	RuleFallback   = "fallback.uncovered"
	RuleEmpty      = "engine.empty"
	// RuleInternal is a panic inside parsing or grading, recovered: the
	// command is denied and the reason names the failure.
	RuleInternal = "engine.internal-error"
	// RuleBadInput is a request that could not be read (malformed JSON,
	// an unknown, case-variant or duplicate key): denied, naming the field.
	RuleBadInput = "engine.bad-input"
	// RuleTimeout is an evaluation that ran past its deadline.
	RuleTimeout = "engine.timeout"
)

// testPanic, set only by tests, runs before a text is parsed (to prove that a
// panic in grading is denied).
var testPanic func(text string)

// recoverDeny turns a panic in grading into a deny verdict in *v. Deferred
// by every Evaluate entry point, so a bug in the parser, a scanner or the
// engine never ends the process or reads as a verdict.
func (e *Engine) recoverDeny(v *Verdict) {
	if r := recover(); r != nil {
		*v = e.fail(RuleInternal, LayerEngine, fmt.Sprintf("internal error while grading (denied): %v", r))
	}
}

func (c *evalConfig) parserOptions() []parser.Option {
	var o []parser.Option
	if c.shell != "" {
		o = append(o, parser.Shell(c.shell))
	}
	if c.workspace != "" {
		o = append(o, parser.Workspace(c.workspace))
	}
	if c.cwd != "" {
		o = append(o, parser.Cwd(c.cwd))
	}
	if c.home != "" {
		o = append(o, parser.Home(c.home))
	}
	if c.follow {
		o = append(o, parser.FollowSymlinks())
	}
	return o
}

func newEvalConfig(opts []EvalOption) *evalConfig {
	c := &evalConfig{}
	for _, o := range opts {
		o(c)
	}
	return c
}

// validate checks the evaluation's context ([Context.Validate]).
func (c *evalConfig) validate() error {
	return Context{Cwd: c.cwd, Workspace: c.workspace, Home: c.home, Shell: c.shell, Grants: c.grants}.Validate()
}

func (e *Engine) badContext(err error) Verdict {
	return e.fail(RuleBadInput, LayerEngine, "cannot grade: "+err.Error())
}

// EvaluateText parses text and grades it. A context already done denies,
// even for a command graded before.
func (e *Engine) EvaluateText(ctx context.Context, text string, opts ...EvalOption) (v Verdict) {
	defer e.recoverDeny(&v)
	if err := ctx.Err(); err != nil {
		return e.ctxFail(err)
	}
	c := newEvalConfig(opts)
	if err := c.validate(); err != nil {
		return e.badContext(err)
	}
	cacheable := e.verdicts != nil && len(text) <= maxCachedText && !c.follow
	var key string
	if cacheable {
		key = verdictKey(text, c)
		if v, ok := e.verdicts.get(key); ok {
			return v
		}
	}
	if testPanic != nil {
		testPanic(text)
	}
	ctx, cancel := e.deadline(ctx)
	defer cancel()
	cmd, _ := parser.Parse(text, e.parserOptions(c)...)
	v, ok := e.evaluate(ctx, cmd, c)
	if ok && cacheable {
		e.verdicts.put(key, v)
	}
	return v
}

// EvaluateArgv grades an argv that will be executed without a shell.
func (e *Engine) EvaluateArgv(ctx context.Context, argv []string, opts ...EvalOption) (v Verdict) {
	defer e.recoverDeny(&v)
	ctx, cancel := e.deadline(ctx)
	defer cancel()
	c := newEvalConfig(opts)
	if err := c.validate(); err != nil {
		return e.badContext(err)
	}
	cmd, err := parser.FromArgv(argv, e.parserOptions(c)...)
	if err != nil {
		return e.fail(RuleEvalError, LayerEngine, "cannot grade argv: "+err.Error())
	}
	v, _ = e.evaluate(ctx, cmd, c)
	return v
}

// Evaluate grades a parsed command. Only the grants of opts are used (the
// command was parsed with its own cwd, workspace and shell, and with
// [Engine.ParserOptions], so that it reads the configuration's programs).
func (e *Engine) Evaluate(ctx context.Context, cmd *parser.Command, opts ...EvalOption) (v Verdict) {
	defer e.recoverDeny(&v)
	ctx, cancel := e.deadline(ctx)
	defer cancel()
	v, _ = e.evaluate(ctx, cmd, newEvalConfig(opts))
	return v
}

// deadline bounds one evaluation by the engine's timeout (a sooner
// deadline of ctx stays). When ctx already ends no later than the
// timeout would, ctx is the bound: a server that set its own deadline
// pays for one timer, not two.
func (e *Engine) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if e.timeout <= 0 {
		return ctx, noCancel
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= e.timeout {
		return ctx, noCancel
	}
	return context.WithTimeout(ctx, e.timeout)
}

func noCancel() {}

// ctxFail is the verdict of an evaluation whose context ended: a deadline
// is engine.timeout, a cancellation engine.error; both deny.
func (e *Engine) ctxFail(err error) Verdict {
	if errors.Is(err, context.DeadlineExceeded) {
		return e.fail(RuleTimeout, LayerEngine, "the evaluation passed its deadline (denied): "+err.Error())
	}
	return e.fail(RuleEvalError, LayerEngine, "evaluation cancelled: "+err.Error())
}

func (e *Engine) fail(rule string, layer Layer, why string) Verdict {
	return Verdict{Decision: Deny, Policy: e.c.hash, Reasons: []Reason{{
		Rule: rule, Layer: layer, Decision: Deny, Segment: -1, Title: why, Justification: why,
	}}}
}

// evaluate grades cmd; ok is false when the evaluation failed (the verdict
// then denies) rather than graded.
func (e *Engine) evaluate(ctx context.Context, cmd *parser.Command, c *evalConfig) (v Verdict, ok bool) {
	v, _, ok = e.evaluateAll(ctx, cmd, c, false)
	v.Reasons = deciding(v.Decision, v.Reasons)
	v.Policy = policyWithGrants(v.Policy, c.grants)
	return v, ok
}

// policyWithGrants is the policy hash a verdict names: the compiled
// policy's (which covers the standing grants of the configuration) mixed
// with the call's grants (a workspace's `rivumi grant add` store among
// them), in any order, so the same hash never answers ask and allow.
// Without grants it is the compiled hash itself.
func policyWithGrants(hash string, grants []Grant) string {
	if len(grants) == 0 || hash == "" {
		return hash
	}
	keys := make([]string, 0, len(grants))
	for _, g := range grants {
		b, _ := json.Marshal(g)
		keys = append(keys, string(b))
	}
	slices.Sort(keys)
	h := sha256.New()
	h.Write([]byte(hash + "\x00grants\x00" + strings.Join(keys, "\n")))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// evaluateAll grades cmd and returns the verdict with the reasons of every
// segment, each segment's own decision, and false when the evaluation
// failed (the verdict then denies). With full, the reasons are every
// hit of every layer; without, a segment's allow layer is evaluated only
// when nothing stricter decided it (the verdict keeps only the deciding
// layer's reasons).
func (e *Engine) evaluateAll(ctx context.Context, cmd *parser.Command, c *evalConfig, full bool) (Verdict, []Decision, bool) {
	if cmd == nil {
		return e.fail(RuleEvalError, LayerEngine, "no command"), nil, false
	}
	if cmd.Shape.Limit != "" {
		return e.fail(RuleLimit, LayerEngine, fmt.Sprintf("the command exceeds the parser's %s limit; it cannot be graded", cmd.Shape.Limit)), nil, true
	}
	if pe := cmd.Shape.Error; pe != nil {
		return e.parseError(cmd, pe), nil, true
	}
	if len(cmd.Segments) == 0 {
		return Verdict{Decision: Allow, Policy: e.c.hash, Reasons: []Reason{{
			Rule: RuleEmpty, Layer: LayerEngine, Decision: Allow, Segment: -1,
			Title: "Nothing to run", Justification: "The text holds no command (only blanks or comments).",
		}}}, nil, true
	}
	// With the Go rules (e.c.native) nothing of OPA runs: run stays nil.
	var run *evalRun
	var shape *ast.Term
	if e.c.native == nil {
		rp, err := e.c.rego()
		if err == nil {
			run, err = rp.hits.start(ctx)
		}
		if err != nil {
			if ctx.Err() != nil {
				return e.ctxFail(ctx.Err()), nil, false
			}
			return e.fail(RuleEvalError, LayerEngine, "policy evaluation failed: "+err.Error()), nil, false
		}
		defer run.close()
		shape = shapeValue(&cmd.Shape)
	}
	v := Verdict{Decision: Allow, Policy: e.c.hash, Reasons: []Reason{}}
	decisions := make([]Decision, len(cmd.Segments))
	for i, seg := range cmd.Segments {
		if err := ctx.Err(); err != nil {
			return e.ctxFail(err), nil, false
		}
		all := e.withStanding(c.grants) // standing grants from configuration (engine/disable.go)
		granted := grantedRules(all, seg)
		d, reasons, err := e.gradeSegment(run, cmd, i, shape, granted, full)
		if err != nil {
			if ctx.Err() != nil {
				return e.ctxFail(ctx.Err()), nil, false
			}
			return e.fail(RuleEvalError, LayerEngine, err.Error()), nil, false
		}
		if len(granted) > 0 {
			usedGrants(&v, all, seg, reasons)
		}
		decisions[i] = d
		v.Decision = Max(v.Decision, d)
		v.Reasons = append(v.Reasons, reasons...)
	}
	return v, decisions, true
}

// Explanation is a verdict with everything behind it: the parsed command,
// each segment's own decision and every rule hit of every layer.
type Explanation struct {
	Command   *parser.Command `json:"command"`
	Decisions []Decision      `json:"segment_decisions"`
	Hits      []Reason        `json:"hits"`
	Verdict   Verdict         `json:"verdict"`
}

// Explain grades text like EvaluateText and returns the whole story.
func (e *Engine) Explain(ctx context.Context, text string, opts ...EvalOption) Explanation {
	ctx, cancel := e.deadline(ctx)
	defer cancel()
	c := newEvalConfig(opts)
	if err := c.validate(); err != nil {
		return Explanation{Verdict: e.badContext(err)}
	}
	cmd, _ := parser.Parse(text, e.parserOptions(c)...)
	all, decisions, _ := e.evaluateAll(ctx, cmd, c, true)
	hits := append([]Reason(nil), all.Reasons...)
	v := all
	v.Reasons = deciding(v.Decision, append([]Reason(nil), all.Reasons...))
	return Explanation{Command: cmd, Decisions: decisions, Hits: hits, Verdict: v}
}

// deciding keeps the reasons that carry the verdict: for deny the deny
// reasons, for ask the asks, for allow the allows.
func deciding(d Decision, rs []Reason) []Reason {
	out := make([]Reason, 0, len(rs))
	for _, r := range rs {
		if r.Decision == d {
			out = append(out, r)
		}
	}
	return out
}

// nativeHits grades one segment with the Go rules (policies/native): the
// gate layers, then allow when it can change the decision (or full asks
// for every hit). It needs no cache: it costs less than a lookup.
func (e *Engine) nativeHits(seg *parser.Segment, gs map[string]bool, full bool) layerHits {
	nr := e.c.native
	s := native.NewSeg(seg)
	h := layerHits{floor: nr.Hits(native.Floor, s), deny: nr.Hits(native.Deny, s), ask: nr.Hits(native.Ask, s)}
	if full || e.needsAllow(h, gs) {
		h.allow, h.allowKnown = nr.Hits(native.Allow, s), true
	}
	return h
}

// regoHits grades one segment with OPA (cached layer hits): the gate
// query, then the allow query when it can change the decision, when full
// asks for every hit, or when the engine loaded anything a team wrote.
func (e *Engine) regoHits(run *evalRun, cmd *parser.Command, i int, shape *ast.Term, granted []string, gs map[string]bool, full bool) (layerHits, error) {
	in := segmentInput(cmd, i, shape, granted)
	h, cached := e.cache.get(in)
	input := ast.NewTerm(in)
	if !cached {
		var err error
		if h, err = run.gateHits(input); err != nil {
			return h, fmt.Errorf("policy evaluation failed: %v", err)
		}
	}
	if !h.allowKnown && (full || run.q.alwaysAllow || e.needsAllow(h, gs)) {
		var err error
		if h.allow, err = run.allowHits(input); err != nil {
			return h, fmt.Errorf("policy evaluation failed: %v", err)
		}
		h.allowKnown = true
		cached = false
	}
	if !cached && len(cmd.Text) <= maxCachedText {
		e.cache.put(in, h)
	}
	return h, nil
}

// gradeSegment grades one segment and returns its decision and reasons:
// the layer hits come from the Go rules when run is nil (nativeHits), from
// OPA otherwise (regoHits), and the layering is applied in Go.
func (e *Engine) gradeSegment(run *evalRun, cmd *parser.Command, i int, shape *ast.Term, granted []string, full bool) (Decision, []Reason, error) {
	seg := cmd.Segments[i]
	gs := make(map[string]bool, len(granted))
	for _, g := range granted {
		gs[g] = grant.Grantable(seg) // policies/main.rego: no grant on a runs-anything segment
	}
	var h layerHits
	if run == nil {
		h = e.nativeHits(seg, gs, full)
	} else {
		var err error
		if h, err = e.regoHits(run, cmd, i, shape, granted, gs, full); err != nil {
			return Deny, nil, err
		}
	}
	l := e.layer(h, gs)
	var reasons []Reason
	for _, group := range []struct {
		ids   []string
		layer Layer
		dec   Decision
	}{{l.floor, LayerFloor, Deny}, {l.deny, LayerDeny, Deny}, {l.openAsks, LayerAsk, Ask}, {l.grantedAsk, LayerGrant, Allow}, {l.allow, LayerAllow, Allow}} {
		for _, id := range group.ids {
			m, known := e.c.meta[id]
			if !known {
				return Deny, nil, fmt.Errorf("segment %d: rule id %q has no METADATA: unknown rules deny", seg.Index, id)
			}
			reasons = append(reasons, Reason{
				Rule: id, Layer: group.layer, Decision: group.dec, Segment: seg.Index, Title: m.Title,
				Justification: m.Justification, Text: seg.Text, Prefix: grantPrefix(seg), Grantable: m.Grantable() && grant.Grantable(seg),
			})
		}
	}
	if l.decision == Ask && len(l.openAsks) == 0 {
		reasons = append(reasons, fallbackReason(seg))
	}
	sort.SliceStable(reasons, func(i, j int) bool {
		if reasons[i].Decision != reasons[j].Decision {
			return reasons[i].Decision > reasons[j].Decision
		}
		return reasons[i].Rule < reasons[j].Rule
	})
	return l.decision, reasons, nil
}

func fallbackReason(seg *parser.Segment) Reason {
	return Reason{
		Rule: RuleFallback, Layer: LayerFallback, Decision: Ask, Segment: seg.Index,
		Title:         "No rule covers this command",
		Justification: "Nothing allows " + describe(seg) + "; rivumi asks for anything it does not know.",
		Text:          seg.Text, Prefix: grantPrefix(seg), Suggest: suggest(seg),
	}
}

// segmentResult reads one evaluation of data.rivumi.main.result (the
// layering in Rego), for the test that proves the fast path identical.
func (e *Engine) segmentResult(res rego.ResultSet, seg *parser.Segment) (Decision, []Reason, error) {
	if len(res) != 1 || len(res[0].Expressions) != 1 {
		return Deny, nil, fmt.Errorf("policy returned no result for segment %d", seg.Index)
	}
	obj, ok := res[0].Expressions[0].Value.(map[string]any)
	if !ok {
		return Deny, nil, fmt.Errorf("policy result for segment %d is not an object", seg.Index)
	}
	ds, _ := obj["decision"].(string)
	d, err := ParseDecision(ds)
	if err != nil {
		return Deny, nil, fmt.Errorf("segment %d: %v", seg.Index, err)
	}
	var reasons []Reason
	add := func(key string, layer Layer, dec Decision) error {
		hits, _ := obj[key].([]any)
		for _, h := range hits {
			hm, _ := h.(map[string]any)
			id, _ := hm["id"].(string)
			m, known := e.c.meta[id]
			if !known {
				return fmt.Errorf("segment %d: rule id %q has no METADATA: unknown rules deny", seg.Index, id)
			}
			reasons = append(reasons, Reason{
				Rule: id, Layer: layer, Decision: dec, Segment: seg.Index, Title: m.Title,
				Justification: m.Justification, Text: seg.Text, Prefix: grantPrefix(seg), Grantable: m.Grantable() && grant.Grantable(seg),
			})
		}
		return nil
	}
	for _, l := range []struct {
		key   string
		layer Layer
		dec   Decision
	}{{"floor", LayerFloor, Deny}, {"deny", LayerDeny, Deny}, {"ask", LayerAsk, Ask}, {"granted", LayerGrant, Allow}, {"allow", LayerAllow, Allow}} {
		if err := add(l.key, l.layer, l.dec); err != nil {
			return Deny, nil, err
		}
	}
	if d == Ask && !hasDecision(reasons, Ask) {
		reasons = append(reasons, fallbackReason(seg))
	}
	sort.SliceStable(reasons, func(i, j int) bool {
		if reasons[i].Decision != reasons[j].Decision {
			return reasons[i].Decision > reasons[j].Decision
		}
		return reasons[i].Rule < reasons[j].Rule
	})
	return d, reasons, nil
}

func hasDecision(rs []Reason, d Decision) bool {
	for _, r := range rs {
		if r.Decision == d {
			return true
		}
	}
	return false
}

// prefix is the argv prefix a grant for this segment records: the program
// and, for programs with subcommands, the subcommand.
func prefix(s *parser.Segment) []string {
	if s.Program == "" {
		return nil
	}
	if s.Subcommand != "" {
		return []string{s.Program, s.Subcommand}
	}
	return []string{s.Program}
}

func describe(s *parser.Segment) string {
	p := strings.Join(prefix(s), " ")
	if p == "" {
		return "this command"
	}
	return "`" + p + "`"
}

// suggest offers a YAML prefix rule that would cover the segment.
func suggest(s *parser.Segment) string {
	p := prefix(s)
	if len(p) == 0 {
		return ""
	}
	return SuggestRule(p, strings.Join(s.Argv, " "))
}

// SuggestRule is the YAML allow rule a user could paste to cover the
// commands that start with prefix, with example as its match example.
func SuggestRule(prefix []string, example string) string {
	return fmt.Sprintf("- id: team.allow-%s\n  pattern: [%s]\n  decision: allow\n  justification: <why this is safe>\n  match: [%q]",
		strings.Join(prefix, "-"), strings.Join(prefix, ", "), example)
}

// grantPrefix is the prefix a grant for seg records ([Reason.Prefix]):
// the program in [parser.Segment.GrantWord]'s form, then the subcommand.
// It is nil when the program cannot be pinned down (no grant is offered).
func grantPrefix(s *parser.Segment) []string {
	p := prefix(s)
	if len(p) == 0 {
		return nil
	}
	w := s.GrantWord()
	if w == "" {
		return nil
	}
	p[0] = w
	return p
}

// grantedRules returns the ask rule ids the grants cancel on seg: those of
// every grant that matches it ([grant.Matches]).
func grantedRules(grants []Grant, seg *parser.Segment) []string {
	var out []string
	for _, g := range grants {
		if grant.Matches(g, seg) {
			out = append(out, g.Rules...)
		}
	}
	return out
}

// usedGrants adds to v.Grants the grants that cancelled an ask of seg's
// reasons.
func usedGrants(v *Verdict, grants []Grant, seg *parser.Segment, reasons []Reason) {
	for _, g := range grants {
		if !grant.Matches(g, seg) || slices.ContainsFunc(v.Grants, func(u Grant) bool { return grantEqual(u, g) }) {
			continue
		}
		if slices.ContainsFunc(reasons, func(r Reason) bool { return r.Layer == LayerGrant && slices.Contains(g.Rules, r.Rule) }) {
			v.Grants = append(v.Grants, Grant{Prefix: slices.Clone(g.Prefix), Rules: slices.Clone(g.Rules)})
		}
	}
}

func grantEqual(a, b Grant) bool {
	return slices.Equal(a.Prefix, b.Prefix) && slices.Equal(a.Rules, b.Rules)
}

// parseError grades text the parser rejected: a floor scan over the raw
// text denies on a hit; otherwise ask.
func (e *Engine) parseError(cmd *parser.Command, pe *parser.ParseError) Verdict {
	if hits := codescan.Floor(cmd.Text); len(hits) > 0 {
		v := Verdict{Decision: Deny, Policy: e.c.hash}
		for _, id := range hits {
			r := Reason{Rule: id, Layer: LayerFloor, Decision: Deny, Segment: -1, Text: cmd.Text}
			if m, ok := e.c.meta[id]; ok {
				r.Title, r.Justification = m.Title, m.Justification
			} else {
				r.Title, r.Justification = "Critical shape in unparsable text", "The text does not parse, and it contains a shape the floor forbids."
			}
			v.Reasons = append(v.Reasons, r)
		}
		return v
	}
	return Verdict{Decision: Ask, Policy: e.c.hash, Reasons: []Reason{{
		Rule: RuleParseError, Layer: LayerEngine, Decision: Ask, Segment: -1,
		Title:         "The command does not parse",
		Justification: fmt.Sprintf("%d:%d: %s; rivumi cannot see what it would run.", pe.Line, pe.Col, pe.Msg),
		Text:          cmd.Text,
	}}}
}
