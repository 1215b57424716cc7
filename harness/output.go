package harness

import (
	"fmt"
	"io"
	"sync"
)

// Default bounds of the output kept per stream.
const (
	DefaultOutputHead = 64 << 10
	DefaultOutputTail = 64 << 10
)

// Output is what was kept of one output stream: its first bytes (up to
// the configured head size) and its last bytes (up to the tail size). The
// stream was always drained completely; Total counts every byte and
// Dropped the bytes between Head and Tail. Head and Tail never overlap:
// when Dropped is 0, Head followed by Tail is the whole stream.
type Output struct {
	Head    []byte
	Tail    []byte
	Total   int64
	Dropped int64
}

// Kept is the number of bytes in Head and Tail.
func (o Output) Kept() int64 { return int64(len(o.Head) + len(o.Tail)) }

// String returns Head and Tail, with a line saying how many bytes were
// dropped between them when some were.
func (o Output) String() string {
	if o.Dropped == 0 {
		return string(o.Head) + string(o.Tail)
	}
	return fmt.Sprintf("%s\n[… %d bytes dropped …]\n%s", o.Head, o.Dropped, o.Tail)
}

// capture is an io.Writer keeping a bounded head and tail of everything
// written to it, and forwarding it all to an optional tee.
type capture struct {
	mu       sync.Mutex
	headMax  int
	head     []byte
	ring     []byte // tail ring buffer, len == tailMax once allocated
	tailMax  int
	pos      int // next write position in ring
	full     bool
	total    int64
	tee      io.Writer
	teeError error
}

func newCapture(headMax, tailMax int, tee io.Writer) *capture {
	return &capture{headMax: headMax, tailMax: tailMax, tee: tee}
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if c.tee != nil && c.teeError == nil {
		if _, err := c.tee.Write(p); err != nil {
			c.teeError = err // keep draining: the child must not block on us
		}
	}
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || c.tailMax == 0 {
		return n, nil
	}
	if c.ring == nil {
		c.ring = make([]byte, c.tailMax)
	}
	if len(p) >= c.tailMax {
		copy(c.ring, p[len(p)-c.tailMax:])
		c.pos, c.full = 0, true
		return n, nil
	}
	k := copy(c.ring[c.pos:], p)
	if k < len(p) {
		copy(c.ring, p[k:])
		c.full = true
	}
	c.pos = (c.pos + len(p)) % c.tailMax
	if c.pos == 0 {
		c.full = true
	}
	return n, nil
}

func (c *capture) output() Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	var tail []byte
	if c.full {
		tail = make([]byte, 0, c.tailMax)
		tail = append(tail, c.ring[c.pos:]...)
		tail = append(tail, c.ring[:c.pos]...)
	} else {
		tail = append([]byte(nil), c.ring[:c.pos]...)
	}
	head := append([]byte(nil), c.head...)
	return Output{Head: head, Tail: tail, Total: c.total, Dropped: c.total - int64(len(head)+len(tail))}
}
