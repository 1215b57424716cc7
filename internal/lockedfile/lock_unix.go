//go:build unix

package lockedfile

import (
	"os"

	"golang.org/x/sys/unix"
)

func lockFile(f *os.File) error   { return flock(f, unix.LOCK_EX) }
func unlockFile(f *os.File) error { return flock(f, unix.LOCK_UN) }

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func rename(from, to string) error { return os.Rename(from, to) }
