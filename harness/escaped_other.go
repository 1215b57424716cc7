//go:build !linux

package harness

import "syscall"

// escapeScanSupported: without /proc the harness cannot list the
// processes of a run; escaped ones are not found (see [Result.Escaped]).
const escapeScanSupported = false

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

func processStart(int) uint64                  { return 0 }
func markedProcesses(string, uint64) []int     { return nil }
func processArgv(int) []string                 { return nil }
func signalMarked(int, string, syscall.Signal) {}
