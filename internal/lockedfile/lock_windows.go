//go:build windows

package lockedfile

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// The lock is one byte at offset 2^62: past the end of any file rivumi
// writes. Windows byte-range locks are mandatory, so locking the data
// itself would make readers of an appended file (the audit log) fail
// while a writer holds it; locking a byte nobody reads serialises the
// writers and leaves the readers alone.
const lockOffsetHigh = 1 << 30

func lockFile(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

func unlockFile(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

// syncDir is a no-op: Windows cannot fsync a directory; the rename is as
// durable as the file system's metadata journal makes it.
func syncDir(string) error { return nil }

// rename retries for a while when the target is open elsewhere: Go opens
// files without FILE_SHARE_DELETE, so a reader holding the old file makes
// MoveFileEx fail with an access or sharing error until it closes it.
func rename(from, to string) error {
	var err error
	for wait := time.Millisecond; wait < time.Second; wait *= 2 {
		err = os.Rename(from, to)
		if !errors.Is(err, windows.ERROR_ACCESS_DENIED) && !errors.Is(err, windows.ERROR_SHARING_VIOLATION) {
			return err
		}
		time.Sleep(wait)
	}
	return err
}
