package parser

import (
	"strings"
	"sync"
)

// Paths handed over by a listing: `find … | xargs grep -l X` and
// `find … -exec grep -l X {} \;` run their command on paths find prints,
// which all lie below find's roots. The command then reads those roots as
// far as anyone can tell, and its segment carries them as operands (dynamic,
// classed by the root) and the tag listed-args, which says that the
// arguments appended at run time are such paths and nothing else: no
// option can hide among them.

// xargsHarmless are the xargs options (canonical names) that only change
// how arguments are batched: -I/-i place them inside words, -a reads them
// from a file, -d splits paths into pieces ("./-rf" by "/"), -o and -p
// talk to the terminal, --process-slot-var sets a variable.
var xargsHarmless = map[string]bool{
	"null": true, "max-args": true, "max-lines": true, "L": true, "max-procs": true, "no-run-if-empty": true,
	"max-chars": true, "exit": true, "verbose": true, "E": true, "eof": true,
}

// splitSafe are programs whose options, should a path split at a blank
// become one (xargs without -0 splits "./a --x=/y b" into three words),
// can neither run nor write anything nor print another file: cat, head,
// tail, grep (-f reads patterns, never printed), ls, stat. wc
// (--files0-from prints names it reads), file (-m prints magic-file lines)
// and sort (--compress-program runs a program) are not.
var splitSafe = map[string]bool{
	"cat": true, "head": true, "tail": true, "grep": true, "egrep": true, "fgrep": true, "ls": true, "stat": true,
}

// findListing reports whether find segment s only prints paths (no
// action, and no -printf or -ls whose text is not the path), with static
// roots, run as the real find.
func findListing(s *Segment) bool {
	if s.Program != "find" || !plainRun(s) {
		return false
	}
	for _, f := range s.Flags {
		switch f {
		case "exec", "execdir", "ok", "okdir", "delete", "printf", "fprintf", "fprint", "fprint0", "fls", "ls", "files0-from",
			"L", "follow":
			// -L and -follow descend through links: the paths below a root
			// would not lie below it.
			return false
		}
	}
	for _, o := range s.Operands {
		if o.Dynamic {
			return false
		}
	}
	return true
}

// plainRun reports a segment that runs the real program (bare or from a
// system directory) with static words, no wrapper and an unchanged shell.
func plainRun(s *Segment) bool {
	return (s.PathKind == "bare" || s.PathKind == "system") && len(s.Wrappers) == 0 &&
		!s.HasTag(TagDynamicArgs) && !s.HasTag(TagDynamicProgram) && !s.HasTag(TagChangedShell)
}

// listingRoots returns the roots of the find whose output reaches stage i
// of a pipeline, looking through filters that only pass some of its lines
// on (grep PATTERN, head, tail, sort, uniq reading stdin), and whether
// one does.
func (p *walker) listingRoots(info *pipeInfo, i int) (find *Segment, roots []Operand, secret, ok bool) {
	for k := i - 1; k >= 0 && len(info.stages[k]) == 1; k-- {
		s := p.cmd.Segments[info.stages[k][0]]
		if findListing(s) {
			if len(s.Operands) == 0 {
				return s, []Operand{p.operand(word{text: ".", path: "."})}, findsSecrets(s), true
			}
			return s, s.Operands, findsSecrets(s), true
		}
		if !lineFilter(s) {
			return nil, nil, false, false
		}
	}
	return nil, nil, false, false
}

