// Package harnesstest helps test code that prompts a person through
// harness.Interactive.
package harnesstest

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// Prompt is the text harness.Interactive writes when it waits for an answer.
const Prompt = "Run it?"

// Terminal stands for a person at a terminal: Out records what the
// approver prints, and In yields the typed input only once Out has shown a
// prompt, as a person answers after reading it. harness.Interactive
// discards type-ahead, so input that is there from the start would be
// thrown away whenever its reader goroutine wins the race.
type Terminal struct {
	In  io.Reader
	Out *Output
}

// NewTerminal returns a terminal that will type input after the first
// prompt. The gate opens once: input meant for a later prompt is already
// there when that prompt appears, so a test with several approvals must use
// one terminal per approval.
func NewTerminal(input string) *Terminal {
	out := &Output{prompted: make(chan struct{})}
	return &Terminal{In: &gated{r: strings.NewReader(input), gate: out.prompted}, Out: out}
}

// Output is an io.Writer safe for concurrent use that notices the prompt.
type Output struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	once     sync.Once
	prompted chan struct{}
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.buf.Write(p)
	if strings.Contains(o.buf.String(), Prompt) {
		o.once.Do(func() { close(o.prompted) })
	}
	return n, err
}

// String returns everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

type gated struct {
	r    io.Reader
	gate chan struct{}
}

func (g *gated) Read(p []byte) (int, error) {
	<-g.gate
	return g.r.Read(p)
}
