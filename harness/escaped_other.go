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

func markedProcesses(string) []int             { return nil }
func processArgv(int) []string                 { return nil }
func signalMarked(int, string, syscall.Signal) {}
