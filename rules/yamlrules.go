package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// YAMLRule is a prefix rule written in YAML, codex-style, for teams that do
// not want to write Rego:
//
//	rules:
//	  - id: team.no-force-push
//	    pattern: [git, push, [--force, -f, --force-with-lease]]
//	    decision: deny
//	    justification: Force-pushing rewrites shared history; open a PR instead.
//	    match: ["git push --force origin main", "sudo git push -f"]
//	    not_match: ["git push origin main"]
//
// Pattern holds one entry per argv position; an entry with several
// strings lists alternatives. The first position is the program (its base
// name, as the parser reports it after unwrapping sudo, env, command …).
//
// An allow rule matches a segment whose argv starts with the pattern, word
// for word. A deny or ask rule splits its pattern into words and options
// (tokens starting with "-"): the words before the first option must be a
// prefix of the segment's words (program, subcommand, then the other
// non-option arguments); every option must appear anywhere in the argv,
// either exactly, as --name=value for a long option, as its canonical name
// among the segment's flags (so --force also catches -f and --forc where
// rivumi knows the program), or, for a short option, inside a bundle of
// single-letter flags (-fu holds -f); --name=value also matches the two
// words --name value; words after the first option must each appear
// somewhere among the segment's remaining words or as the value of a
// --name=value option. See
// docs/policy-authoring.md.
type YAMLRule struct {
	ID            string
	Title         string
	Decision      string // allow, ask or deny
	Justification string
	// Grantable is the rule's `grantable: true`: a session grant may cancel
	// this ask. Rules are not grantable unless they say so.
	Grantable bool
	Pattern   [][]string // per position, the alternatives
	Match     []Example
	NotMatch  []Example

	// File and Line locate the rule (its "- id:" item).
	File string
	Line int
}

// Example is one command from a rule's match or not_match list.
type Example struct {
	Text string
	Line int
}

// Where returns "file:line" of the rule.
func (r *YAMLRule) Where() string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

// Programs returns the program names the rule applies to.
func (r *YAMLRule) Programs() []string { return r.Pattern[0] }

// RuleError lists the problems found in YAML rule files, each as
// "file:line: message".
type RuleError struct {
	Problems []string
}

func (e *RuleError) Error() string { return strings.Join(e.Problems, "\n") }

// LoadYAMLRules reads YAML rule files. It reports every problem of every
// file at once, as a *RuleError. Programs sections are read too (a problem
// in one is reported) but not returned: use [LoadRuleFiles].
func LoadYAMLRules(paths ...string) ([]YAMLRule, error) {
	rs, _, err := LoadRuleFiles(paths...)
	return rs, err
}

// LoadRuleFiles reads YAML rule files: their rules and their programs
// sections ([TeamProgram]). It reports every problem of every file at
// once, as a *RuleError.
func LoadRuleFiles(paths ...string) ([]YAMLRule, []TeamProgram, error) {
	var out []YAMLRule
	var progs []TeamProgram
	var problems []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		rs, ps, err := ParseRuleFile(p, b)
		out = append(out, rs...)
		progs = append(progs, ps...)
		problems = appendProblems(problems, err)
	}
	if len(problems) > 0 {
		return out, progs, &RuleError{Problems: problems}
	}
	return out, progs, nil
}

// topNode decodes a YAML document and returns its top node, or nil for an
// empty document; a syntax error is a *RuleError with file:line.
func topNode(name string, b []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, &RuleError{Problems: []string{yamlProblem(name, err)}}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// ParseYAMLRules parses one rule file: a mapping with the keys rules and
// programs. The rules that parsed are returned even when others did not;
// the programs section is checked but not returned (see [ParseRuleFile]).
func ParseYAMLRules(name string, b []byte) ([]YAMLRule, error) {
	rs, _, err := ParseRuleFile(name, b)
	return rs, err
}

// ParseRuleFile parses one rule file: a mapping with the keys rules (YAML
// prefix rules) and programs (the team's programs, [TeamProgram]). What
// parsed is returned even when other parts did not.
func ParseRuleFile(name string, b []byte) ([]YAMLRule, []TeamProgram, error) {
	top, err := topNode(name, b)
	if err != nil || top == nil {
		return nil, nil, err
	}
	if top.Kind != yaml.MappingNode {
		return nil, nil, &RuleError{Problems: []string{fmt.Sprintf("%s:%d: want a mapping with the keys rules and programs", name, top.Line)}}
	}
	var out []YAMLRule
	var progs []TeamProgram
	var problems []string
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch k.Value {
		case "rules":
			rs, ps := ParseYAMLRuleList(name, v)
			out = append(out, rs...)
			problems = append(problems, ps...)
		case "programs":
			tp, ps := ParseTeamPrograms(name, v)
			progs = append(progs, tp...)
			problems = append(problems, ps...)
		default:
			problems = append(problems, fmt.Sprintf("%s:%d: %s", name, k.Line, unknownKey(k.Value, []string{"rules", "programs"})))
		}
	}
	if len(problems) > 0 {
		return out, progs, &RuleError{Problems: problems}
	}
	return out, progs, nil
}

