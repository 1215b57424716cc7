package parser

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Tildes that bash expands beyond a word's start: in an assignment's value
// after every unquoted ':' (x=a:~/b, PATH=~/bin:~/go/bin; dash too), and,
// in bash's default mode, in an argument that looks like an assignment
// after its first '=' and every ':' (echo of=~/x passes of=/home/u/x; dash
// and bash --posix leave such words alone). mvdan's expand does neither:
// the word is rewritten with HOME in their place before it is expanded.

// colonTildes returns w with those tildes replaced by home. arg says that w
// is a whole argument word (NAME=… included); otherwise it is an
// assignment's value. found reports that w has such a tilde; ok is false
// when one is there but its value cannot be known here (~user, ~+, a
// tilde-prefix running into quotes or an expansion, an unusual home).
func colonTildes(w *syntax.Word, home string, arg bool) (out *syntax.Word, found, ok bool) {
	if w == nil || !litTilde(w) {
		return w, false, true // most values: no ~ outside quotes at all
	}
	first, isLit := w.Parts[0].(*syntax.Lit)
	if arg && (!isLit || assignPrefix(first.Value) < 0) {
		return w, false, true
	}
	var parts []syntax.WordPart
	for i, part := range w.Parts {
		l, isLit := part.(*syntax.Lit)
		if !isLit {
			continue
		}
		start := 0
		if arg && i == 0 {
			start = assignPrefix(l.Value) // the tilde right after NAME=
		}
		if i > 0 && strings.HasPrefix(l.Value, "~") {
			return w, true, false // "a:"~ or $x~: not worth telling apart
		}
		v, f, good := replaceTildes(l.Value, start, home, i == len(w.Parts)-1)
		if !f {
			continue
		}
		if strings.Contains(l.Value, `\`) {
			return w, true, false // an escaped ':' or '~'
		}
		found = true
		if !good {
			return w, true, false
		}
		if parts == nil {
			parts = append([]syntax.WordPart(nil), w.Parts...)
		}
		parts[i] = &syntax.Lit{ValuePos: l.ValuePos, ValueEnd: l.ValueEnd, Value: v}
	}
	if !found {
		return w, false, true
	}
	return &syntax.Word{Parts: parts}, true, true
}

// assignTildeRisk is colonTildes' cheap first test for an argument: a
// leading literal with '=' and a '~' in some literal.
func assignTildeRisk(w *syntax.Word) bool {
	if w == nil || len(w.Parts) == 0 {
		return false
	}
	first, ok := w.Parts[0].(*syntax.Lit)
	return ok && strings.IndexByte(first.Value, '=') >= 0 && litTilde(w)
}

// litTilde reports a '~' in some unquoted literal of w.
func litTilde(w *syntax.Word) bool {
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok && strings.IndexByte(l.Value, '~') >= 0 {
			return true
		}
	}
	return false
}

// assignPrefix returns the length of a leading NAME=, NAME+= or
// NAME[sub]= in s, -1 when s does not start with one.
func assignPrefix(s string) int {
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || i > 0 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i == 0 {
		return -1
	}
	if i < len(s) && s[i] == '[' {
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			return -1
		}
		i += j + 1
	}
	if i < len(s) && s[i] == '+' {
		i++
	}
	if i < len(s) && s[i] == '=' {
		return i + 1
	}
	return -1
}

// replaceTildes replaces, in an unquoted literal, the tilde-prefixes at
// start (when start > 0) and after every ':' from there on. last says the
// literal ends the word (a prefix running to its end is complete).
func replaceTildes(v string, start int, home string, last bool) (string, bool, bool) {
	var b strings.Builder
	found := false
	at := func(i int) bool { return i == start && start > 0 || i > start && v[i-1] == ':' }
	for i := 0; i < len(v); i++ {
		if v[i] != '~' || !at(i) {
			b.WriteByte(v[i])
			continue
		}
		found = true
		end := i + 1
		for end < len(v) && v[end] != '/' && v[end] != ':' {
			end++
		}
		if end != i+1 || end == len(v) && !last || !plainHome(home) {
			return "", true, false // ~user, ~+, ~"x", ~$y, or no usable home
		}
		b.WriteString(home)
	}
	return b.String(), found, true
}

// plainHome reports a home directory that reads as itself inside an
// unquoted literal: nothing bash would unescape, expand, split or glob.
func plainHome(h string) bool {
	if h == "" || h[0] != '/' {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if c != '/' && c != '_' && c != '.' && c != '-' && c != '+' && c != '@' && c != ',' && c != '%' &&
			(c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
