package parser

import (
	"strings"
	"testing"
)

func TestTextBuf(t *testing.T) {
	for _, writes := range [][]string{nil, {""}, {"a"}, {"", "a"}, {"a", ""}, {"ab", "c"}, {"a", "", "b", "cd"}, {"~", "/x"}} {
		var tb textBuf
		var sb strings.Builder
		for _, w := range writes {
			tb.WriteString(w)
			sb.WriteString(w)
			if tb.Len() != sb.Len() || tb.String() != sb.String() {
				t.Fatalf("after %q: textBuf has %q (len %d), strings.Builder %q", writes, tb.String(), tb.Len(), sb.String())
			}
		}
	}
}
