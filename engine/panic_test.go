package engine

import (
	"context"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// A panic anywhere in grading is a deny verdict naming the failure, never a
// process exit; and the failed verdict is not cached.
func TestPanicIsDeny(t *testing.T) {
	e, err := New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	testPanic = func(text string) {
		if text == "ls" {
			panic("boom")
		}
	}
	t.Cleanup(func() { testPanic = nil })
	v := e.EvaluateText(context.Background(), "ls")
	if v.Decision != Deny || len(v.Reasons) != 1 || v.Reasons[0].Rule != RuleInternal ||
		!strings.Contains(v.Reasons[0].Title, "boom") {
		t.Fatalf("got %s %+v, want deny by %s naming the panic", v.Decision, v.Reasons, RuleInternal)
	}
	testPanic = nil
	if v := e.EvaluateText(context.Background(), "ls"); v.Decision != Allow {
		t.Fatalf("after the panic, ls is %s: a failed verdict was cached", v.Decision)
	}
}

// Concurrent New calls leave the collector as they found it (each paused
// it while compiling; the last one restores the setting).
func TestConcurrentNewRestoresGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := New(context.Background(), CacheSize(0)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GC percent after concurrent New calls: %d, want 100", got)
	}
}
