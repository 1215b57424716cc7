package shquote

import (
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

func TestWord(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ls", "ls"},
		{"a/b-c_d.e=f:g@h+i,j", "a/b-c_d.e=f:g@h+i,j"},
		{"", "''"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"~", "'~'"},
		{"a%b", "'a%b'"},
		{"é", "'é'"},
		{"\r\n", `$'\x0d\x0a'`},
		{"ls\rnpm i", `$'ls\x0dnpm i'`},
		{"a'\\\tb", `$'a\'\\\x09b'`},
		{"\x7f", `$'\x7f'`},
	} {
		if got := Word(tc.in); got != tc.want {
			t.Errorf("Word(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzWord checks that the shell reads Word(s) back as the one word s.
func FuzzWord(f *testing.F) {
	for _, s := range []string{"", "a b", "it's", "$(rm -rf /)", "`x`", "a\nb", "*?[a]", "{a,b}", "~root", "!!", "\\"} {
		f.Add(s)
	}
	p := syntax.NewParser()
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
			return // no shell word holds a NUL; mvdan's parser wants UTF-8
		}
		file, err := p.Parse(strings.NewReader("x "+Word(s)), "")
		if err != nil {
			t.Fatalf("Word(%q) does not parse: %v", s, err)
		}
		call := file.Stmts[0].Cmd.(*syntax.CallExpr)
		if len(call.Args) != 2 {
			t.Fatalf("Word(%q) is %d words", s, len(call.Args)-1)
		}
		got, err := expand.Fields(&expand.Config{}, call.Args[1])
		if err != nil || len(got) != 1 || got[0] != s {
			t.Fatalf("Word(%q) reads back as %q (%v)", s, got, err)
		}
	})
}
