//go:build linux

package adversarial_test

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/verdict"
)

// divergenceBytes are what the sweep puts where a shell and a parser may
// read differently: a carriage return (alone and before a line feed),
// every other C0 control but NUL and line feed (a NUL cannot reach bash),
// DEL, invalid UTF-8 (a stray continuation byte, truncated sequences, an
// overlong slash, a surrogate, 0xff) and valid characters that look like
// blanks (no-break space, ideographic space, line separator).
func divergenceBytes() []string {
	var out []string
	for c := byte(1); c < 0x20; c++ {
		if c != '\n' {
			out = append(out, string([]byte{c}))
		}
	}
	return append(out, "\r\n", "\\\r\n", "\x7f", "\x80", "\xbf", "\xc3", "\xe2\x80", "\xf0\x9f\x98", "\xc0\xaf", "\xed\xa0\x80", "\xff", "\xfe",
		"\u00a0", "\u3000", "\u2028", "\u200b")
}

// divergenceTemplates hold X where a byte sequence goes: inside words
// (program names, arguments, quoted, escaped, assignments, after an
// operator), comments, and heredoc delimiters and the lines that may or
// may not end a heredoc.
var divergenceTemplates = []string{
	// words
	"lsXnpm install x",
	"ls Xnpm",
	"ls aXb",
	"Xls -l",
	"lsX",
	"ls -lX",
	"ls a X b",
	"ls 'aXb'",
	`ls "aXb"`,
	`ls a\Xb`,
	`ls \Xnpm`,
	"FOO=aXb ls",
	"ls a;Xnpm x",
	"ls|Xnpm x",
	"ls &&Xnpm x",
	"ls $(Xnpm x)",
	`ls "$(Xnpm x)"`,
	"ls $( ls \\X\nnpm x\n)",
	"ls $(ls 'aXb')",
	`ls 'a\Xb'`,
	`ls "a\Xb"`,
	`ls a\\Xb`,
	"ls `Xnpm x`",
	// comments
	"ls #aXb\nnpm x",
	"ls #aX\nnpm x",
	"#X\nnpm x",
	"ls #a\\X\nnpm x",
	"ls #aXnpm x",
	// heredoc delimiters and terminators
	"cat <<EXF\nnpm x\nEXF\nls",
	"cat <<'EXF'\nnpm x\nEXF\nls",
	"cat <<EOF\nbody\nEOFX\nnpm x\nEOF\nls",
	"cat <<EOF\nbody\nXEOF\nnpm x\nEOF\nls",
	"cat <<-EOF\n\tbody\n\tEOFX\nnpm x\nEOF\nls",
	"cat <<EOFX\nbody\nEOF\nnpm x\nEOFX\nls",
	"bash <<EOF\nls\nEOFX\nnpm x\nEOF\n",
	"cat <<EOF\n$(lsXnpm x)\nEOF",
	"cat <<EOF\na\\X\nnpm x\nEOF",
	"cat <<'EOF'\na\\X\nEOF\nnpm x",
}

// TestBashDivergenceSweep runs the templates with every byte sequence in
// real bash (the oracle's sandbox, which logs each program bash tries to
// run and runs none) and compares with rivumi's segments. Where bash runs
// a program whose argv no segment has, rivumi must have refused the text
// (a parse error: never allowed) or denied it: an allow would be graded
// on another command, and so would an ask (the user would approve one
// command and bash run another).
func TestBashDivergenceSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	sb := newSandbox(t)
	e := eng(t)
	ctx := context.Background()
	var cmds, seqOf []string
	seen := map[string]bool{}
	for _, tpl := range divergenceTemplates {
		for _, x := range divergenceBytes() {
			c := strings.ReplaceAll(tpl, "X", x)
			if !seen[c] {
				seen[c] = true
				cmds, seqOf = append(cmds, c), append(seqOf, x)
			}
		}
	}
	results := make([]oracleResult, len(cmds))
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), 4)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(cmds); i += workers {
				results[i] = oracleOne(ctx, e, sb, w, cmds[i])
			}
		}()
	}
	wg.Wait()
	var refused, denied, agree int
	var bad, errs []string
	refusedBy := map[string]int{} // byte sequence: divergences refused
	for i, r := range results {
		switch {
		case r.err != nil:
			errs = append(errs, fmt.Sprintf("%q: %v", r.cmd, r.err))
		case len(r.unmatch) == 0:
			agree++
		case r.parseErr:
			refused++
			refusedBy[fmt.Sprintf("%q", seqOf[i])]++
		case r.verdict == verdict.Deny:
			denied++
		default:
			bad = append(bad, fmt.Sprintf("%q: bash ran %q, no segment has that argv; rivumi says %s", r.cmd, r.unmatch, r.verdict))
		}
	}
	sort.Strings(bad)
	t.Logf("divergence sweep: %d commands (%d templates × %d byte sequences): %d agree with bash, %d diverge and are refused as unparsable, %d diverge and are denied, %d diverge otherwise",
		len(cmds), len(divergenceTemplates), len(divergenceBytes()), agree, refused, denied, len(bad))
	t.Logf("refused divergences by byte sequence: %v", refusedBy)
	if len(errs) > 0 {
		t.Errorf("the sandbox failed on %d commands:\n%s", len(errs), strings.Join(errs, "\n"))
	}
	if len(bad) > 0 {
		t.Errorf("bash runs a program rivumi did not see, and rivumi neither refused nor denied the text (%d):\n%s", len(bad), strings.Join(bad, "\n"))
	}
}
