package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/rules"
)

// authoring is what configuration adds to the packs: YAML prefix rules,
// rule switches, standing grants and problems found while loading them.
type authoring struct {
	yaml     []rules.YAMLRule
	disabled []Switch
	grants   []standingGrant
	problems []string
	cacheDir string
	// programs are the team's program descriptions; team indexes them
	// (set by addAuthoring; engine/programs.go).
	programs []rules.TeamProgram
	team     *rules.TeamPrograms
}

// YAMLRules adds YAML prefix rules (see [rules.YAMLRule]). Their ids must
// not collide with any other rule's; their match and not_match examples run
// through the whole engine when it loads, and a failing example is a load
// error. The match examples of deny rules are also mutated (options moved
// and bundled, wrappers added, words quoted); a mutation graded below deny
// is a load error too.
func YAMLRules(rs ...rules.YAMLRule) Option {
	return func(c *config) { c.authoring.yaml = append(c.authoring.yaml, rs...) }
}

// LoadProblems makes New fail with these problems (each "file:line:
// message") alongside any it finds itself. Callers that read configuration
// use it so that every problem is reported at once, and the engine never
// starts without part of its configuration.
func LoadProblems(ps ...string) Option {
	return func(c *config) { c.authoring.problems = append(c.authoring.problems, ps...) }
}

// ExampleCache names a directory where the engine remembers policies whose
// YAML rule examples (and their mutations) passed, so that the next load of
// the same policy by the same rivumi binary skips grading them again
// (each example costs a full evaluation, a few hundred microseconds). The
// key is the policy hash, which covers the rules and their examples, and
// the identity of the running executable.
func ExampleCache(dir string) Option {
	return func(c *config) { c.authoring.cacheDir = dir }
}

// Where YAML rule examples are graded: a workspace and a home that exist
// nowhere in particular, so relative paths are workspace paths.
const (
	ExampleWorkspace = "/home/user/project"
	ExampleHome      = "/home/user"
)

// addAuthoring registers the YAML rules (data and METADATA), the switches
// and the standing grants. It runs after the Rego METADATA is read, so it
// can check ids against every rule.
func addAuthoring(cfg *config, data map[string]any, meta map[string]RuleMeta) []string {
	a := &cfg.authoring
	problems := append([]string(nil), a.problems...)
	problems = append(problems, addTeamPrograms(cfg, data)...)
	byLayer := map[string]map[string]any{"deny": {}, "ask": {}, "allow": {}}
	yamlMeta := map[string]any{}
	for _, r := range a.yaml {
		if prev, dup := meta[r.ID]; dup {
			problems = append(problems, fmt.Sprintf("%s: rule id %s already declared at %s", r.Where(), r.ID, prev.Location))
			continue
		}
		layer := map[string]Layer{"deny": LayerDeny, "ask": LayerAsk, "allow": LayerAllow}[r.Decision]
		title := r.Title
		if title == "" {
			title = r.ID
		}
		just := r.Justification
		if just == "" {
			just = "YAML rule " + r.ID + ": " + patternString(r.Pattern)
		}
		meta[r.ID] = RuleMeta{ID: r.ID, Title: title, Justification: just, Layer: layer, GrantOK: r.Grantable, Location: r.Where(), User: true}
		yamlMeta[r.ID] = map[string]any{"title": title, "justification": just, "examples": exampleData(r)} // in the policy hash
		d := r.DataFor(a.team)
		for _, p := range r.Programs() {
			list, _ := byLayer[r.Decision][p].([]any)
			byLayer[r.Decision][p] = append(list, d)
		}
	}
	y := map[string]any{"meta": yamlMeta}
	for l, m := range byLayer {
		y[l+"_by_program"] = m
	}
	root := map[string]any{"yaml": y}
	problems = append(problems, addSwitches(a, meta, root)...)
	merge(data, map[string]any{"rivumi": root})
	return problems
}

func exampleData(r rules.YAMLRule) map[string]any {
	var m, n []any
	for _, e := range r.Match {
		m = append(m, e.Text)
	}
	for _, e := range r.NotMatch {
		n = append(n, e.Text)
	}
	return map[string]any{"match": m, "not_match": n}
}

