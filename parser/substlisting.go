package parser

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Listings in a command substitution: `grep -n TODO $(find src -name
// '*.py')` and `cat $(git ls-files '*.md')` run a reader on paths a
// listing printed, as `find … | xargs grep` does (listing.go). When the
// substitution is one find that only prints paths (or one plain git
// ls-files) and the program is one whose options no split path can turn
// against the user (splitSafe: the output is split at blanks, and git
// ls-files may print a name starting with '-'), the segment reads the
// listing's roots: they become its operands, dynamic and classed, with
// the tag listed-args, as for xargs. The substitution itself is graded on
// its own, as before.

// gitListFlags are the git ls-files options whose output is paths below
// the cwd, relative to it, one per line.
var gitListFlags = map[string]bool{
	"cached": true, "c": true, "modified": true, "m": true, "others": true, "o": true, "exclude-standard": true,
	"deleted": true, "d": true,
}

// gitListing reports a plain git ls-files of static words with only the
// options in gitListFlags, and the patterns it selects names by.
func gitListing(s *Segment) (globs []string, ok bool) {
	if s.Program != "git" || s.Subcommand != "ls-files" || !plainRun(s) || len(s.Redirects) > 0 {
		return nil, false
	}
	for _, f := range s.Flags {
		if !gitListFlags[f] {
			return nil, false
		}
	}
	for _, o := range s.Operands { // pathspecs (the subcommand is not among them)
		if o.Text == "" || o.Text[0] == ':' || strings.Contains(o.Text, "/") {
			return nil, false // magic pathspecs, directories: not a name pattern
		}
		globs = append(globs, o.Text)
	}
	return globs, true
}

// substListing gives segment seg the roots of the listings its argument
// substitutions print, when every dynamic argument is one.
func (p *walker) substListing(seg *Segment, args []*syntax.Word, ws []word) {
	if len(args) != len(ws) || len(ws) < 2 || !splitSafe[seg.Program] || len(seg.Wrappers) > 0 ||
		(seg.PathKind != "bare" && seg.PathKind != "system") || !seg.HasTag(TagDynamicArgs) || seg.HasTag(TagListedArgs) {
		return
	}
	type listed struct {
		text  string
		find  *Segment
		globs []string
	}
	var found []listed
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.dynamic {
			continue
		}
		if !soleSubst(args[i]) {
			return
		}
		var inner []*Segment
		for _, s := range p.cmd.Segments[w.childFrom:w.childTo] {
			if s.Parent == seg.Index {
				inner = append(inner, s)
			} else if s.Parent < seg.Index || s.Parent >= w.childTo {
				return
			}
		}
		if len(inner) != 1 || inner[0].Kind != KindSubst || w.childTo-w.childFrom != 1 {
			return // a pipeline, a list, or a command with children of its own
		}
		s := inner[0]
		switch globs, ok := gitListing(s); {
		case findListing(s):
			found = append(found, listed{text: w.text, find: s})
		case ok:
			found = append(found, listed{text: w.text, globs: globs})
		default:
			return
		}
	}
	if len(found) == 0 {
		return
	}
	for _, l := range found {
		k := slices.IndexFunc(seg.Operands, func(o Operand) bool { return o.Dynamic && o.Text == l.text })
		if k < 0 {
			return // the word is an option's value: not a path read
		}
		seg.Operands = slices.Delete(seg.Operands, k, k+1)
	}
	for _, l := range found {
		var roots []Operand
		secret := false
		if l.find != nil {
			roots, secret = l.find.Operands, findsSecrets(l.find)
			if len(roots) == 0 {
				roots = []Operand{p.operand(word{text: ".", path: "."})}
			}
			seg.listedBy = l.find
		} else {
			roots = []Operand{p.operand(word{text: ".", path: "."})}
			seg.listedGlobs = append(seg.listedGlobs, l.globs...)
			for _, g := range l.globs {
				secret = secret || findsSecrets(&Segment{Options: map[string][]string{"name": {g}}})
			}
			if len(l.globs) == 0 {
				seg.listedGlobs = append(seg.listedGlobs, "*")
			}
		}
		for _, r := range roots {
			r.Dynamic = true
			if secret && r.LinkClass == "" {
				r.LinkClass = ClassSecret
			}
			seg.Operands = append(seg.Operands, r)
		}
	}
	seg.Tags = slices.DeleteFunc(seg.Tags, func(t string) bool { return t == TagDynamicArgs })
	seg.tag(TagListedArgs)
}

// soleSubst reports a word that is one command substitution, bare or in
// double quotes.
func soleSubst(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	switch x := w.Parts[0].(type) {
	case *syntax.CmdSubst:
		return true
	case *syntax.DblQuoted:
		if len(x.Parts) == 1 {
			_, ok := x.Parts[0].(*syntax.CmdSubst)
			return ok
		}
	}
	return false
}
