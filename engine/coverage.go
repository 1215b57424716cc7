package engine

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/format"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/policies"
)

// This file holds the engine's tools for policy authors: Rego unit tests
// (OPA's tester), coverage (OPA's cover tracer) and canonical formatting
// (OPA's format), so that OPA stays behind the engine package.

// FormatRego returns src in canonical form (as `opa fmt` writes it, Rego
// v1). A module that does not parse is a *PolicyError (file:line:col).
func FormatRego(name string, src []byte) ([]byte, error) {
	out, err := format.SourceWithOpts(name, src, format.Opts{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, &PolicyError{Problems: astProblems(err)}
	}
	return out, nil
}

// RegoTestResult is the outcome of one Rego unit test (a test_ rule in a
// *_test.rego module).
type RegoTestResult struct {
	Name     string        `json:"name"`    // data.<package>.<rule>
	Package  string        `json:"package"` // data.<package>
	File     string        `json:"file"`
	Line     int           `json:"line"`
	Passed   bool          `json:"passed"`
	Skipped  bool          `json:"skipped,omitempty"`
	Failure  string        `json:"failure,omitempty"` // the failing expression, or the error
	Output   string        `json:"output,omitempty"`  // what print() wrote
	Duration time.Duration `json:"duration"`
}

// RegoTestOptions configures [Engine.RunRegoTests].
type RegoTestOptions struct {
	// Sources are test modules besides the built-in ones (the
	// *_test.rego files of user packs).
	Sources []Source
	// Run, when set, runs only the tests whose name (data.pkg.test_x)
	// matches this regular expression.
	Run string
	// Coverage, when non-nil, records the rules and lines the tests reach.
	Coverage *Coverage
	// Timeout bounds each test (default 5s).
	Timeout time.Duration
	// SkipBuiltin leaves out the built-in packs' own tests ([BuiltinTests]):
	// a team testing its pack runs its tests only.
	SkipBuiltin bool
}

// BuiltinTests returns the *_test.rego modules of the embedded packs.
func BuiltinTests() []Source {
	var out []Source
	_ = fs.WalkDir(policies.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.rego") {
			return err
		}
		b, err := fs.ReadFile(policies.FS, p)
		if err != nil {
			return err
		}
		out = append(out, Source{Name: "policies/" + p, Text: string(b)})
		return nil
	})
	return out
}

