//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/internal/hookrelay"
)

// TestRelayDeadline: a relayed call whose grading hangs (its grants file
// is a FIFO that nobody writes) is answered at its deadline with a block,
// through the early reply, while the hang goes on; the deadline's entry
// is the call's only one in the decision log, and the call returns the
// same answer once the hang ends.
func TestRelayDeadline(t *testing.T) {
	srv, c := relayServer(t, "make")
	dir := t.TempDir()
	fifo, logf := filepath.Join(dir, "grants.json"), filepath.Join(dir, "audit.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	c.Args = []string{"--grants", fifo, "--timeout", "100ms", "--audit", logf}
	early := make(chan hookrelay.Result, 2)
	done := make(chan hookrelay.Result, 1)
	start := time.Now()
	go func() { done <- relayHook(context.Background(), srv, c, func(r hookrelay.Result) { early <- r }) }()
	var first hookrelay.Result
	select {
	case first = <-early:
	case r := <-done:
		t.Fatalf("returned %d %s while grading hangs", r.Code, r.Stderr)
	case <-time.After(10 * time.Second):
		t.Fatal("no answer past the deadline")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("answered after %v", d)
	}
	if first.Code != ExitHookBlock || len(first.Stdout) != 0 || !strings.Contains(string(first.Stderr), "internal deadline of 100ms passed") {
		t.Errorf("early answer: exit %d %q %q; want a block for the deadline", first.Code, first.Stdout, first.Stderr)
	}
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // the hang ends
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("{}"))
	w.Close()
	last := <-done
	if last.Code != first.Code || !bytes.Equal(last.Stdout, first.Stdout) || !bytes.Equal(last.Stderr, first.Stderr) {
		t.Errorf("returned exit %d %q %q; answered exit %d %q %q", last.Code, last.Stdout, last.Stderr, first.Code, first.Stdout, first.Stderr)
	}
	if len(early) > 0 {
		t.Error("answered early twice")
	}
	b, err := os.ReadFile(logf)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "internal deadline of 100ms passed") {
		t.Errorf("decision log:\n%s\nwant the deadline's entry alone", b)
	}
}
