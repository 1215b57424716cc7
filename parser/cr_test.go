package parser

import (
	"slices"
	"testing"
)

// TestBareCR: a carriage return is refused (bash reads it as part of a
// word, mvdan's parser as a blank, and CR LF as a line end even inside
// quotes), but in a backslash, CR, LF sequence outside quotes, comments,
// TestBareCR: a carriage return is read as bash reads it, a character of
// the word (before a line feed too, and inside quotes), where rivumi can
// rewrite it for mvdan's parser; elsewhere (heredocs, substitutions,
// arithmetic, other dialects) the text is refused.
func TestBareCR(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string // argvs; nil: refused
	}{
		{"ls\rnpm install x", []string{"ls\rnpm install x"}},
		{"ls\r", []string{"ls\r"}},
		{"\r\nls -l", []string{"\r", "ls -l"}},
		{"echo 'a\rb'", []string{"echo a\rb"}},
		{"ls\r\nls", []string{"ls\r", "ls"}},
		{"ls 'a\r\nb'", []string{"ls a\r\nb"}},
		{"ls \"a\r\nb\"", []string{"ls a\r\nb"}},
		{"ls $'a\r\nb'", []string{"ls a\r\nb"}},
		{"ls\\\r\nls", []string{"ls\r", "ls"}},
		{"ls \\\r\n\\\r\nls", []string{"ls \r", "\r", "ls"}},
		{"ls \\\\\r\nls", []string{"ls \\\r", "ls"}},
		{"ls 'a\\\r\nb'", []string{"ls a\\\r\nb"}},
		{"ls \"a\\\r\nb\"", []string{"ls a\\\r\nb"}},
		{"ls $'a\\\r\nb'", []string{"ls a\\\r\nb"}},
		{"ls # a\\\r\nrm x", []string{"ls", "rm x"}},
		{"ls #a\rnpm x", []string{"ls"}},
		{"ls a#b\rc", []string{"ls a#b\rc"}},
		{"cat <<E\na\\\r\nE", nil},
		{"echo $((1 \\\r\n+ 1))", nil},
		// A dynamic word keeps its source, as rewritten.
		{"echo $(ls\r)", []string{"echo $(ls$'\\r')", "ls\r"}},
		{"echo $( ls \\\r\nnpm x\n)", []string{"echo $( ls $'\\r'\nnpm x\n)", "ls \r", "npm x"}},
		{"echo \"$(ls 'a\rb')\"", nil},
		{"echo `ls\r`", nil},
		{"echo $\r", nil},
		{"ls\nls", []string{"ls", "ls"}},
	} {
		c, err := Parse(tc.text)
		switch {
		case tc.want == nil && err == nil:
			t.Errorf("Parse(%q) = %q, want refused", tc.text, argvs(c))
		case tc.want != nil && err != nil:
			t.Errorf("Parse(%q): %v, want %q", tc.text, err, tc.want)
		case tc.want != nil && !slices.Equal(argvs(c), tc.want):
			t.Errorf("Parse(%q) = %q, want %q", tc.text, argvs(c), tc.want)
		}
	}
	for _, sh := range []string{"sh", "zsh"} {
		if _, err := Parse("ls\rnpm", Shell(sh)); err == nil {
			t.Errorf("Parse(ls⏎npm, %s): no error", sh)
		}
	}
}
