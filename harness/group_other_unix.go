//go:build unix && !linux && !darwin

package harness

import "syscall"

// groupAlive reports whether process group pgid still has members
// (zombies included: this platform has no cheap way to tell).
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
