package parser

import (
	"slices"
	"strings"
	"sync"

	"github.com/rivumi/rivumi/internal/shquote"
	"github.com/rivumi/rivumi/programs"
	"github.com/rivumi/rivumi/rules"
)

// Code carried by options and variables besides a program's code
// positions, as the registry states it: shell_options (tar --to-command,
// split --filter, zip --unzip-command), splice_options (perl -M'Mod;CODE'),
// load_options (node --require FILE) and env_options (PERL5OPT,
// NODE_OPTIONS on the command's own assignments) and env_files (BASH_ENV).

// optionCode parses the code that seg's options and its prefix
// assignments of env_options carry, for the registry entry e.
func (p *walker) optionCode(f *frame, seg *Segment, e *programs.Program) {
	if len(e.ShellOptions) > 0 {
		for _, k := range e.ShellOptions {
			for _, c := range seg.Options[k] {
				if w, dyn := seg.dynOpts[k+"\x00"+c]; dyn {
					p.dynamicCodeIn(f, seg, "shell", w)
					continue
				}
				p.script(f, c, seg.Index, KindScript, false)
			}
		}
	}
	for _, n := range e.EnvFiles {
		// The command's own assignment, else the value exported earlier
		// on the line (export BASH_ENV=e.sh; bash -c :).
		v, ok := p.envValue(seg, n)
		if !ok || v == "" {
			continue
		}
		abs := p.env.absolute(v)
		if p.downloaded(abs) {
			seg.tag(TagRunsDownloaded)
		}
		p.writtenCode(f, seg, abs) // echo 'rm -rf /' > e.sh; BASH_ENV=e.sh bash -c :
	}
	if len(e.SpliceOptions) == 0 && len(e.LoadOptions) == 0 {
		return
	}
	p.interpOptionCode(f, seg, e, seg.Options)
	for _, n := range e.EnvOptions {
		for _, a := range seg.Assigns {
			if a.Name != n {
				continue
			}
			if a.Dynamic {
				p.dynamicCode(seg, e.Language, word{text: a.Value, dynamic: true})
				continue
			}
			ws := envOptionWords(a.Value, n == "NODE_OPTIONS")
			_, opts, good := optScan(rules.ProgramSpec(seg.Program), ws, 0, false)
			if !good {
				seg.tag(TagDynamicCode)
				continue
			}
			p.interpOptionCode(f, seg, e, opts)
		}
	}
}

// interpOptionCode reads an interpreter's splice and load options in opts:
// a spliced value that is more than a module name is code in the entry's
// language; a loaded file written earlier on the line is graded as the code
// written.
func (p *walker) interpOptionCode(f *frame, seg *Segment, e *programs.Program, opts map[string][]string) {
	for _, k := range e.SpliceOptions {
		for _, v := range opts[k] {
			if w, dyn := seg.dynOpts[k+"\x00"+v]; dyn {
				p.dynamicCode(seg, e.Language, w)
				continue
			}
			if strings.ContainsAny(v, ";(){}'\"`$@ \t\n") {
				// perl -M'strict;system(…)' runs `use strict;system(…);`.
				p.opaque(f, seg, e.Language, "use "+v+";", false)
			}
		}
	}
	for _, k := range e.LoadOptions {
		for _, v := range opts[k] {
			if w, dyn := seg.dynOpts[k+"\x00"+v]; dyn {
				p.dynamicCode(seg, e.Language, w)
				continue
			}
			if v == "" {
				continue
			}
			abs := p.env.absolute(v)
			if p.downloaded(abs) {
				seg.tag(TagRunsDownloaded)
			}
			p.writtenCode(f, seg, abs)
		}
	}
}

