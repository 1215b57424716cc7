package adversarial_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/verdict"
)

// allocated returns the bytes allocated while fn ran.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestBadInput grades hostile inputs: each is answered (never a panic), is
// never allowed, carries a reason, and costs memory in proportion to its
// size at most (what grading it allocates is compared with its length).
func TestBadInput(t *testing.T) {
	e := eng(t)
	ctx := context.Background()
	big := strings.Repeat("a", 10<<20)
	cases := []struct {
		name string
		text string
	}{
		{"10 MB command", "ls " + big},
		{"10 MB of words", strings.Repeat("ls -la ", (10<<20)/7)},
		{"100,000 nested parentheses", strings.Repeat("(", 100000) + "ls" + strings.Repeat(")", 100000)},
		{"100,000 nested substitutions", strings.Repeat("$(", 100000) + "ls" + strings.Repeat(")", 100000)},
		{"100,000 nested braces", strings.Repeat("{ ", 100000) + "ls" + strings.Repeat("; }", 100000)},
		{"20,000-segment pipeline", "ls" + strings.Repeat(" | cat", 19999)},
		{"20,000 statements", strings.Repeat("ls; ", 20000)},
		{"50 MB heredoc", "cat <<'EOF'\n" + strings.Repeat("rm -rf /\n", (50<<20)/9) + "EOF"},
		{"50 MB heredoc into sh", "sh <<'EOF'\n" + strings.Repeat("echo hi\n", (50<<20)/8) + "EOF"},
		{"NUL byte", "ls\x00-la"},
		{"NUL after a command", "ls -la\x00; rm -rf /"},
		{"NUL in a quoted word", "echo 'a\x00b'"},
		{"invalid UTF-8", "ls \xff\xfe\xfd"},
		{"invalid UTF-8 program", "\xc3\x28 -la"},
		{"lone surrogate bytes", "echo \xed\xa0\x80"},
		{"eval 100,000 deep", strings.Repeat("eval ", 100000) + "ls"},
		{"bash -c 12 deep", nestQuote(12, "ls")},
	}
	for _, c := range cases {
		var v verdict.Verdict
		bytes := allocated(func() { v = e.EvaluateText(ctx, c.text, evalOpts("bash")...) })
		reason := "(none)"
		if len(v.Reasons) > 0 {
			reason = v.Reasons[0].Rule + ": " + v.Reasons[0].Justification
		}
		t.Logf("%-30s %9d bytes in → %-5s, %9d bytes allocated; %s", c.name, len(c.text), v.Decision, bytes, reason)
		if v.Decision == verdict.Allow {
			t.Errorf("%s: allowed", c.name)
		}
		if len(v.Reasons) == 0 || v.Reasons[0].Justification == "" && v.Reasons[0].Title == "" {
			t.Errorf("%s: %s without a reason", c.name, v.Decision)
		}
		// Grading may hold the text and a parse of it, not copies per
		// level, segment or line.
		if limit := uint64(16*len(c.text)) + 16<<20; bytes > limit {
			t.Errorf("%s: %d bytes allocated for %d bytes of input (limit %d)", c.name, bytes, len(c.text), limit)
		}
	}
}

// nestQuote nests cmd in n levels of bash -c '…' (the quoting grows four
// times per level: keep n small).
func nestQuote(n int, cmd string) string {
	for i := 0; i < n; i++ {
		cmd = "bash -c " + sq(cmd)
	}
	return cmd
}

