package hook

// Claude Code's Skill tool and its scheduled tasks (CronCreate).
//
// A skill is a Markdown file whose `!`cmd“ spans and ```! blocks Claude
// Code runs through its Bash tool when the skill is invoked — after it has
// substituted the model's arguments into the text, and without a
// PreToolUse hook for those commands. So the Skill call itself is graded:
// rivumi finds every file the skill's name can stand for, substitutes the
// arguments exactly as Claude Code does (read from 2.1.197: function Pft,
// the O6 escaper, the inline and block patterns of Bfe), extracts the
// commands and grades each as a shell command; the strictest verdict wins.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/rivumi/rivumi/internal/lazyre"
	"github.com/rivumi/rivumi/internal/winpath"
	"github.com/rivumi/rivumi/verdict"
)

// Rules of the skill grading (hook layer reasons).
const (
	// RuleSkillUnsearchable: a tree too large to search for the skill's
	// files completely.
	RuleSkillUnsearchable = "hook.skill-unsearchable"
	// RuleSkillUnreadable: a skill's file rivumi found but cannot read
	// or understand (its frontmatter's arguments, a PowerShell skill).
	RuleSkillUnreadable = "hook.skill-unreadable"
)

// skillWalkLimit bounds the directories searched for nested skills (the
// workspace's own .claude directories, the plugins): past it the search is
// incomplete and the call asks.
const skillWalkLimit = 20000

// skillFile is one file a skill name can stand for.
type skillFile struct {
	path  string // native path
	skill bool   // a SKILL.md (its directory is ${CLAUDE_SKILL_DIR}); else a legacy command file
}

// skill is what a Skill call runs.
type skill struct {
	name     string
	files    []skillFile
	commands []skillCommand
	problems []verdict.Reason // reasons to ask, whatever the commands say
}

// skillCommand is one shell command a skill file runs.
type skillCommand struct {
	file    string
	command string
}

// skillCall reads a Claude Code Skill call: {skill, args}. ok is false when
// no file of that name exists where Claude Code looks (a bundled skill, an
// MCP prompt; or a directory given with --add-dir, which rivumi cannot
// see) or the files run no command: rivumi has no opinion then.
func skillCall(cfg *Config, in map[string]any, cwd, workspace, sessionID string) (*skill, bool, error) {
	name, ok := in["skill"].(string)
	if !ok || name == "" {
		return nil, false, errors.New(`"tool_input.skill": not a non-empty string`)
	}
	var args *string
	switch a := in["args"].(type) {
	case nil:
	case string:
		args = &a
	default:
		return nil, false, errors.New(`"tool_input.args": not a string`)
	}
	name = strings.TrimPrefix(name, "/")
	parts := strings.Split(name, ":")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.ContainsAny(p, "/\\\x00") {
			return nil, false, fmt.Errorf(`"tool_input.skill": %q is not a skill name`, name)
		}
	}
	s := &skill{name: name}
	s.find(cfg, parts, cwd, workspace)
	for _, f := range s.files {
		b, err := os.ReadFile(f.path)
		if err != nil {
			s.problems = append(s.problems, skillProblem(RuleSkillUnreadable, fmt.Sprintf("rivumi cannot read the skill file %s: %v", f.path, err)))
			continue
		}
		if !utf8.Valid(b) {
			s.problems = append(s.problems, skillProblem(RuleSkillUnreadable, "the skill file "+f.path+" is not UTF-8 text"))
			continue
		}
		text := string(b)
		fm, err := skillFrontmatter(text)
		if err != nil {
			s.problems = append(s.problems, skillProblem(RuleSkillUnreadable, fmt.Sprintf("rivumi cannot read the frontmatter of %s (%v), so it cannot tell how the arguments are substituted", f.path, err)))
			continue
		}
		if strings.EqualFold(strings.TrimSpace(fm.Shell), "powershell") && len(skillCommands(text)) > 0 {
			s.problems = append(s.problems, skillProblem(RuleSkillUnreadable, "the skill "+f.path+" runs its commands in PowerShell, which rivumi does not grade"))
			continue
		}
		dir := filepath.Dir(f.path)
		// The whole file is read, the frontmatter too: a command there
		// that Claude Code does not run only makes the verdict stricter.
		body := "Base directory for this skill: " + dir + "\n" + text
		seen := map[string]bool{}
		for _, split := range skillArgSplits(args) {
			t := substituteSkill(body, args, split, fm.names())
			if f.skill {
				t = strings.ReplaceAll(t, "${CLAUDE_SKILL_DIR}", dir)
			}
			t = strings.ReplaceAll(t, "${CLAUDE_PROJECT_DIR}", workspace)
			t = strings.ReplaceAll(t, "${CLAUDE_SESSION_ID}", sessionID)
			t = strings.ReplaceAll(t, "${CLAUDE_EFFORT}", "high") // an effort level: a plain word
			for _, c := range skillCommands(t) {
				if !seen[c] {
					seen[c] = true
					s.commands = append(s.commands, skillCommand{file: f.path, command: c})
				}
			}
		}
	}
	if len(s.commands) == 0 && len(s.problems) == 0 {
		return s, false, nil
	}
	return s, true, nil
}