// yamlProblem turns a yaml.v3 error ("yaml: line 3: …") into "file:3: …".
func yamlProblem(name string, err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		return fmt.Sprintf("%s:%d:%s", name, line, strings.TrimPrefix(msg, fmt.Sprintf("line %d:", line)))
	}
	return fmt.Sprintf("%s: %s", name, msg)
}

// ParseYAMLRuleList parses a sequence of rules (the value of a rules key,
// in a rule file or a config file) and returns the rules that are valid
// and the problems of the others, as "file:line: message".
func ParseYAMLRuleList(name string, seq *yaml.Node) ([]YAMLRule, []string) {
	if seq.Kind != yaml.SequenceNode {
		if seq.Tag == "!!null" {
			return nil, nil
		}
		return nil, []string{fmt.Sprintf("%s:%d: rules: want a list of rules", name, seq.Line)}
	}
	var out []YAMLRule
	var problems []string
	for _, n := range seq.Content {
		r, ps := parseRule(name, n)
		if len(ps) > 0 {
			problems = append(problems, ps...)
			continue
		}
		out = append(out, r)
	}
	return out, problems
}

func parseRule(name string, n *yaml.Node) (YAMLRule, []string) {
	r := YAMLRule{File: name, Line: n.Line}
	var problems []string
	bad := func(line int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: ", name, line)+fmt.Sprintf(format, args...))
	}
	if n.Kind != yaml.MappingNode {
		bad(n.Line, "a rule is a mapping with id, pattern, decision, justification, match, not_match")
		return r, problems
	}
	seen := map[string]bool{}
	var patternNode *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			bad(k.Line, "duplicate key %q", k.Value)
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "id":
			r.ID = scalar(v, func(f string, a ...any) { bad(v.Line, "id: "+f, a...) })
		case "title":
			r.Title = scalar(v, func(f string, a ...any) { bad(v.Line, "title: "+f, a...) })
		case "decision":
			r.Decision = scalar(v, func(f string, a ...any) { bad(v.Line, "decision: "+f, a...) })
		case "justification":
			r.Justification = strings.TrimSpace(scalar(v, func(f string, a ...any) { bad(v.Line, "justification: "+f, a...) }))
		case "grantable":
			switch scalar(v, func(f string, a ...any) { bad(v.Line, "grantable: "+f, a...) }) {
			case "true":
				r.Grantable = true
			case "false":
			default:
				bad(v.Line, "grantable: want true or false")
			}
		case "pattern":
			patternNode = v
		case "match", "not_match":
			ex, ps := examples(name, k.Value, v)
			problems = append(problems, ps...)
			if k.Value == "match" {
				r.Match = ex
			} else {
				r.NotMatch = ex
			}
		default:
			bad(k.Line, "unknown key %q (want id, title, pattern, decision, justification, grantable, match, not_match)", k.Value)
		}
	}
	where := r.ID
	if where == "" {
		where = "(no id)"
	}
	switch {
	case r.ID == "":
		bad(n.Line, "rule has no id")
	case strings.ContainsAny(r.ID, " \t\n\"'"):
		bad(n.Line, "rule %s: id must not contain blanks or quotes", r.ID)
	}
	switch r.Decision {
	case "allow", "ask", "deny":
	case "":
		bad(n.Line, "rule %s: no decision (want allow, ask or deny)", where)
	default:
		bad(n.Line, "rule %s: decision %q: want allow, ask or deny", where, r.Decision)
	}
	if r.Grantable && r.Decision != "ask" {
		bad(n.Line, "rule %s: grantable: only ask rules can be granted", where)
	}
	if r.Decision == "deny" && r.Justification == "" {
		bad(n.Line, "rule %s: a deny rule needs a justification that names a safer alternative", where)
	}
	if patternNode == nil {
		bad(n.Line, "rule %s: no pattern", where)
	} else {
		r.Pattern = pattern(patternNode, func(line int, f string, a ...any) {
			bad(line, "rule %s: pattern: "+f, append([]any{where}, a...)...)
		}, r.Decision)
	}
	return r, problems
}

