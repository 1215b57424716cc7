package tools

import (
	"fmt"
	"strings"
	"sync"
	"unicode"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/harness"
)

// What the agent sees of a command's output: the head and the tail, with
// an explicit marker of what was cut between them. Redaction runs on each
// whole kept text before any cut of its own, and no cut splits a token: the
// partial token at each side of a cut (the run of non-space bytes it
// touches) is dropped whole, so a secret cut in two leaves no fragment for
// the redactor to miss.

// cutMarker is the line standing for n bytes that were cut.
func cutMarker(n int64) string { return fmt.Sprintf("\n[… %d bytes cut …]\n", n) }

// dropPartialEnd returns s without its last token when s does not end in
// white space (the token a cut after s split).
func dropPartialEnd(s string) string {
	i := strings.LastIndexFunc(s, unicode.IsSpace)
	return s[:i+1]
}

// dropPartialStart returns s without its first token when s does not
// start with white space.
func dropPartialStart(s string) string {
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return ""
	}
	return s[i:]
}

// clip returns s redacted and, when longer than max, its head and tail
// around a cut marker; the cut never splits a token.
func clip(s string, max int) string {
	s = audit.Redact(s)
	if len(s) <= max || max <= 0 {
		return s
	}
	half := max / 2
	head := dropPartialEnd(s[:half])
	tail := dropPartialStart(s[len(s)-(max-half):])
	return head + cutMarker(int64(len(s)-len(head)-len(tail))) + tail
}

// agentOutput renders a stream the harness captured (head and tail, bytes
// dropped between them) for the agent, bounded by max: the partial tokens
// at the harness's cut are dropped, each side redacted whole, then clipped.
func agentOutput(o harness.Output, max int) string {
	if o.Dropped == 0 {
		return clip(string(o.Head)+string(o.Tail), max)
	}
	head, tail := dropPartialEnd(string(o.Head)), dropPartialStart(string(o.Tail))
	dropped := o.Dropped + int64(len(o.Head)-len(head)+len(o.Tail)-len(tail))
	half := max / 2
	return clip(head, half) + cutMarker(dropped) + clip(tail, max-half)
}

// headTail is an io.Writer keeping the first and the last max/2 bytes
// written to it, safe for concurrent writes (background commands of the
// shell). Its Output is what the agent sees (see agentOutput).
type headTail struct {
	mu    sync.Mutex
	max   int
	head  []byte
	tail  []byte
	total int64
}

func (b *headTail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	written := len(p)
	b.total += int64(written)
	half := b.max / 2
	if room := half - len(b.head); room > 0 {
		n := min(room, len(p))
		b.head = append(b.head, p[:n]...)
		p = p[n:]
	}
	b.tail = append(b.tail, p...)
	if keep := b.max - half; len(b.tail) > 2*keep {
		b.tail = append(b.tail[:0:0], b.tail[len(b.tail)-keep:]...)
	}
	return written, nil
}

// String returns the output for the agent: redacted, head and tail around
// a cut marker when bytes were cut.
func (b *headTail) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	keep := b.max - b.max/2
	tail := b.tail[len(b.tail)-min(len(b.tail), keep):]
	return agentOutput(harness.Output{Head: b.head, Tail: tail, Total: b.total,
		Dropped: b.total - int64(len(b.head)+len(tail))}, b.max)
}

// agentOutputs renders stdout then stderr for the agent within max bytes
// in all: stderr (where a failure says why) keeps up to half when both do
// not fit.
func agentOutputs(stdout, stderr harness.Output, max int) string {
	so, se := agentOutput(stdout, max), agentOutput(stderr, max)
	if len(so)+len(se) <= max {
		return so + se
	}
	se = agentOutput(stderr, max-min(len(so), max/2))
	return agentOutput(stdout, max-len(se)) + se
}
