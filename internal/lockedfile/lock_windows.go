//go:build windows

package lockedfile

import (
	"os"

	"golang.org/x/sys/windows"
)

// The whole file, as far as LockFileEx can say it.
const allBytes = ^uint32(0)

func lockFile(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, allBytes, allBytes, &ol)
}

func unlockFile(f *os.File) error {
	var ol windows.Overlapped
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, allBytes, allBytes, &ol)
}

// syncDir is a no-op: Windows cannot fsync a directory; the rename is as
// durable as the file system's metadata journal makes it.
func syncDir(string) error { return nil }
