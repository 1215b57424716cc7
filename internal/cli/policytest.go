package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/policies"
	"github.com/rivumi/rivumi/rules"
)

func init() {
	register("policy test", "run Rego unit tests and YAML testcases (text, json, junit, github)", runPolicyTest)
	describe("policy test", "[flags] [PATH...]", policyTestHelp)
}

const policyTestHelp = `Runs the Rego unit tests (*_test.rego) of user packs, and YAML testcase
files, against the built-in packs plus the user packs. Each PATH is a
directory (searched recursively), a .rego file (a user pack module, or its
tests), or a YAML file: testcases (a cases: list) or prefix rules (a
rules: list). With no PATH, the testcases/ directory at the repository
root is used when it exists. The built-in packs' own Rego tests run only
when no Rego pack is named (no .rego PATH, no --policy, none in the
configuration), or with --builtin. File names in every output format are
relative to the repository (the nearest .git above the current directory).

Exit codes: 0 all passed, 3 a test failed (or coverage is under
--fail-under), 4 a policy or testcase file failed to load. (opa test
exits 2 when a test fails and 1 on an error.)`

// measure reports a duration; tests replace it to make outputs stable.
var measure = func(d time.Duration) time.Duration { return d }

// testReport is everything `policy test` found: it is what each output
// format renders.
type testReport struct {
	// Problems are load or compile errors ("file:line:col: message"):
	// nothing ran.
	Problems []string
	Rego     []engine.RegoTestResult
	Cases    []caseResult
	Coverage *engine.CoverageReport
	// BuiltinSkipped is set when a team's pack was tested without the
	// built-in packs' own Rego tests (no --builtin).
	BuiltinSkipped bool
	// Examples counts the YAML rules' match examples, checked at load
	// (a failing one is a load problem) and, with coverage, their tests.
	Examples int
	// FailUnder is the rule id coverage required, in percent (<0: none).
	FailUnder float64
	Duration  time.Duration
}

// caseResult is one YAML testcase graded.
type caseResult struct {
	File     string           `json:"file"`
	Line     int              `json:"line"`
	Command  string           `json:"command"`
	Want     string           `json:"want"`
	Got      string           `json:"got"`
	Problems []string         `json:"problems,omitempty"` // why it failed
	Reasons  []engine.Reason  `json:"reasons,omitempty"`  // the verdict's reasons
	Segments []segmentSummary `json:"segments,omitempty"` // for failures
	Duration time.Duration    `json:"duration"`
}

func (c caseResult) Passed() bool { return len(c.Problems) == 0 }

// Name is "file:line".
func (c caseResult) Name() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

// segmentSummary is what a failure shows of each segment.
type segmentSummary struct {
	Index      int      `json:"index"`
	Decision   string   `json:"decision"`
	Text       string   `json:"text"`
	Program    string   `json:"program"`
	Subcommand string   `json:"subcommand,omitempty"`
	Flags      []string `json:"flags,omitempty"`
	Wrappers   []string `json:"wrappers,omitempty"`
	Tags       []string `json:"tags,omitempty"`
}

// Counts returns the tests that passed, failed and were skipped.
func (r *testReport) Counts() (passed, failed, skipped int) {
	for _, t := range r.Rego {
		switch {
		case t.Skipped:
			skipped++
		case t.Passed:
			passed++
		default:
			failed++
		}
	}
	for _, c := range r.Cases {
		if c.Passed() {
			passed++
		} else {
			failed++
		}
	}
	return
}

// CoverageShort reports whether rule id coverage is under --fail-under.
func (r *testReport) CoverageShort() bool {
	return r.FailUnder >= 0 && r.Coverage != nil && r.Coverage.RulePercent < r.FailUnder
}

// ExitCode is ExitPolicyError when nothing could run, ExitTestFailed when
// a test failed or coverage is short, else ExitOK.
func (r *testReport) ExitCode() int {
	_, failed, _ := r.Counts()
	switch {
	case len(r.Problems) > 0:
		return ExitPolicyError
	case failed > 0 || r.CoverageShort():
		return ExitTestFailed
	}
	return ExitOK
}

// summary is the last line of the text and github formats.
func (r *testReport) summary() string {
	passed, failed, _ := r.Counts()
	return fmt.Sprintf("%d passed, %d failed", passed, failed)
}

// reporter renders a report in one output format.
type reporter interface {
	Report(w io.Writer, r *testReport) error
}