func skillProblem(rule, text string) verdict.Reason {
	return verdict.Reason{Rule: rule, Decision: verdict.Ask, Segment: -1, Text: text}
}

// find collects every file the skill's name parts can stand for, in every
// place Claude Code loads skills and commands from: the managed policy
// directory, the user's (~/.claude or $CLAUDE_CONFIG_DIR), .claude of the
// cwd and each directory above it, any .claude directory inside the
// workspace (nested skills load when files there are touched), and the
// installed plugins. Several matches are all graded (which one Claude Code
// picks does not matter then).
func (s *skill) find(cfg *Config, parts []string, cwd, workspace string) {
	var roots []string
	root := func(p string) {
		if p != "" {
			roots = append(roots, p)
		}
	}
	switch cfg.GOOS {
	case "darwin":
		root("/Library/Application Support/ClaudeCode/.claude")
	case "windows":
		root(`C:\Program Files\ClaudeCode\.claude`)
	default:
		root("/etc/claude-code/.claude")
	}
	user := cfg.Getenv("CLAUDE_CONFIG_DIR")
	if user == "" && cfg.Home != "" {
		user = filepath.Join(nativePath(cfg, cfg.Home), ".claude")
	}
	root(user)
	for d := nativePath(cfg, cwd); ; {
		root(filepath.Join(d, ".claude"))
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	if workspace != "" {
		ws := nativePath(cfg, workspace)
		n := 0
		err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if n++; n > skillWalkLimit {
				return errSkillWalk
			}
			switch d.Name() {
			case ".git":
				return filepath.SkipDir
			case ".claude":
				if p != filepath.Join(ws, ".claude") {
					root(p)
				}
				return filepath.SkipDir
			}
			return nil
		})
		if errors.Is(err, errSkillWalk) {
			s.problems = append(s.problems, skillProblem(RuleSkillUnsearchable, fmt.Sprintf("the workspace holds over %d directories: rivumi cannot search it completely for nested skills named %q", skillWalkLimit, s.name)))
		}
	}
	seen := map[string]bool{}
	add := func(p string, isSkill bool) {
		if seen[p] {
			return
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			seen[p] = true
			s.files = append(s.files, skillFile{path: p, skill: isSkill})
		}
	}
	last := parts[len(parts)-1]
	for _, r := range roots {
		for _, ps := range [][]string{parts, {last}} {
			rel := filepath.Join(ps...)
			add(filepath.Join(r, "skills", rel, "SKILL.md"), true)
			add(filepath.Join(r, "commands", rel+".md"), false)
			add(filepath.Join(r, "commands", rel, "SKILL.md"), true)
		}
	}
	// Plugins (`plugin:skill`) live under <user>/plugins, in a directory
	// per marketplace and version: every skills/<last>/SKILL.md and
	// commands/<last>.md there is graded.
	if user != "" {
		plugins := filepath.Join(user, "plugins")
		n := 0
		err := filepath.WalkDir(plugins, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if n++; n > skillWalkLimit {
					return errSkillWalk
				}
				if d.Name() == ".git" || d.Name() == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			dir := filepath.Dir(p)
			switch {
			case d.Name() == "SKILL.md" && filepath.Base(dir) == last && filepath.Base(filepath.Dir(dir)) == "skills":
				add(p, true)
			case d.Name() == last+".md" && filepath.Base(dir) == "commands":
				add(p, false)
			}
			return nil
		})
		if errors.Is(err, errSkillWalk) {
			s.problems = append(s.problems, skillProblem(RuleSkillUnsearchable, fmt.Sprintf("%s holds over %d directories: rivumi cannot search it completely for the skill %q", plugins, skillWalkLimit, s.name)))
		}
	}
}

var errSkillWalk = errors.New("too many directories")

