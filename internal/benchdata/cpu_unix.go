//go:build unix

package benchdata

import "syscall"

// CPUNanos returns the CPU time (user+system) the process has used. Benchmarks
// report it per op as "cpu-ns/op", a figure a busy machine distorts less
// than wall time.
func CPUNanos() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