func newReporter(format string, w io.Writer, verbose bool) (reporter, error) {
	switch format {
	case "text":
		return textReporter{color: useColor(w), verbose: verbose}, nil
	case "json":
		return jsonReporter{}, nil
	case "junit":
		return junitReporter{}, nil
	case "github":
		return githubReporter{}, nil
	}
	return nil, fmt.Errorf("unknown --format %q (want text, json, junit or github)", format)
}

func runPolicyTest(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("policy test", stdio)
	var pf policyFlags
	pf.register(fs.FlagSet)
	format := fs.String("format", "text", "output `format`: text, json, junit or github")
	coverage := fs.Bool("coverage", false, "report rule ids no test hits and line coverage of the Rego files")
	failUnder := fs.Float64("fail-under", -1, "fail when less than `N` percent of rule ids are hit (implies --coverage)")
	run := fs.String("run", "", "run only the tests and testcases whose name (data.pkg.test_x; file:line command) matches `REGEX`")
	verbose := fs.Bool("v", false, "list every test, not only failures")
	noConfig := fs.Bool("no-config", false, "ignore the user's and the project's configuration files")
	builtin := fs.Bool("builtin", false, "also run the built-in packs' Rego tests and count their rules in --coverage (the default when no Rego pack is named)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rep, err := newReporter(*format, stdio.Out, *verbose)
	if err != nil {
		return exitf(ExitError, "%v", err)
	}
	var re *regexp.Regexp
	if *run != "" {
		if re, err = regexp.Compile(*run); err != nil {
			return exitf(ExitError, "--run: %v", err)
		}
	}
	if *failUnder >= 0 {
		*coverage = true
	}
	ctx = withWarnings(ctx, stdio.Err)
	start := time.Now()
	paths := fs.Args()
	if len(paths) == 0 {
		paths = defaultTestPaths(pf.cwd)
	}
	r := &testReport{FailUnder: *failUnder}
	e, src := loadForTest(ctx, &pf, paths, !*noConfig, r)
	if e != nil {
		src.builtin = *builtin || !src.teamRego
		r.BuiltinSkipped = !src.builtin
		testWith(ctx, e, &pf, src, re, *coverage, r)
	}
	r.Duration = measure(time.Since(start))
	if err := rep.Report(stdio.Out, r); err != nil {
		return exitf(ExitError, "policy test: %v", err)
	}
	if code := r.ExitCode(); code != ExitOK {
		return exitCode(code)
	}
	return nil
}

// defaultTestPaths is testcases/ at the repository root, if there is one.
func defaultTestPaths(cwd string) []string {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	for d := cwd; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			tc := filepath.Join(d, "testcases")
			if st, err := os.Stat(tc); err == nil && st.IsDir() {
				if rel, err := filepath.Rel(cwd, tc); err == nil && !strings.HasPrefix(rel, "..") {
					return []string{rel}
				}
				return []string{tc}
			}
			return nil
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// sources are the inputs named on the command line, sorted by kind.
type sources struct {
	modules   []engine.Source // user pack modules
	tests     []engine.Source // user *_test.rego
	ruleFiles []string        // YAML prefix rules
	caseFiles []string        // YAML testcases
	problems  []string
	cases     []rules.Testcase // loaded from caseFiles

	root string            // the repository root names are relative to (repoName)
	from map[string]string // absolute file name → the PATH argument that named it
	// teamRego is set when a team's pack is named (Rego or YAML rules, by
	// PATHs, --policy or the configuration); builtin when the built-in
	// packs' tests run too.
	teamRego, builtin bool
}

// newSources starts a collection whose names are relative to the
// repository containing the current directory.
func newSources() *sources {
	s := &sources{from: map[string]string{}}
	if wd, err := os.Getwd(); err == nil {
		s.root, _ = grant.ProjectRoot(wd)
	}
	return s
}

// repoName is f relative to the repository root when it lies inside it
// (what GitHub annotations and CI reports expect), else f as given.
func (s *sources) repoName(f string) string {
	if a, err := filepath.Abs(f); err == nil && s.root != "" {
		if rel, err := filepath.Rel(s.root, a); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(f))
}

// collectSources sorts paths into Rego modules, Rego tests, YAML rule files
// and testcase files. Directories are searched recursively (hidden ones
// skipped).
func collectSources(paths []string) *sources {
	s := newSources()
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			s.problems = append(s.problems, err.Error())
			continue
		}
		if !st.IsDir() {
			s.add(p, p, true)
			continue
		}
		werr := filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if f != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			s.add(p, f, false)
			return nil
		})
		if werr != nil {
			s.problems = append(s.problems, werr.Error())
		}
	}
	return s
}