// nativePath turns a path of the hook's slash form into the OS's.
func nativePath(cfg *Config, p string) string {
	if cfg.GOOS == "windows" {
		return winpath.Native(p)
	}
	return p
}

// skillMeta is what rivumi reads of a skill's frontmatter.
type skillMeta struct {
	Arguments yaml.Node `yaml:"arguments"`
	Shell     string    `yaml:"shell"`
}

// names returns the named arguments as Claude Code reads them (v4n): a
// list, or a string split at white space; blank and all-digit names are
// dropped.
func (m skillMeta) names() []string {
	var raw []string
	switch m.Arguments.Kind {
	case yaml.SequenceNode:
		for _, n := range m.Arguments.Content {
			if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
				raw = append(raw, n.Value)
			}
		}
	case yaml.ScalarNode:
		if m.Arguments.Tag == "!!str" {
			raw = jsWhiteSplit(m.Arguments.Value)
		}
	}
	var out []string
	for _, n := range raw {
		if strings.TrimSpace(n) != "" && !allDigits(n) {
			out = append(out, n)
		}
	}
	return out
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// skillFrontmatter reads the YAML frontmatter (between a first line `---`
// and the next `---` line), if any.
func skillFrontmatter(text string) (skillMeta, error) {
	var m skillMeta
	t := strings.TrimPrefix(text, "\ufeff")
	if !strings.HasPrefix(t, "---\n") && !strings.HasPrefix(t, "---\r\n") {
		return m, nil
	}
	rest := t[strings.IndexByte(t, '\n')+1:]
	end := -1
	for off := 0; off < len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, " \t\r") == "---" {
			end = off
			break
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	if end < 0 {
		return m, nil // no closing line: no frontmatter
	}
	err := yaml.Unmarshal([]byte(rest[:end]), &m)
	if err != nil && strings.Contains(rest[:end], "arguments") {
		return m, err
	}
	return m, nil // a frontmatter Claude Code cannot read either names no arguments
}

// skillArgSplits returns the argument lists Claude Code may make of args
// (Uho: a shell parse of the words, else a split at white space): both,
// when they differ, so that every reading is graded.
func skillArgSplits(args *string) [][]string {
	if args == nil || strings.TrimSpace(*args) == "" {
		return [][]string{nil}
	}
	white := jsWhiteSplit(*args)
	out := [][]string{white}
	if words, ok := shellWords(*args); ok && strings.Join(words, "\x00") != strings.Join(white, "\x00") {
		out = append(out, words)
	}
	return out
}

// jsWhiteSplit is JavaScript's s.split(/\s+/).filter(Boolean).
func jsWhiteSplit(s string) []string {
	return strings.FieldsFunc(s, jsSpace)
}

// jsSpace is JavaScript's \s.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// shellWords splits s as a shell would split one simple command of plain
// words (quotes removed); ok is false for anything else.
func shellWords(s string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if strings.IndexByte("\\$`", s[j]) >= 0 {
					return nil, false
				}
			}
			if j == len(s) {
				return nil, false
			}
			cur.WriteString(s[i+1 : j])
			i = j
			in = true
		case strings.IndexByte("\\$`;&|<>(){}*?[]~#!=", c) >= 0:
			return nil, false
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, true
}

// namedArg is a named argument of a skill and its index in the list.
type namedArg struct {
	name string
	i    int
}

// skillMark stands for an escaped `\$` while substituting (Claude Code's
// U+FFFF).
const skillMark = "\uffff"

