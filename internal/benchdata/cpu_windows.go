//go:build windows

package benchdata

import "golang.org/x/sys/windows"

// CPUNanos returns the CPU time (user+system) the process has used. Benchmarks
// report it per op as "cpu-ns/op", a figure a busy machine distorts less
// than wall time.
func CPUNanos() int64 {
	var creation, exit, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	// Filetimes count 100 ns ticks.
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return (ticks(kernel) + ticks(user)) * 100
}