// RunRegoTests runs the Rego unit tests of the built-in packs and of
// o.Sources against the engine's compiled modules and data, with OPA's
// tester. A test module that does not parse or compile is a *PolicyError.
// Results are sorted by file and line.
func (e *Engine) RunRegoTests(ctx context.Context, o RegoTestOptions) ([]RegoTestResult, error) {
	rp, err := e.c.rego()
	if err != nil {
		return nil, err
	}
	modules := make(map[string]*ast.Module, len(rp.modules))
	for name, m := range rp.modules {
		modules[name] = m // runTests copies
	}
	var problems []string
	for _, f := range e.c.testOnly {
		m, err := ast.ParseModuleWithOpts(f.name, f.text, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			problems = append(problems, astProblems(err)...)
			continue
		}
		modules[f.name] = m
	}
	var builtin []Source
	if !o.SkipBuiltin {
		builtin = BuiltinTests()
	}
	for _, s := range append(builtin, o.Sources...) {
		m, err := ast.ParseModuleWithOpts(s.Name, s.Text, ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1})
		if err != nil {
			problems = append(problems, astProblems(err)...)
			continue
		}
		if _, dup := modules[s.Name]; dup {
			problems = append(problems, fmt.Sprintf("%s: loaded twice", s.Name))
			continue
		}
		modules[s.Name] = m
	}
	if len(problems) > 0 {
		return nil, &PolicyError{Problems: problems}
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	var cov *cover.Cover
	if o.Coverage != nil {
		cov = o.Coverage.cov
	}
	res, err := e.runTests(ctx, modules, o.Run, timeout, false, cov)
	if err != nil {
		return nil, err
	}
	// OPA does not say which expression failed; a second run of the failed
	// tests with tracing on finds the last expression of the test module
	// that failed.
	var failed []string
	for _, r := range res {
		if !r.Pass() && !r.Skip && r.Error == nil {
			failed = append(failed, regexp.QuoteMeta(r.Package+"."+r.Name))
		}
	}
	traced := map[string]*tester.Result{}
	if len(failed) > 0 {
		again, err := e.runTests(ctx, modules, "^("+strings.Join(failed, "|")+")$", timeout, true, nil)
		if err == nil {
			for _, r := range again {
				traced[r.Package+"."+r.Name] = r
			}
		}
	}
	var out []RegoTestResult
	for _, r := range res {
		t := regoResult(r)
		if tr := traced[t.Name]; tr != nil && t.Failure != "" {
			if at := failedAt(tr); at != "" {
				t.Failure = at
			}
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	if o.Coverage != nil {
		o.Coverage.ranTests = true
	}
	return out, nil
}

func (e *Engine) runTests(ctx context.Context, modules map[string]*ast.Module, run string, timeout time.Duration, trace bool, cov *cover.Cover) ([]*tester.Result, error) {
	mods := make(map[string]*ast.Module, len(modules))
	for name, m := range modules {
		mods[name] = m.Copy()
	}
	data, err := e.c.data()
	if err != nil {
		return nil, err
	}
	compiler := ast.NewCompiler().
		WithCapabilities(testCapabilities()).
		WithEnablePrintStatements(true).
		WithDefaultRegoVersion(ast.RegoV1)
	r := tester.NewRunner().
		SetCompiler(compiler).
		SetStore(inmem.NewFromObject(data)).
		SetModules(mods).
		SetDefaultRegoVersion(ast.RegoV1).
		RaiseBuiltinErrors(true).
		CapturePrintOutput(true).
		EnableTracing(trace).
		SetTimeout(timeout).
		Filter(run).
		SetCoverageRuns(nil)
	if cov != nil {
		r.SetCoverageQueryTracer(cov)
	}
	ch, err := r.RunTests(ctx, nil)
	if err != nil {
		return nil, &PolicyError{Problems: astProblems(err)}
	}
	var out []*tester.Result
	for res := range ch {
		out = append(out, res)
	}
	return out, nil
}

// failedAt finds, in a traced run, the last expression of the test's own
// module that failed: "file:line: failed at <expression>".
func failedAt(r *tester.Result) string {
	if r.Location == nil {
		return ""
	}
	var at *ast.Location
	for _, ev := range r.Trace {
		if ev.Op != topdown.FailOp {
			continue
		}
		if x, ok := ev.Node.(*ast.Expr); ok && x.Location != nil && x.Location.File == r.Location.File && x.Location.Row >= r.Location.Row {
			at = x.Location
		}
	}
	if at == nil {
		return ""
	}
	text := strings.Join(strings.Fields(string(at.Text)), " ")
	return fmt.Sprintf("%s:%d: failed at %s", at.File, at.Row, text)
}

func regoResult(res *tester.Result) RegoTestResult {
	t := RegoTestResult{
		Name: res.Package + "." + res.Name, Package: res.Package,
		Passed: res.Pass(), Skipped: res.Skip, Output: string(res.Output), Duration: res.Duration,
	}
	if res.Location != nil {
		t.File, t.Line = res.Location.File, res.Location.Row
	}
	switch {
	case res.Error != nil:
		t.Failure = res.Error.Error()
	case res.Fail:
		t.Failure = "the test rule is undefined or false"
	}
	return t
}

// testCapabilities are the engine's, plus print for tests.
func testCapabilities() *ast.Capabilities {
	caps := capabilities()
	for _, b := range ast.CapabilitiesForThisVersion().Builtins {
		if b.Name == "print" || b.Name == "internal.print" {
			caps.Builtins = append(caps.Builtins, b)
		}
	}
	return caps
}

// Coverage records, over evaluations and Rego test runs, which rule ids
// were hit (in any layer, not only the deciding one) and which lines of
// the Rego modules were evaluated. Create it with [Engine.NewCoverage]; it
// is safe for concurrent use.
type Coverage struct {
	e        *Engine
	pq       rego.PreparedEvalQuery
	modules  map[string]*ast.Module
	cov      *cover.Cover
	mu       sync.Mutex
	hits     map[string]int
	ranTests bool
}

// NewCoverage starts recording coverage for e. It fails when the policy's
// layering query (data.rivumi.main.result, which line tracing evaluates)
// does not prepare.
func (e *Engine) NewCoverage() (*Coverage, error) {
	rp, err := e.c.rego()
	if err != nil {
		return nil, err
	}
	pq, err := rp.pq()
	if err != nil {
		return nil, &PolicyError{Problems: astProblems(err)}
	}
	return &Coverage{e: e, pq: pq, modules: rp.modules, cov: cover.New(), hits: map[string]int{}}, nil
}

// Explain is [Engine.Explain], recording the rule ids of every hit and the
// lines the evaluation reaches. Line tracing evaluates each segment a
// second time, with OPA's coverage tracer.
func (c *Coverage) Explain(ctx context.Context, text string, opts ...EvalOption) Explanation {
	x := c.e.Explain(ctx, text, opts...)
	c.mu.Lock()
	for _, h := range x.Hits {
		c.hits[h.Rule]++
	}
	c.mu.Unlock()
	c.trace(ctx, x.Command, newEvalConfig(opts))
	return x
}

// MatchExamples is the number of YAML rule match examples in force (each
// checked at load: [New] fails on one that does not hit its rule).
func (e *Engine) MatchExamples() int { return len(e.c.examples) }

// RunExamples evaluates every YAML rule's match examples (in the
// examples' workspace, as the load-time check does), recording their hits
// and lines: a YAML rule's examples are its tests, and its rule counts as
// covered by them. It returns how many examples ran.
func (c *Coverage) RunExamples(ctx context.Context) int {
	opts := []EvalOption{Cwd(ExampleWorkspace), Workspace(ExampleWorkspace), Home(ExampleHome)}
	for _, ex := range c.e.c.examples {
		c.Explain(ctx, ex, opts...)
	}
	return len(c.e.c.examples)
}

func (c *Coverage) trace(ctx context.Context, cmd *parser.Command, cfg *evalConfig) {
	if cmd == nil || cmd.Shape.Error != nil || cmd.Shape.Limit != "" {
		return
	}
	shape := shapeValue(&cmd.Shape)
	for i, seg := range cmd.Segments {
		in := segmentInput(cmd, i, shape, grantedRules(c.e.withStanding(cfg.grants), seg))
		_, _ = c.pq.Eval(ctx, rego.EvalParsedInput(in), rego.EvalQueryTracer(c.cov))
	}
}

// CoverageReport says which rules and lines were reached.
type CoverageReport struct {
	Rules       []RuleCoverage `json:"rules"` // every rule, by id
	RulesHit    int            `json:"rules_hit"`
	RulePercent float64        `json:"rule_percent"`
	// Lines covers the Rego modules (tests and generated modules excluded).
	Files        []FileCoverage `json:"files"`
	LinesCovered int            `json:"lines_covered"`
	LinesMissed  int            `json:"lines_not_covered"`
	LinePercent  float64        `json:"line_percent"`
}

// RuleCoverage is one rule id and how often it was hit. Hits counts the
// evaluations that raised it; a rule reached only by Rego tests has Hits 0
// and ByTests set.
type RuleCoverage struct {
	ID       string `json:"id"`
	Layer    Layer  `json:"layer"`
	Location string `json:"location"`
	Hits     int    `json:"hits"`
	ByTests  bool   `json:"by_tests,omitempty"`
}

// Hit reports whether anything reached the rule.
func (r RuleCoverage) Hit() bool { return r.Hits > 0 || r.ByTests }

// FileCoverage is the line coverage of one Rego file.
type FileCoverage struct {
	File       string      `json:"file"`
	Covered    int         `json:"covered"`
	NotCovered int         `json:"not_covered"`
	Percent    float64     `json:"percent"`
	Missed     []LineRange `json:"missed,omitempty"`
}

// LineRange is a range of lines, both ends included.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

func (r LineRange) String() string {
	if r.Start == r.End {
		return strconv.Itoa(r.Start)
	}
	return fmt.Sprintf("%d-%d", r.Start, r.End)
}

// Report computes the coverage recorded so far.
func (c *Coverage) Report() CoverageReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	mods := map[string]*ast.Module{}
	for name, m := range c.modules {
		if strings.HasSuffix(name, "_test.rego") || strings.HasPrefix(name, "generated/") {
			continue
		}
		mods[name] = m
	}
	lines := c.cov.Report(mods)
	var rep CoverageReport
	for id, m := range c.e.c.meta {
		rc := RuleCoverage{ID: id, Layer: m.Layer, Location: m.Location, Hits: c.hits[id]}
		if rc.Hits == 0 && c.ranTests {
			if i := strings.LastIndexByte(m.Location, ':'); i > 0 {
				row, _ := strconv.Atoi(m.Location[i+1:])
				rc.ByTests = lines.IsCovered(m.Location[:i], row)
			}
		}
		if rc.Hit() {
			rep.RulesHit++
		}
		rep.Rules = append(rep.Rules, rc)
	}
	sort.Slice(rep.Rules, func(i, j int) bool { return rep.Rules[i].ID < rep.Rules[j].ID })
	rep.RulePercent = percent(rep.RulesHit, len(rep.Rules))
	for name := range mods {
		fr := lines.Files[name]
		f := FileCoverage{File: name}
		if fr != nil {
			f.Covered, f.NotCovered = fr.CoveredLines, fr.NotCoveredLines
			for _, r := range fr.NotCovered {
				f.Missed = append(f.Missed, LineRange{Start: r.Start.Row, End: r.End.Row})
			}
			f.Missed = mergeRanges(f.Missed)
		}
		f.Percent = percent(f.Covered, f.Covered+f.NotCovered)
		rep.LinesCovered += f.Covered
		rep.LinesMissed += f.NotCovered
		rep.Files = append(rep.Files, f)
	}
	sort.Slice(rep.Files, func(i, j int) bool { return rep.Files[i].File < rep.Files[j].File })
	rep.LinePercent = percent(rep.LinesCovered, rep.LinesCovered+rep.LinesMissed)
	return rep
}

// mergeRanges sorts ranges and merges those that overlap or touch.
func mergeRanges(rs []LineRange) []LineRange {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Start < rs[j].Start })
	var out []LineRange
	for _, r := range rs {
		if n := len(out); n > 0 && r.Start <= out[n-1].End+1 {
			out[n-1].End = max(out[n-1].End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}

func percent(n, total int) float64 {
	if total == 0 {
		return 100
	}
	return 100 * float64(n) / float64(total)
}
