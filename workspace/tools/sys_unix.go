//go:build unix

package tools

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

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

// accessAllowed reports whether mode (access(2)'s R_OK|W_OK|X_OK bits)
// is granted on fi to this process, from its mode bits and owner as
// access(2) judges them (root: read and write always, execute when any x
// bit is set or fi is a directory).
func accessAllowed(fi fs.FileInfo, mode uint32) bool {
	perm := uint32(fi.Mode().Perm())
	st, _ := fi.Sys().(*syscall.Stat_t)
	var bits uint32
	switch {
	case os.Geteuid() == 0:
		return mode&1 == 0 || fi.IsDir() || perm&0o111 != 0
	case st != nil && int(st.Uid) == os.Geteuid():
		bits = perm >> 6
	case st != nil && int(st.Gid) == os.Getegid():
		bits = perm >> 3
	default:
		bits = perm
	}
	return mode&7&bits == mode&7
}