// envOptionWords splits an options variable as the program does:
// whitespace separates options; with quotes, double quotes group
// (NODE_OPTIONS; perl splits PERL5OPT on whitespace alone).
func envOptionWords(v string, quotes bool) []word {
	var out []word
	var cur strings.Builder
	in, have := false, false
	for _, r := range v {
		switch {
		case quotes && r == '"':
			in, have = !in, true
		case !in && (r == ' ' || r == '\t' || r == '\n'):
			if have {
				out = append(out, word{text: cur.String(), path: cur.String()})
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		out = append(out, word{text: cur.String(), path: cur.String()})
	}
	return out
}

// envSplitExpand expands ${NAME} in an env -S string as env does, before it
// splits the string: from the variables env is handed (seg's prefix
// assignments, then the known exported ones); $HOME unknown is the home
// (~). Inside single quotes nothing expands; a name whose value is unknown
// stays, and the string stays dynamic. The value is one piece of one word
// (env does not split it), so it is quoted for the shell parse that
// follows.
func (p *walker) envSplitExpand(seg *Segment, s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	single, double := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && !single && i+1 < len(s):
			b.WriteByte(c)
			i++
			b.WriteByte(s[i])
			continue
		case c == '\'' && !double:
			single = !single
		case c == '"' && !single:
			double = !double
		case c == '$' && !single && strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				break
			}
			name := s[i+2 : i+end]
			val, ok := p.envValue(seg, name)
			switch {
			case !ok && name == "HOME" && !double:
				b.WriteString("~")
			case !ok:
				b.WriteString(s[i : i+end+1])
			case double:
				b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "`", "\\`").Replace(val))
			default:
				b.WriteString(shquote.Word(val))
			}
			i += end
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// envValue is the value of variable name in the environment seg's program
// is handed: its own prefix assignments first, then the exported known
// variables.
func (p *walker) envValue(seg *Segment, name string) (string, bool) {
	for k := len(seg.Assigns) - 1; k >= 0; k-- {
		if a := seg.Assigns[k]; a.Name == name {
			return a.Value, !a.Dynamic
		}
	}
	if p.vars == nil {
		return "", false
	}
	v, ok := p.vars.vars[name]
	if !ok || !v.Set || !v.Exported {
		return "", false
	}
	return p.vars.str(name)
}

// assignedCodeRuns reports whether the shell code in the value assigned to
// name may run later: a prompt or code variable (PS1, PS4 …), or a use
// other than a plain $name / ${name} expansion somewhere in the command
// (${name@P}, ${!ref}, arithmetic, eval, declare -n, an inline shell …).
// When it reports false, the value is only expanded as data (x='$(rm -rf
// /)'; echo "$x" prints it): the parser keeps it as dynamic code (never
// allowed) without grading it as commands that run.
func (p *walker) assignedCodeRuns(name string) bool {
	if strings.HasPrefix(name, "PS") || codeEnvNames[name] != "" || p.cmd == nil {
		return true
	}
	text := p.cmd.Text
	for _, s := range []string{"${!", "@P", "$((", "-c", "readonly"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	for _, s := range evaluatorSyntax() {
		if strings.Contains(text, s) {
			return true // (( x )), [[ $x -eq 0 ]]
		}
	}
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool { return r > 127 || !isNameByte(byte(r)) && r != '.' }) {
		if e := programs.Lookup(tok); e != nil && (slices.Contains(e.Kinds, "inline_code") || slices.Contains(e.Kinds, "evaluates_values")) {
			return true // eval "$x", let x, declare -n …
		}
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '$' {
			continue
		}
		rest := text[i+1:]
		switch {
		case strings.HasPrefix(rest, "{"+name+"}"):
		case strings.HasPrefix(rest, "{"+name):
			return true // ${name[…]}, ${name:-…}, ${name@…}: an operator
		case strings.HasPrefix(rest, name) && (len(rest) == len(name) || !isNameByte(rest[len(name)])):
			if len(rest) > len(name) && rest[len(name)] == '[' {
				return true
			}
		}
	}
	return false
}

// evaluatorSyntax lists the registry's evaluates_values names that are not
// words ((( and [[).
var evaluatorSyntax = sync.OnceValue(func() []string {
	var out []string
	for _, e := range programs.All() {
		if slices.Contains(e.Kinds, "evaluates_values") {
			for _, n := range e.Names {
				if strings.ContainsAny(n, "([") {
					out = append(out, n)
				}
			}
		}
	}
	return out
})

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