// lineFilter reports a stage that passes on some of its input lines
// unchanged: grep PATTERN (no -r, no files), head, tail, sort, uniq with
// no file operands.
func lineFilter(s *Segment) bool {
	if (s.PathKind != "bare" && s.PathKind != "system") || len(s.Wrappers) > 0 || s.HasTag(TagDynamicArgs) ||
		len(s.Writes) > 0 || s.hdoc != nil {
		return false
	}
	for _, r := range s.Redirects {
		if strings.Contains(r.Op, "<") {
			return false
		}
	}
	switch s.Program {
	case "grep", "egrep", "fgrep":
		for _, f := range s.Flags {
			switch f {
			case "recursive", "dereference-recursive", "files-with-matches", "files-without-match", "count",
				"only-matching", "byte-offset", "line-number", "with-filename", "null-data", "null":
				return false // other text than the lines, or files read
			}
		}
		return patternFirst(s) && len(s.Operands) == 1
	case "head", "tail", "sort", "uniq":
		return len(s.Operands) == 0 && len(s.Options["output"]) == 0 && !hasFlag(s.Flags, "follow")
	}
	return false
}

// xargsListing gives an xargs command at stage i the roots of the listing
// that feeds it: with only batching options on xargs, no dynamic word of
// its own, and either -0 (each path whole) or a command that no split
// path can turn against the user (see splitSafe).
func (p *walker) xargsListing(info *pipeInfo, i int, seg *Segment) {
	if seg.HasTag(TagDynamicArgs) || seg.xargsOpts == nil {
		return
	}
	nul := false
	for k, vals := range seg.xargsOpts {
		switch {
		case k == "null":
			nul = true
		case k == "NUM" && len(vals) == 1 && vals[0] == "0":
			nul = true // -0, read as a -NUM option
		case !xargsHarmless[k]:
			return
		}
	}
	if !nul && !splitSafe[seg.Program] {
		return
	}
	find, roots, secret, ok := p.listingRoots(info, i)
	if !ok {
		return
	}
	seg.listedBy = find
	for _, r := range roots {
		r.Dynamic = true
		if secret && r.LinkClass == "" {
			r.LinkClass = ClassSecret
		}
		seg.Operands = append(seg.Operands, r)
	}
	seg.tag(TagListedArgs)
}

// findsSecrets reports a find whose -name, -iname, -path or -ipath
// pattern matches a secret's name (find . -name .env, -name '*.pem'): what
// it lists is read as a secret.
func findsSecrets(s *Segment) bool {
	for _, k := range []string{"name", "iname", "path", "ipath", "wholename", "iwholename"} {
		for _, v := range s.Options[k] {
			pat := bashBracket(baseName(v))
			if k[0] == 'i' {
				pat = strings.ToLower(pat)
			}
			if pat == "" || strings.Trim(pat, "*?") == "" {
				continue // -name '*' lists everything, as no -name does
			}
			for _, n := range secretSamples() {
				if globNames(pat, n) {
					return true
				}
			}
		}
	}
	return false
}

// secretSamples are the names of secrets, hidden ones included, and the
// spellings their patterns stand for. Computed once: the tables are fixed.
var secretSamples = sync.OnceValue(func() []string {
	out := []string{}
	for _, n := range specialNames() {
		if isSecretName(n) {
			out = append(out, n)
		}
	}
	for n, on := range secretNames {
		if on && strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	return append(out, ".env.local", ".env.production")
})

// findChildListed tags the segments find -exec/-execdir runs, from first
// on, when their only dynamic words are {} standing for the paths below
// find's static roots.
func (p *walker) findChildListed(parent *Segment, first int) {
	for _, o := range parent.Operands {
		if o.Dynamic {
			return
		}
	}
	if hasFlag(parent.Flags, "L") || hasFlag(parent.Flags, "follow") {
		return // through links, {} leaves the roots
	}
	secret := findsSecrets(parent)
	for _, c := range p.cmd.Segments[first:] {
		if c.Parent != parent.Index || c.Kind != KindExec || !c.fillOnly {
			continue
		}
		c.tag(TagListedArgs)
		c.listedBy = parent
		for k := range c.Operands {
			if o := &c.Operands[k]; secret && o.Text == "{}" && o.LinkClass == "" {
				o.LinkClass = ClassSecret
			}
		}
	}
}
