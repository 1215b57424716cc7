package parser

import (
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestExtglobAlternatives(t *testing.T) {
	for _, tc := range []struct {
		word string
		want []string // nil: not spelled out
	}{
		{`/@(usr|var)`, []string{"/usr", "/var"}},
		{`/+(u)sr`, []string{"/usr"}},
		{`/tmp/?(x|y).log`, []string{"/tmp/x.log", "/tmp/y.log", "/tmp/.log"}},
		{`*(a)b`, []string{"ab", "b"}},
		{`/@(e*|b?n)`, []string{"/e*", "/b?n"}},
		{`/!(usr)`, nil},
		{`/@(a|@(b|c))`, nil},
		{`/@(a|b)/@(c|d)`, nil},
		{`"/"@(usr|var)`, nil},
		{`$x@(a|b)`, nil},
		{`/@(1|2|3|4|5|6|7|8|9)`, nil},
		{`/usr`, nil},
	} {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader("echo "+tc.word), "")
		if err != nil {
			t.Fatalf("%s: %v", tc.word, err)
		}
		w := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
		got, ok := extglobAlternatives(w)
		if !ok {
			got = nil
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.word, got, tc.want)
		}
	}
}
