//go:build unix

package tools

import "golang.org/x/sys/unix"

// Open flags and errors of the file tools.
const (
	oNoFollow = unix.O_NOFOLLOW
	oNonblock = unix.O_NONBLOCK
)

var (
	errLoop   error = unix.ELOOP
	errIsDir  error = unix.EISDIR
	errNotDir error = unix.ENOTDIR
)
