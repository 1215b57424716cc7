//go:build unix

package workspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive flock on f, waiting for it.
func lockFile(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}
