//go:build unix

package workspace

import "syscall"

// readFlags open a file of the work tree for hashing: never following
// its last component, never blocking on a FIFO.
const readFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
