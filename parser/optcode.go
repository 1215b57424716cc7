package parser

import (
	"strings"

	"github.com/rivumi/rivumi/programs"
	"github.com/rivumi/rivumi/rules"
)

// Code carried by options and variables besides a program's code
// positions, as the registry states it: shell_options (tar --to-command,
// split --filter, zip --unzip-command), splice_options (perl -M'Mod;CODE'),
// load_options (node --require FILE) and env_options (PERL5OPT,
// NODE_OPTIONS on the command's own assignments).

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
