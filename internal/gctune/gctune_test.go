package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	c := Config{Room: 20 << 20, Min: 100, Max: 400}
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 400}, {1 << 20, 400}, {5 << 20, 400}, {8 << 20, 250}, {10 << 20, 200}, {20 << 20, 100}, {1 << 30, 100},
	} {
		if got := c.Percent(tc.live); got != tc.want {
			t.Errorf("live %d: GOGC %d, want %d", tc.live, got, tc.want)
		}
	}
}

var keep [][]byte

// After a collection, GOGC follows the live heap.
func TestStart(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	Start(Config{Room: 1 << 20, Min: 50, Max: 400})
	for range 40 {
		keep = append(keep, make([]byte, 1<<20)) // 40 MiB live: room/live is under Min
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer goroutine
		if p := debug.SetGCPercent(-1); debug.SetGCPercent(p) == -1 && p == 50 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("GOGC did not follow the live heap")
		}
	}
	keep = nil
}
