// Package gctune sizes the garbage collector's target by the heap that
// survives, for long-running servers: a fixed amount of room above the
// live heap while it is small, and GOGC's proportion once it is large.
//
// GOGC alone trades memory for CPU in proportion to the live heap: at
// GOGC=400 a server with 7 MiB live grows to 35 MiB between collections.
// A soft memory limit (GOMEMLIMIT) caps that, but when the live heap
// itself nears the limit (one huge command) the collector runs back to
// back and slows every request. [Start] keeps the room fixed instead:
// after each collection it sets GOGC to room/live (as a percentage),
// never below min nor above max, so a large live heap simply gets GOGC
// min and nothing thrashes.
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Config is the collector's sizing. Room is bytes allowed above the live
// heap; Min and Max bound the resulting GOGC percentage.
type Config struct {
	Room     uint64
	Min, Max int
}

// Percent returns the GOGC percentage for a live heap of live bytes.
func (c Config) Percent(live uint64) int {
	if live == 0 {
		return c.Max
	}
	p := c.Room * 100 / live
	switch {
	case p < uint64(c.Min):
		return c.Min
	case p > uint64(c.Max):
		return c.Max
	}
	return int(p)
}

var started sync.Once

// Start sets GOGC to c.Max now and, after every collection, to
// c.Percent of the live heap it left. It runs once per process (later
// calls do nothing) and for the life of the process.
func Start(c Config) {
	started.Do(func() {
		cur := c.Max
		debug.SetGCPercent(cur)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var rearm func()
		rearm = func() {
			// A finalizer runs after the collection that found its
			// object unreachable: once per cycle, on the finalizer
			// goroutine.
			runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
				metrics.Read(sample)
				if sample[0].Value.Kind() == metrics.KindUint64 {
					if p := c.Percent(sample[0].Value.Uint64()); p != cur {
						cur = p
						debug.SetGCPercent(p)
					}
				}
				rearm()
			})
		}
		rearm()
	})
}
