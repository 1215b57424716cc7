package parser_test

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/parser"
)

// Long && / || lists and pipelines are nested as deep as they are long by
// the syntax parser; walking them must not recurse that deep (50,000 `t&&`
// took ~200 MB of stack before), and they stop at the segment limit.
func TestLongListsStayFlat(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20)) // a deep recursion is a fatal error here
	for _, op := range []string{"&&", "||", "|", "|&", "&&t|"} {
		text := strings.Repeat("t"+op, 50000) + "t"
		c, err := parser.Parse(text)
		if err != nil || c.Shape.Limit != "segments" || len(c.Segments) > parser.DefaultMaxSegments {
			t.Errorf("%q×50000: err %v, limit %q, %d segments; want the segment limit", op, err, c.Shape.Limit, len(c.Segments))
		}
	}
	// Under the limit, every operand is a segment, in order.
	c, err := parser.Parse(strings.Repeat("a && b || c | d; ", 100))
	if err != nil || c.Shape.Limit != "" || len(c.Segments) != 400 {
		t.Fatalf("err %v limit %q segments %d, want 400", err, c.Shape.Limit, len(c.Segments))
	}
	for i, s := range c.Segments {
		if want := string("abcd"[i%4]); s.Program != want {
			t.Fatalf("segment %d is %q, want %q", i, s.Program, want)
		}
	}
}