// substituteSkill substitutes args into text as Claude Code's Pft does
// (with the O6 escaper): `\$` before a digit, ARGUMENTS or a named
// argument stays a literal `$`; then, in this order, each named argument
// (`$name` not followed by `[` or a word character; longest names first),
// `$ARGUMENTS[N]`, `$N` (not followed by a word character), `$ARGUMENTS`;
// values are escaped against opening a new `!` span. With no placeholder
// and non-empty args, "\nARGUMENTS: args" is appended. args nil: text as is.
func substituteSkill(text string, args *string, split []string, names []string) string {
	if args == nil {
		return text
	}
	val := func(s string) string { return skillEscape(strings.ReplaceAll(s, skillMark, "")) }
	nth := func(i int) string {
		if i < len(split) {
			return val(split[i])
		}
		return val("") // undefined ?? ""
	}
	var ns []namedArg
	for i, n := range names {
		if n != "" {
			ns = append(ns, namedArg{n, i})
		}
	}
	// Longest first, stable (JavaScript's sort is stable).
	for i := 1; i < len(ns); i++ {
		for j := i; j > 0 && len(ns[j].name) > len(ns[j-1].name); j-- {
			ns[j], ns[j-1] = ns[j-1], ns[j]
		}
	}
	// `\$` → mark, where a placeholder follows (not after another `\`).
	escaped := false
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] == '\\' && i+1 < len(text) && text[i+1] == '$' && (i == 0 || text[i-1] != '\\') && placeholderAt(text[i+2:], ns) {
			b.WriteString(skillMark)
			i++
			escaped = true
			continue
		}
		b.WriteByte(text[i])
	}
	text = b.String()
	did := false
	for _, n := range ns {
		text = replaceDollar(text, func(rest string) (int, string, bool) {
			if !strings.HasPrefix(rest, n.name) || followsWord(rest[len(n.name):], true) {
				return 0, "", false
			}
			return len(n.name), nth(n.i), true
		}, &did)
	}
	text = replaceDollar(text, func(rest string) (int, string, bool) {
		if !strings.HasPrefix(rest, "ARGUMENTS[") {
			return 0, "", false
		}
		d := digits(rest[len("ARGUMENTS["):])
		if d == "" || !strings.HasPrefix(rest[len("ARGUMENTS[")+len(d):], "]") {
			return 0, "", false
		}
		return len("ARGUMENTS[") + len(d) + 1, nth(atoiSat(d)), true
	}, &did)
	text = replaceDollar(text, func(rest string) (int, string, bool) {
		d := digits(rest)
		// /\$(\d+)(?!\w)/: backtracking cannot help, a shorter run of
		// digits is followed by a digit.
		if d == "" || followsWord(rest[len(d):], false) {
			return 0, "", false
		}
		return len(d), nth(atoiSat(d)), true
	}, &did)
	text = replaceDollar(text, func(rest string) (int, string, bool) {
		if !strings.HasPrefix(rest, "ARGUMENTS") {
			return 0, "", false
		}
		return len("ARGUMENTS"), val(*args), true
	}, &did)
	if !did && *args != "" {
		text += "\nARGUMENTS: " + val(*args)
	}
	if escaped {
		text = strings.ReplaceAll(text, skillMark, "$")
	}
	return text
}

// placeholderAt reports whether rest starts with what Claude Code's
// escape lookahead accepts: a digit, ARGUMENTS, or a named argument not
// followed by `[` or a word character.
func placeholderAt(rest string, ns []namedArg) bool {
	if rest != "" && rest[0] >= '0' && rest[0] <= '9' || strings.HasPrefix(rest, "ARGUMENTS") {
		return true
	}
	for _, n := range ns {
		if strings.HasPrefix(rest, n.name) && !followsWord(rest[len(n.name):], true) {
			return true
		}
	}
	return false
}

// replaceDollar replaces, left to right without rescanning the values,
// each `$` at which match accepts the rest (the length it consumes after
// the `$`, and the value).
func replaceDollar(text string, match func(rest string) (int, string, bool), did *bool) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '$' {
			continue
		}
		n, v, ok := match(text[i+1:])
		if !ok {
			continue
		}
		*did = true
		b.WriteString(text[last:i])
		b.WriteString(v)
		last = i + 1 + n
		i = last - 1
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// followsWord reports whether rest starts with a JavaScript word character
// (or `[`, when bracket).
func followsWord(rest string, bracket bool) bool {
	if rest == "" {
		return false
	}
	c := rest[0]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || bracket && c == '['
}

func digits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// atoiSat is parseInt for a run of digits; past any list's length when huge.
func atoiSat(d string) int {
	n, err := strconv.Atoi(d)
	if err != nil {
		return int(^uint(0) >> 1)
	}
	return n
}

// skillEscape is Claude Code's O6: a value cannot open a `!` span.
func skillEscape(s string) string {
	s = strings.ReplaceAll(s, "`!", "` !")
	s = strings.ReplaceAll(s, "!`", "! `")
	return skillBang().ReplaceAllString(s, "$1\\!")
}

var (
	// (^|\s)! with the m flag: after a line start or a JavaScript space.
	skillBang = lazyre.New(`(?m)(^|[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}])!`)
	// ```!\s*\n?([\s\S]*?)\n?```
	skillBlock = lazyre.New(`\x60\x60\x60![\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]*\n?((?s:.)*?)\n?\x60\x60\x60`)
	// `[^`\n]+` (inline code spans, blanked before the inline search)
	skillCodeSpan = lazyre.New("`[^`\n]+`")
)