func (s *sources) add(arg, f string, named bool) {
	if a, err := filepath.Abs(f); err == nil {
		if _, dup := s.from[a]; dup {
			return // named by two PATHs (`. pack.rego`): once is enough
		}
		s.from[a] = arg
	}
	switch ext := filepath.Ext(f); {
	case ext == ".rego":
		b, err := os.ReadFile(f)
		if err != nil {
			s.problems = append(s.problems, err.Error())
			return
		}
		src := engine.Source{Name: s.repoName(f), Text: string(b)}
		if strings.HasSuffix(f, "_test.rego") {
			s.tests = append(s.tests, src)
		} else {
			s.modules = append(s.modules, src)
		}
	case ext == ".yaml" || ext == ".yml":
		switch kind, err := yamlKind(f); {
		case err != nil:
			s.problems = append(s.problems, err.Error())
		case kind == "cases":
			s.caseFiles = append(s.caseFiles, f)
		case kind == "rules":
			s.ruleFiles = append(s.ruleFiles, f)
		case named:
			s.problems = append(s.problems, f+": neither testcases (a cases: list) nor prefix rules (a rules: list) nor team programs (a programs: mapping)")
		}
	case named:
		s.problems = append(s.problems, f+": not a .rego or .yaml file")
	}
}

// yamlKind returns "cases" or "rules" (prefix rules, team programs or
// both) by the document's top-level keys, or
// "" for other YAML.
func yamlKind(f string) (string, error) {
	b, err := os.ReadFile(f)
	if err != nil {
		return "", err
	}
	var top map[string]yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&top); err != nil && !errors.Is(err, io.EOF) {
		return "", nil // not ours; a named file reports it below
	}
	if _, ok := top["cases"]; ok {
		return "cases", nil
	}
	if _, ok := top["rules"]; ok {
		return "rules", nil
	}
	if _, ok := top["programs"]; ok {
		return "rules", nil // team programs alone
	}
	return "", nil
}

// policyOptions gathers the engine options of a command that loads
// sources besides the flags: the --policy dirs, the sources' modules and
// YAML rules, and (unless noConfig) the configuration files. YAML and
// configuration problems are returned, not turned into options.
func policyOptions(ctx context.Context, pf *policyFlags, s *sources, useConfig bool) ([]engine.Option, []*rules.Config, []string) {
	var opts []engine.Option
	problems := append([]string(nil), s.problems...)
	for _, d := range pf.policyDirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			opts = append(opts, engine.UserFS(s.repoName(d), os.DirFS(d))) // names relative to the repository
		} else {
			opts = append(opts, engine.UserDir(d)) // reports the problem
		}
	}
	for _, m := range s.modules {
		opts = append(opts, engine.UserModule(m.Name, m.Text))
	}
	rs, tp, err := rules.LoadRuleFiles(s.ruleFiles...)
	problems = append(problems, ruleProblems(err)...)
	if len(rs) > 0 {
		opts = append(opts, engine.YAMLRules(rs...))
	}
	if len(tp) > 0 {
		opts = append(opts, engine.TeamPrograms(tp...))
	}
	var cfgs []*rules.Config
	if useConfig && os.Getenv(noConfigEnv) == "" {
		var ps []string
		cfgs, ps = loadConfigs(ctx, pf.cwd)
		problems = append(problems, ps...)
		dropNamedByPaths(cfgs, s)
		opts = append(opts, configEngineOptions(cfgs, &problems)...)
	}
	return opts, cfgs, problems
}

// policyErrorProblems lists a *engine.PolicyError's problems (or the error).
func policyErrorProblems(err error) []string {
	var pe *engine.PolicyError
	if errors.As(err, &pe) {
		return pe.Problems
	}
	return []string{err.Error()}
}

