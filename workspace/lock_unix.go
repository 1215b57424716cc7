//go:build unix

package workspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive flock on f, waiting for it when wait is
// set; otherwise a lock held elsewhere is [ErrBusy].
func lockFile(f *os.File, wait bool) error {
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err == unix.EWOULDBLOCK {
			return ErrBusy
		}
		if err != unix.EINTR {
			return err
		}
	}
}