// skillCommands extracts the commands Claude Code runs from a skill's
// substituted text (Bfe): every ```! block, then every !`cmd` span at a
// line start or after white space, searched in the text with other inline
// code spans blanked (T4n); each trimmed, empty ones skipped.
func skillCommands(text string) []string {
	var out []string
	for _, m := range skillBlock().FindAllStringSubmatch(text, -1) {
		if c := strings.TrimFunc(m[1], jsSpace); c != "" {
			out = append(out, c)
		}
	}
	if !strings.Contains(text, "!`") {
		return out
	}
	t := blankCodeSpans(text)
	// (?<=^|\s)!`([^`]+)` with the m flag, by hand (no lookbehind).
	for i := 0; i+1 < len(t); i++ {
		if t[i] != '!' || t[i+1] != '`' {
			continue
		}
		if i > 0 {
			r, _ := utf8.DecodeLastRuneInString(t[:i])
			if !jsSpace(r) { // \n is a space too, so the m flag adds nothing
				continue
			}
		}
		j := strings.IndexByte(t[i+2:], '`')
		if j <= 0 {
			continue
		}
		if c := strings.TrimFunc(t[i+2:i+2+j], jsSpace); c != "" {
			out = append(out, c)
		}
		i += 2 + j // matchAll resumes after the match
	}
	return out
}

// blankCodeSpans is T4n: inline code spans not preceded by `!` or a
// backquote keep their backquotes and become spaces inside.
func blankCodeSpans(text string) string {
	re := skillCodeSpan()
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringIndex(text, -1) {
		if m[0] > 0 && (text[m[0]-1] == '!' || text[m[0]-1] == '`') {
			continue
		}
		b.WriteString(text[last:m[0]])
		b.WriteByte('`')
		b.WriteString(strings.Repeat(" ", utf16Len(text[m[0]+1:m[1]-1])))
		b.WriteByte('`')
		last = m[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

// utf16Len is a JavaScript string's length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// cronFile is where Claude Code keeps durable scheduled tasks, relative to
// the project.
const cronFile = ".claude/scheduled_tasks.json"

// cronCall reads a CronCreate call: a durable task is a write of the
// project's .claude/scheduled_tasks.json (agent configuration, which a
// later session runs); a session-only one changes no file (no opinion).
func cronCall(in map[string]any, cwd, workspace string) (call, bool, error) {
	switch d := in["durable"].(type) {
	case nil, bool:
		if d != true {
			return call{}, false, nil
		}
	default:
		return call{}, false, errors.New(`CronCreate: "durable" is not a boolean`)
	}
	return call{op: OpWrite, cwd: cwd, paths: []string{path.Join(workspace, cronFile)}}, true, nil
}

// describe is the skill call as the audit log shows it: the name and the
// commands it runs.
func (s *skill) describe() string {
	var b strings.Builder
	b.WriteString("skill " + s.name)
	for _, c := range s.commands {
		b.WriteString("\n!`" + c.command + "`")
	}
	return b.String()
}

// gradeSkill grades every command of the skill as a shell command in the
// agent's cwd; the strictest verdict wins, and any problem finding or
// reading the skill asks at least.
func gradeSkill(ctx context.Context, cfg *Config, c call, workspace string) (verdict.Verdict, error) {
	s := c.skill
	out := verdict.Verdict{Decision: verdict.Allow, Policy: PolicyID}
	var reasons []verdict.Reason
	for i, sc := range s.commands {
		v, err := gradeShell(ctx, cfg, call{shell: true, cwd: c.cwd, command: sc.command}, workspace)
		if err != nil {
			return v, err
		}
		if i == 0 || v.Decision > out.Decision {
			out.Policy = v.Policy
		}
		for _, r := range v.Reasons {
			r.Text = fmt.Sprintf("the skill %s runs `%s` (%s): %s", s.name, abridge(sc.command, 120), sc.file, r.Text)
			r.Segment = -1
			reasons = append(reasons, r)
		}
		out.Decision = verdict.Max(out.Decision, v.Decision)
	}
	for _, r := range s.problems {
		out.Decision = verdict.Max(out.Decision, r.Decision)
		reasons = append(reasons, r)
	}
	for _, r := range reasons {
		if r.Decision == out.Decision {
			out.Reasons = append(out.Reasons, r)
		}
	}
	return out, nil
}