// loadForTest builds the engine and loads the testcases; on a problem it
// records it in r and returns a nil engine.
func loadForTest(ctx context.Context, pf *policyFlags, paths []string, useConfig bool, r *testReport) (*engine.Engine, *sources) {
	s := collectSources(paths)
	opts, cfgs, problems := policyOptions(ctx, pf, s, useConfig)
	// The Rego tests of the packs the --policy flags and the configuration name.
	dirs := append([]string(nil), pf.policyDirs...)
	for _, c := range cfgs {
		dirs = append(dirs, c.Policies...)
	}
	if len(dirs) > 0 {
		more := collectSources(dirs)
		s.tests = append(s.tests, more.tests...)
		problems = append(problems, more.problems...)
		problems = append(problems, namedTwice(s, more)...)
	}
	s.teamRego = len(s.modules) > 0 || len(s.tests) > 0 || len(dirs) > 0 || len(s.ruleFiles) > 0
	if len(problems) == 0 {
		e, err := engine.New(ctx, opts...)
		if err != nil {
			problems = append(problems, policyErrorProblems(err)...)
		} else {
			cases, err := rules.LoadTestcases(s.caseFiles...)
			if err != nil {
				problems = append(problems, err.Error())
			} else {
				r.Cases = make([]caseResult, len(cases))
				for i, tc := range cases {
					cases[i].File = s.repoName(tc.File)
					r.Cases[i] = caseResult{File: cases[i].File, Line: tc.Line, Command: tc.Command, Want: tc.Decision}
				}
				s.cases = cases
				return e, s
			}
		}
	}
	r.Problems = problems
	return nil, s
}

// testWith runs the Rego tests and the testcases.
func testWith(ctx context.Context, e *engine.Engine, pf *policyFlags, s *sources, re *regexp.Regexp, coverage bool, r *testReport) {
	var cov *engine.Coverage
	if coverage {
		var err error
		if cov, err = e.NewCoverage(); err != nil {
			r.Problems = policyErrorProblems(err)
			r.Cases = nil
			return
		}
	}
	run := ""
	if re != nil {
		run = re.String()
	}
	rego, err := e.RunRegoTests(ctx, engine.RegoTestOptions{Sources: s.tests, Run: run, Coverage: cov, SkipBuiltin: !s.builtin})
	if err != nil {
		r.Problems = policyErrorProblems(err)
		r.Cases = nil
		return
	}
	for i := range rego {
		rego[i].Duration = measure(rego[i].Duration)
	}
	r.Rego = rego
	var keep []caseResult
	var cases []rules.Testcase
	for i, tc := range s.cases {
		if re == nil || re.MatchString(tc.Name()+" "+tc.Command) {
			keep = append(keep, r.Cases[i])
			cases = append(cases, tc)
		}
	}
	r.Cases = keep
	explain := e.Explain
	if cov != nil {
		explain = cov.Explain
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				r.Cases[i] = gradeCase(ctx, explain, pf, cases[i], r.Cases[i])
			}
		})
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	r.Examples = e.MatchExamples()
	if cov != nil {
		cov.RunExamples(ctx)
		rep := cov.Report()
		if !s.builtin {
			rep = teamCoverage(rep, e.Rules())
		}
		r.Coverage = &rep
	}
}

// dropNamedByPaths leaves out of the configurations the rule files and
// pack directories whose every file the PATHs already name: `policy test
// policy/ rules/` in a repository whose .rivumi.yaml lists the same pack
// and rules loads each once, as the PATHs say (and not as a rule "already
// declared" by itself).
func dropNamedByPaths(cfgs []*rules.Config, s *sources) {
	named := func(f string) bool {
		abs, err := filepath.Abs(f)
		if err != nil {
			return false
		}
		_, ok := s.from[abs]
		return ok
	}
	for _, c := range cfgs {
		c.Rules = slices.DeleteFunc(c.Rules, func(r rules.YAMLRule) bool { return named(r.File) })
		c.Policies = slices.DeleteFunc(c.Policies, func(d string) bool {
			in := collectSources([]string{d})
			if len(in.from) == 0 {
				return false
			}
			for f := range in.from {
				if _, ok := s.from[f]; !ok {
					return false
				}
			}
			return true
		})
	}
}

