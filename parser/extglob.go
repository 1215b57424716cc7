package parser

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Extended globs (shopt -s extglob on an earlier line): rm -rf /@(usr|var)
// deletes /usr and /var. The word stays dynamic, and the segment asks, as
// after any shopt; each alternative the pattern spells is graded in a
// reading below the segment, as if written out (/usr, then /var), so a
// floor shape among them is denied. A reading only adds reasons.

const extglobMax = 8 // alternatives read at most

// extglobReadings adds the readings of the first argument word holding an
// extended glob @(a|b), ?(a|b), +(a|b) or *(a|b) between literals, when
// every word of the command resolved to exactly one word.
func (p *walker) extglobReadings(f *frame, seg *Segment, args []*syntax.Word, ws []word) {
	if f.shell == "zsh" || len(args) != len(ws) {
		return
	}
	for i, a := range args {
		alts, ok := extglobAlternatives(a)
		if !ok {
			continue
		}
		for _, alt := range alts {
			n := len(p.cmd.Segments)
			reading := append([]word(nil), ws...)
			g := hasGlob(alt, f.shell)
			reading[i] = word{text: alt, path: alt, glob: g, pathGlob: g, derived: true, childFrom: n, childTo: n}
			p.execChild(f, seg, reading, "", "")
		}
		return
	}
}

// extglobAlternatives spells out a word made of unquoted literals around
// one extended glob whose alternatives are literals (or plain globs): each
// alternative, and the empty one for ?( ) and *( ). ok is false for any
// other word, for !( ), nesting, or more than extglobMax alternatives.
func extglobAlternatives(w *syntax.Word) ([]string, bool) {
	if !slices.ContainsFunc(w.Parts, func(p syntax.WordPart) bool { _, ok := p.(*syntax.ExtGlob); return ok }) {
		return nil, false // most words: nothing to build
	}
	var prefix, suffix strings.Builder
	var eg *syntax.ExtGlob
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(x.Value, `\{}`) {
				return nil, false
			}
			if eg == nil {
				prefix.WriteString(x.Value)
			} else {
				suffix.WriteString(x.Value)
			}
		case *syntax.ExtGlob:
			if eg != nil || x.Pattern == nil {
				return nil, false
			}
			eg = x
		default:
			return nil, false
		}
	}
	if eg == nil || strings.ContainsAny(eg.Pattern.Value, `()\'"$`+"`") {
		return nil, false
	}
	alts := strings.Split(eg.Pattern.Value, "|")
	switch eg.Op {
	case syntax.GlobOne, syntax.GlobOneOrMore:
	case syntax.GlobZeroOrOne, syntax.GlobZeroOrMore:
		alts = append(alts, "")
	default:
		return nil, false // !( ): everything but
	}
	if len(alts) > extglobMax {
		return nil, false
	}
	out := make([]string, len(alts))
	for i, a := range alts {
		out[i] = prefix.String() + a + suffix.String()
	}
	return out, true
}