func scalar(v *yaml.Node, bad func(string, ...any)) string {
	if v.Kind != yaml.ScalarNode {
		bad("want a string")
		return ""
	}
	return v.Value
}

func examples(name, key string, v *yaml.Node) ([]Example, []string) {
	var problems []string
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, []string{fmt.Sprintf("%s:%d: %s: want a list of commands", name, v.Line, key)}
	}
	var out []Example
	for _, e := range v.Content {
		if e.Kind != yaml.ScalarNode || strings.TrimSpace(e.Value) == "" {
			problems = append(problems, fmt.Sprintf("%s:%d: %s: each example is a non-empty command string", name, e.Line, key))
			continue
		}
		out = append(out, Example{Text: e.Value, Line: e.Line})
	}
	return out, problems
}

// pattern reads and checks a pattern: a non-empty list whose entries are
// strings or non-empty lists of strings.
func pattern(v *yaml.Node, bad func(int, string, ...any), decision string) [][]string {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		bad(v.Line, "want a non-empty list of argv tokens (a list at a position means alternatives)")
		return nil
	}
	var out [][]string
	ok := true
	for i, e := range v.Content {
		var alts []string
		switch e.Kind {
		case yaml.ScalarNode:
			alts = []string{e.Value}
		case yaml.SequenceNode:
			for _, a := range e.Content {
				if a.Kind != yaml.ScalarNode {
					bad(a.Line, "position %d: alternatives are strings (lists do not nest)", i)
					ok = false
					continue
				}
				alts = append(alts, a.Value)
			}
			if len(e.Content) == 0 {
				bad(e.Line, "position %d: empty list of alternatives", i)
				ok = false
			}
		default:
			bad(e.Line, "position %d: want a token or a list of alternatives", i)
			ok = false
			continue
		}
		for _, a := range alts {
			switch {
			case a == "":
				bad(e.Line, "position %d: empty token", i)
				ok = false
			case strings.ContainsAny(a, " \t\n"):
				bad(e.Line, "position %d: token %q holds a blank: write one token per argv word", i, a)
				ok = false
			case i == 0 && strings.HasPrefix(a, "-"):
				bad(e.Line, "the first token is the program, not an option (%q)", a)
				ok = false
			case i == 0 && strings.Contains(a, "/"):
				bad(e.Line, "the program is matched by its base name: write %q, not %q", a[strings.LastIndex(a, "/")+1:], a)
				ok = false
			}
		}
		if decision != "allow" && len(alts) > 1 {
			opts := 0
			for _, a := range alts {
				if isOption(a) {
					opts++
				}
			}
			if opts != 0 && opts != len(alts) {
				bad(e.Line, "position %d mixes options and words: %v", i, alts)
				ok = false
			}
		}
		out = append(out, alts)
	}
	if !ok {
		return nil
	}
	return out
}

// isOption reports whether a pattern token is an option: it starts with a
// dash and is more than a dash.
func isOption(t string) bool { return len(t) > 1 && t[0] == '-' }

// Data returns the rule as policies/rules/yaml.rego reads it from
// data.rivumi.yaml.<decision>_by_program[program]:
//
//	{"id": …, "words": [[alternatives]…], "options": [[option]…], "later": [[alternatives]…]}
//
// For allow rules, words are every position after the program and options
// and later are empty. For deny and ask rules, words are the positions
// before the first option and later the words after it. Each option is
//
//	{"exact": "--force", "assign": "--force=", "names": ["force"], "letters": [{"letter": "f", "names": ["force"]}], "pair": []}
//
// exact is the token; pair, for a token --name=value, the same option
// written as two words; assign the "--name=" prefix of a long token; names
// the flag names (as in the segment's flags) that stand for it, from
// rivumi's option tables for the rule's programs and subcommands; letters,
// for a single-dash token, each letter with its flag names: the option is
// present when every letter is, in a bundle of short flags or by name.
func (r *YAMLRule) Data() map[string]any { return r.DataFor(nil) }