// namedTwice reports the files that a PATH and a pack directory (--policy,
// or the configuration's policies) both name: the pack would load twice.
func namedTwice(paths, dirs *sources) []string {
	type pair struct{ path, dir string }
	first := map[pair]string{}
	var order []pair
	for a, dir := range dirs.from {
		if p, ok := paths.from[a]; ok {
			k := pair{p, dir}
			if _, seen := first[k]; !seen {
				order = append(order, k)
				first[k] = paths.repoName(a)
			} else if n := paths.repoName(a); n < first[k] {
				first[k] = n
			}
		}
	}
	sort.Slice(order, func(i, j int) bool { return first[order[i]] < first[order[j]] })
	var out []string
	for _, k := range order {
		out = append(out, fmt.Sprintf("%s: named twice, by the PATH %q and by the pack directory %q (--policy, or the configuration's policies); name the pack once: either as --policy DIR or as a PATH", first[k], k.path, k.dir))
	}
	return out
}

// teamCoverage keeps the user packs' rules and files of a coverage report:
// when the built-in packs' tests did not run, their rules say nothing
// about the team's tests.
func teamCoverage(rep engine.CoverageReport, meta map[string]engine.RuleMeta) engine.CoverageReport {
	out := engine.CoverageReport{}
	for _, rc := range rep.Rules {
		if meta[rc.ID].User {
			out.Rules = append(out.Rules, rc)
			if rc.Hit() {
				out.RulesHit++
			}
		}
	}
	out.RulePercent = 100
	if len(out.Rules) > 0 {
		out.RulePercent = 100 * float64(out.RulesHit) / float64(len(out.Rules))
	}
	for _, f := range rep.Files {
		if name, ok := strings.CutPrefix(f.File, "policies/"); ok {
			if _, err := fs.Stat(policies.FS, name); err == nil {
				continue
			}
		}
		out.Files = append(out.Files, f)
		out.LinesCovered += f.Covered
		out.LinesMissed += f.NotCovered
	}
	out.LinePercent = 100
	if total := out.LinesCovered + out.LinesMissed; total > 0 {
		out.LinePercent = 100 * float64(out.LinesCovered) / float64(total)
	}
	return out
}

type explainFunc func(ctx context.Context, text string, opts ...engine.EvalOption) engine.Explanation

// gradeCase evaluates one testcase the way engine's TestTestcases does: the
// decision must match, every rule in rules must be among the verdict's
// reasons and none in not_rules.
func gradeCase(ctx context.Context, explain explainFunc, pf *policyFlags, tc rules.Testcase, c caseResult) caseResult {
	t0 := time.Now()
	x := explain(ctx, tc.Command, caseOptions(pf, tc)...)
	c.Duration = measure(time.Since(t0))
	v := x.Verdict
	c.Got = v.Decision.String()
	c.Reasons = v.Reasons
	ids := map[string]bool{}
	for _, r := range v.Reasons {
		ids[r.Rule] = true
	}
	if c.Got != tc.Decision {
		c.Problems = append(c.Problems, fmt.Sprintf("expected %s, got %s", tc.Decision, c.Got))
	}
	for _, id := range tc.Rules {
		if !ids[id] {
			c.Problems = append(c.Problems, "expected rule "+id+" among the reasons")
		}
	}
	for _, id := range tc.NotRules {
		if ids[id] {
			c.Problems = append(c.Problems, "unexpected rule "+id+" among the reasons")
		}
	}
	if !c.Passed() && x.Command != nil {
		for i, s := range x.Command.Segments {
			ss := segmentSummary{Index: s.Index, Text: s.Text, Program: s.Program, Subcommand: s.Subcommand, Flags: s.Flags, Tags: s.Tags}
			if i < len(x.Decisions) {
				ss.Decision = x.Decisions[i].String()
			}
			for _, w := range s.Wrappers {
				ss.Wrappers = append(ss.Wrappers, w.Name)
			}
			c.Segments = append(c.Segments, ss)
		}
	}
	return c
}

// caseOptions are a testcase's evaluation options; the --cwd, --workspace
// and --shell flags fill what the case leaves out.
func caseOptions(pf *policyFlags, tc rules.Testcase) []engine.EvalOption {
	c := engine.TestcaseContext(tc)
	if c.Workspace == "" {
		c.Workspace = abs(pf.workspace)
	}
	if c.Cwd == "" {
		c.Cwd = abs(pf.cwd)
	}
	if c.Shell == "" {
		c.Shell = pf.shellSet()
	}
	return engine.ContextOptions(c)
}

// shellSet returns --shell when it differs from the default.
func (p *policyFlags) shellSet() string {
	if p.shell == "bash" {
		return ""
	}
	return p.shell
}