func patternString(p [][]string) string {
	parts := make([]string, len(p))
	for i, alts := range p {
		if len(alts) == 1 {
			parts[i] = alts[0]
		} else {
			parts[i] = "[" + strings.Join(alts, ", ") + "]"
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// checkExamples grades every YAML rule's examples with the compiled policy:
// a match example must hit the rule (and, for an allow rule, be allowed),
// a not_match example must not hit it, and no mutation of a deny rule's
// match example may be graded below deny. It returns every failure.
func checkExamples(ctx context.Context, c *compiled, cfg *config) (problems []string) {
	if len(cfg.authoring.yaml) == 0 && cfg.authoring.team == nil {
		return nil
	}
	var mark string
	if dir := cfg.authoring.cacheDir; dir != "" {
		sum := sha256.Sum256([]byte(c.hash + "\x00" + executableID()))
		mark = filepath.Join(dir, hex.EncodeToString(sum[:16]))
		if _, err := os.Stat(mark); err == nil {
			return nil
		}
		defer func() {
			if len(problems) == 0 && os.MkdirAll(dir, 0o700) == nil {
				_ = os.WriteFile(mark, nil, 0o600)
			}
		}()
	}
	disabled := map[string]bool{}
	for _, s := range cfg.authoring.disabled {
		disabled[s.ID] = true
	}
	problems = checkProgramExamples(cfg.authoring.team) // team programs' examples (engine/programs.go)
	e := &Engine{c: c}
	opts := []EvalOption{Cwd(ExampleWorkspace), Workspace(ExampleWorkspace), Home(ExampleHome)}
	for _, r := range cfg.authoring.yaml {
		if disabled[r.ID] {
			continue
		}
		bad := func(ex rules.Example, format string, args ...any) {
			problems = append(problems, fmt.Sprintf("%s:%d: rule %s: ", r.File, ex.Line, r.ID)+fmt.Sprintf(format, args...))
		}
		for _, ex := range r.Match {
			x := e.Explain(ctx, ex.Text, opts...)
			switch {
			case !hits(x, r.ID):
				bad(ex, "match example %q does not match (verdict %s%s)", ex.Text, x.Verdict.Decision, because(x.Verdict))
			case r.Decision == "allow" && x.Verdict.Decision != Allow:
				bad(ex, "match example %q matches, but the verdict is %s%s: an allow rule cannot lower other rules' asks (switch them off with disable, or drop the example)",
					ex.Text, x.Verdict.Decision, because(x.Verdict))
			case r.Decision == "deny":
				for _, m := range mutations(ex.Text, r, e.ParserOptions()...) {
					if v := e.EvaluateText(ctx, m, opts...); v.Decision < Deny {
						bad(ex, "mutation %q of match example %q escapes the rule (verdict %s)", m, ex.Text, v.Decision)
					}
				}
			}
		}
		for _, ex := range r.NotMatch {
			if x := e.Explain(ctx, ex.Text, opts...); hits(x, r.ID) {
				bad(ex, "not_match example %q matches", ex.Text)
			}
		}
	}
	return problems
}

// matchExamples lists the match examples of the YAML rules in force (not
// switched off), in file order.
func matchExamples(cfg *config) []string {
	disabled := map[string]bool{}
	for _, s := range cfg.authoring.disabled {
		disabled[s.ID] = true
	}
	var out []string
	for _, r := range cfg.authoring.yaml {
		if disabled[r.ID] {
			continue
		}
		for _, ex := range r.Match {
			out = append(out, ex.Text)
		}
	}
	return out
}

// executableID identifies the running binary (path, size, modification
// time): a new build may grade the same examples differently.
func executableID() string {
	p, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	st, err := os.Stat(p)
	if err != nil {
		return p
	}
	return fmt.Sprintf("%s\x00%d\x00%d", p, st.Size(), st.ModTime().UnixNano())
}

func hits(x Explanation, id string) bool {
	for _, h := range x.Hits {
		if h.Rule == id {
			return true
		}
	}
	return false
}

// because lists the rule ids behind a verdict: ": by a, b".
func because(v Verdict) string {
	var ids []string
	seen := map[string]bool{}
	for _, r := range v.Reasons {
		if !seen[r.Rule] {
			seen[r.Rule] = true
			ids = append(ids, r.Rule)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return " by " + strings.Join(ids, ", ")
}

// Mutations returns variants of a simple command that a deny rule written
// for it should still catch: wrapped in sudo, env or command; the program
// escaped (\git), quoted or given as /usr/bin/…; the second word quoted;
// and, among the words after the rule's prefix, the options reversed,
// moved to the end or to the front, adjacent single-letter options
// bundled (-f -u → -fu), --name=value split into two words, and an option
// followed by the word the pattern puts after it joined into one
// (--namespace prod → --namespace=prod, -n prod → -nprod). Commands that are not a single plain simple
// command (operators, substitutions, redirects, wrappers, assignments,
// dynamic words) have no mutations.
func Mutations(text string, r rules.YAMLRule) []string { return mutations(text, r) }

// mutations is [Mutations] with the parser options of the engine's
// configuration (its team programs: which options take a value).
func mutations(text string, r rules.YAMLRule, popts ...parser.Option) []string {
	cmd, err := parser.Parse(text, popts...)
	if err != nil || cmd == nil || len(cmd.Segments) != 1 || cmd.Shape.Error != nil || cmd.Shape.Limit != "" {
		return nil
	}
	s := cmd.Segments[0]
	if len(s.Wrappers) > 0 || len(s.Assigns) > 0 || len(s.Redirects) > 0 || len(cmd.Shape.Operators) > 0 ||
		cmd.Shape.Substitutions > 0 || cmd.Shape.Heredocs > 0 || s.Kind != parser.KindTop || len(s.Argv) == 0 {
		return nil
	}
	for _, d := range s.Dynamic {
		if d {
			return nil
		}
	}
	argv := s.Argv
	canon := joinQuoted(argv)
	var out []string
	add := func(m string) {
		if m != text && m != canon && !contains(out, m) {
			out = append(out, m)
		}
	}
	add("sudo " + canon)
	add("env " + canon)
	add("command " + canon)
	if s.PathKind == "bare" {
		add(`\` + canon)
		add(`"` + argv[0] + `" ` + joinQuoted(argv[1:]))
		add(joinQuoted(append([]string{"/usr/bin/" + argv[0]}, argv[1:]...)))
	}
	if len(argv) > 1 && !strings.ContainsRune(argv[1], '\'') {
		add(quoteWord(argv[0]) + " '" + argv[1] + "' " + joinQuoted(argv[2:]))
	}
	// Options after the rule's prefix words.
	k := prefixEnd(argv, r.PrefixWords())
	if k < 0 {
		return trim(out)
	}
	head, tail := argv[:k+1], argv[k+1:]
	if i := index(tail, "--"); i >= 0 {
		tail = tail[:i] // leave `-- operands` where they are
	}
	rest := argv[k+1+len(tail):]
	// An option and the word after it in the pattern (or the value the
	// parser gave it) travel together when options move.
	pairs := map[string][]string{}
	for i, alts := range r.Pattern {
		for _, o := range alts {
			if j := strings.Index(o, "="); strings.HasPrefix(o, "--") && j > 2 {
				pairs[o[:j]] = append(pairs[o[:j]], o[j+1:])
			}
		}
		if i+1 < len(r.Pattern) && isOption(alts[0]) && !isOption(r.Pattern[i+1][0]) {
			for _, o := range alts {
				pairs[o] = append(pairs[o], r.Pattern[i+1]...)
			}
		}
	}
	isValue := func(opt, w string) bool {
		if contains(pairs[opt], w) {
			return true
		}
		for _, vs := range s.Options {
			if contains(vs, w) {
				return true
			}
		}
		return false
	}
	var optUnits, wordUnits, units [][]string
	for i := 0; i < len(tail); i++ {
		w := tail[i]
		if !isOption(w) {
			wordUnits = append(wordUnits, []string{w})
			units = append(units, []string{w})
			continue
		}
		u := []string{w}
		if i+1 < len(tail) && !isOption(tail[i+1]) && !strings.Contains(w, "=") && isValue(w, tail[i+1]) {
			u = append(u, tail[i+1])
			i++
		}
		optUnits = append(optUnits, u)
		units = append(units, u)
	}
	flat := func(us ...[][]string) []string {
		var out []string
		for _, l := range us {
			for _, u := range l {
				out = append(out, u...)
			}
		}
		return out
	}
	build := func(mid []string) {
		all := append(append(append([]string{}, head...), mid...), rest...)
		add(joinQuoted(all))
	}
	if len(optUnits) >= 2 {
		rev := make([][]string, len(units))
		j := len(optUnits) - 1
		for i, u := range units {
			rev[i] = u
			if isOption(u[0]) {
				rev[i] = optUnits[j]
				j--
			}
		}
		build(flat(rev))
	}
	if len(optUnits) > 0 && len(wordUnits) > 0 {
		build(flat(wordUnits, optUnits))
		build(flat(optUnits, wordUnits))
	}
	// Bundle runs of adjacent single-letter options.
	var bundled []string
	changed := false
	for _, w := range tail {
		n := len(bundled)
		if isShortFlag(w) && n > 0 && isShortBundle(bundled[n-1]) {
			bundled[n-1] += w[1:]
			changed = true
			continue
		}
		bundled = append(bundled, w)
	}
	if changed {
		build(bundled)
	}
	// --name=value written as two words.
	var split []string
	for _, w := range tail {
		if i := strings.Index(w, "="); strings.HasPrefix(w, "--") && i > 2 {
			split = append(split, w[:i], w[i+1:])
			continue
		}
		split = append(split, w)
	}
	if len(split) != len(tail) {
		build(split)
	}
	// An option and the word after it in the pattern, given as two words
	// in the example, written as one: --name=value, -nvalue.
	var joined []string
	for i := 0; i < len(tail); i++ {
		w := tail[i]
		if i+1 < len(tail) && contains(pairs[w], tail[i+1]) && (strings.HasPrefix(w, "--") || isShortFlag(w)) {
			if strings.HasPrefix(w, "--") {
				w += "="
			}
			joined = append(joined, w+tail[i+1])
			i++
			continue
		}
		joined = append(joined, w)
	}
	if len(joined) != len(tail) {
		build(joined)
	}
	return trim(out)
}

func isOption(t string) bool { return len(t) > 1 && t[0] == '-' }

func trim(ms []string) []string {
	for i, m := range ms {
		ms[i] = strings.TrimSpace(m)
	}
	return ms
}

func isShortFlag(w string) bool {
	return len(w) == 2 && w[0] == '-' && (w[1] >= 'a' && w[1] <= 'z' || w[1] >= 'A' && w[1] <= 'Z')
}

func isShortBundle(w string) bool {
	if len(w) < 2 || w[0] != '-' || w[1] == '-' {
		return false
	}
	for _, c := range w[1:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// prefixEnd returns the index in argv of the last of the rule's prefix
// words, found in order (options and their values may sit between them),
// or -1.
func prefixEnd(argv []string, prefix [][]string) int {
	k := 0
	for _, alts := range prefix[1:] {
		found := -1
		for i := k + 1; i < len(argv); i++ {
			if contains(alts, argv[i]) {
				found = i
				break
			}
		}
		if found < 0 {
			return -1
		}
		k = found
	}
	return k
}

func index(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

func contains(ss []string, s string) bool { return index(ss, s) >= 0 }

func joinQuoted(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = quoteWord(w)
	}
	return strings.Join(q, " ")
}

// quoteWord quotes w for a POSIX shell when it needs it.
func quoteWord(w string) string {
	if w == "" {
		return "''"
	}
	safe := true
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_@%+=:,./-", c)) {
			safe = false
			break
		}
	}
	if safe {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