// DataFor is [YAMLRule.Data] with the option tables of a team's programs
// too (nil: the built-in ones only).
func (r *YAMLRule) DataFor(team *TeamPrograms) map[string]any {
	words := []any{}
	options := []any{}
	later := []any{}
	seenOption := false
	specs := r.specs(team)
	for _, alts := range r.Pattern[1:] {
		if r.Decision == "allow" || !isOption(alts[0]) {
			if seenOption {
				later = append(later, strList(alts))
			} else {
				words = append(words, strList(alts))
			}
			continue
		}
		seenOption = true
		pos := make([]any, 0, len(alts))
		for _, a := range alts {
			pos = append(pos, optionData(a, specs))
		}
		options = append(options, pos)
	}
	return map[string]any{"id": r.ID, "words": words, "options": options, "later": later}
}

// specs returns rivumi's option tables for the rule's programs and, when
// the pattern names a subcommand, for "program subcommand".
func (r *YAMLRule) specs(team *TeamPrograms) []*Spec {
	var out []*Spec
	spec := func(name string) *Spec {
		if s := ProgramSpec(name); s != nil {
			return s
		}
		return team.Spec(name)
	}
	for _, p := range r.Pattern[0] {
		if len(r.Pattern) > 1 && !isOption(r.Pattern[1][0]) {
			for _, sub := range r.Pattern[1] {
				if s := spec(p + " " + sub); s != nil {
					out = append(out, s)
				} else if s := spec(p); s != nil && s.SingleDashLong {
					out = append(out, s.Style()) // a subcommand parses as its program does
				}
			}
		}
		if s := spec(p); s != nil {
			out = append(out, s)
		}
	}
	return out
}

func optionData(t string, specs []*Spec) map[string]any {
	o := map[string]any{"exact": t, "assign": "", "names": []any{}, "letters": []any{}, "pair": []any{}}
	switch {
	case strings.HasPrefix(t, "--") && strings.Index(t, "=") > 2:
		i := strings.Index(t, "=")
		o["pair"] = []any{t[:i], t[i+1:]}
	case strings.Contains(t, "="), t == "--":
	case strings.HasPrefix(t, "--"):
		name := t[2:]
		o["assign"] = t + "="
		names := []string{name}
		for _, s := range specs {
			if opt, ok := s.LookupLong(name); ok {
				names = append(names, opt.Canon)
			}
		}
		o["names"] = strList(uniq(names))
	default:
		// -auto-approve, for a program whose long options take one dash.
		var names []string
		for _, s := range specs {
			if !s.SingleDashLong {
				continue
			}
			if opt, ok := s.LookupLong(t[1:]); ok {
				names = append(names, t[1:], opt.Canon)
			}
		}
		if len(names) > 0 {
			// The program does not bundle letters: -var=auto-approve=1
			// holds every letter of auto-approve and is not the option.
			o["names"] = strList(uniq(names))
			return o
		}
		letters := []any{}
		for _, c := range t[1:] {
			names := []string{string(c)}
			for _, s := range specs {
				if c < 0x80 {
					if opt, ok := s.Short[byte(c)]; ok {
						names = append(names, opt.Canon)
					}
				}
			}
			letters = append(letters, map[string]any{"letter": string(c), "names": strList(uniq(names))})
		}
		o["letters"] = letters
	}
	return o
}

// appendProblems adds err's problems to problems: each of a *RuleError's,
// or err's text.
func appendProblems(problems []string, err error) []string {
	var re *RuleError
	switch {
	case errors.As(err, &re):
		return append(problems, re.Problems...)
	case err != nil:
		return append(problems, err.Error())
	}
	return problems
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func strList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// PrefixWords returns the pattern's leading words, the program included:
// for allow rules every position, for deny and ask rules the positions
// before the first option.
func (r *YAMLRule) PrefixWords() [][]string {
	if r.Decision == "allow" {
		return r.Pattern
	}
	for i, alts := range r.Pattern {
		if isOption(alts[0]) {
			return r.Pattern[:i]
		}
	}
	return r.Pattern
}