func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestBadInputScaling grades inputs of size n and 2n below the parser's
// limits and checks that the memory allocated grows linearly: twice the
// input may cost a little more than twice the bytes, never four times.
func TestBadInputScaling(t *testing.T) {
	ctx := context.Background()
	// Caches off: a cached answer would measure the cache, not the grading
	// (and the caches keep only commands up to 4 KiB, which n and 2n
	// straddle).
	e, err := engine.New(ctx, engine.CacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	shapes := []struct {
		name string
		gen  func(n int) string
	}{
		{"long word", func(n int) string { return "ls " + strings.Repeat("a", 50*n) }},
		{"many words", func(n int) string { return "ls" + strings.Repeat(" -la", 10*n) }},
		{"many quotes", func(n int) string { return "echo " + strings.Repeat(`'a'"b"$'c'`, 4*n) }},
		{"segments", func(n int) string { return "ls" + strings.Repeat(" | cat", n/4) }},
		{"statements", func(n int) string { return strings.Repeat("ls;", n/4) }},
		{"nesting", func(n int) string { return strings.Repeat("(", n/50) + "ls" + strings.Repeat(")", n/50) }},
		{"substitutions", func(n int) string { return "echo" + strings.Repeat(" $(ls)", n/4) }},
		{"heredoc", func(n int) string { return "cat <<'EOF'\n" + strings.Repeat("rm -rf /\n", 4*n) + "EOF" }},
		{"heredoc into sh", func(n int) string { return "sh <<'EOF'\n" + strings.Repeat("echo hi\n", n/4) + "EOF" }},
		{"bash -c chain", func(n int) string { return "bash -c " + sq(strings.Repeat("ls; ", n/4)) }},
		{"arguments to classify", func(n int) string { return "cat" + strings.Repeat(" ../x/./y//z", n/4) }},
		{"brace expansion", func(n int) string { return "echo" + strings.Repeat(" {a,b}", n/8) }},
	}
	const n = 1600 // shapes stay under the default limits at 2n
	for _, s := range shapes {
		a, b := s.gen(n), s.gen(2*n)
		for _, txt := range []string{a, b} {
			if len(txt) > parser.DefaultMaxBytes {
				t.Fatalf("%s: %d bytes is over the size limit; lower n", s.name, len(txt))
			}
		}
		// Warm up, then take the smaller of three measurements. Each run
		// gets a statement of its own at the end, so that no two texts are
		// the same.
		run := 0
		grade := func(txt string) func() {
			return func() {
				run++
				e.EvaluateText(ctx, fmt.Sprintf("%s\n: run%d", txt, run), evalOpts("bash")...)
			}
		}
		grade(a)()
		ma, mb := minAlloc(grade(a)), minAlloc(grade(b))
		ratio := float64(mb) / float64(max(ma, 1))
		t.Logf("%-22s n=%7d bytes: %9d allocated; 2n: %9d (×%.2f)", s.name, len(a), ma, mb, ratio)
		if mb > 3*ma+(256<<10) {
			t.Errorf("%s: allocations grow faster than linearly: %d for %d bytes, %d for %d bytes", s.name, ma, len(a), mb, len(b))
		}
	}
}

func minAlloc(fn func()) uint64 {
	m := ^uint64(0)
	for i := 0; i < 3; i++ {
		m = min(m, allocated(fn))
	}
	return m
}

// TestBadInputLimitsNamed checks that a limit hit is a deny that names the
// limit, for each of the parser's limits.
func TestBadInputLimitsNamed(t *testing.T) {
	e := eng(t)
	for _, c := range []struct{ text, limit string }{
		{"ls " + strings.Repeat("a", parser.DefaultMaxBytes), "size"},
		{strings.Repeat("(", parser.DefaultMaxDepth+1) + "ls" + strings.Repeat(")", parser.DefaultMaxDepth+1), "depth"},
		{strings.Repeat("ls;", parser.DefaultMaxSegments+1), "segments"},
		{strings.Repeat("eval ", parser.DefaultMaxRecursion+2) + "ls", "recursion"},
	} {
		v := e.EvaluateText(context.Background(), c.text, evalOpts("bash")...)
		got := fmt.Sprint(v.Reasons)
		if v.Decision != verdict.Deny || len(v.Reasons) == 0 || v.Reasons[0].Rule != engine.RuleLimit || !strings.Contains(got, c.limit) {
			t.Errorf("%s limit: %s %v, want deny by %s naming the limit", c.limit, v.Decision, got, engine.RuleLimit)
		}
	}
}
