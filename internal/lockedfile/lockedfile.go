package lockedfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LockSuffix is appended to a file's name to name its lock file.
const LockSuffix = ".lock"

// Update changes the file at path under its lock. change receives the
// current contents (nil and exists false when the file is missing) and
// returns the new contents; when they equal the old ones (or the file is
// missing and change returns nil) nothing is written. An error from change
// aborts the update and is returned as it is.
//
// The file's directory must exist. A new file gets mode perm; an existing
// one keeps its mode. When Update returns nil the new contents are durable.
// The lock is held while change runs, so change may write other files that
// belong to the update (a backup, say) with [WriteAtomic].
func Update(path string, perm fs.FileMode, change func(old []byte, exists bool) ([]byte, error)) error {
	unlock, err := Lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	b, err := change(old, exists)
	if err != nil {
		return err
	}
	if (exists && bytes.Equal(b, old)) || (!exists && b == nil) {
		return nil
	}
	if exists {
		if fi, err := os.Stat(path); err == nil {
			perm = fi.Mode().Perm()
		}
	}
	return WriteAtomic(path, b, perm)
}

// Lock takes the exclusive lock of path (on path + [LockSuffix], created
// with mode 0600 if needed), waiting as long as another holder keeps it.
// The returned function releases it.
func Lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path+LockSuffix, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		unlockFile(f) //nolint:errcheck // closing the file releases it anyway
		f.Close()
	}, nil
}

// LockFile takes the exclusive lock of the open file f itself (for files
// that are appended to in place, such as the audit log), waiting as long as
// another holder keeps it. The returned function releases it; closing f
// releases it too. On Windows the lock covers one byte far past any real
// end of file, so that readers of the file are never refused.
func LockFile(f *os.File) (unlock func() error, err error) {
	if err := lockFile(f); err != nil {
		return nil, err
	}
	return func() error { return unlockFile(f) }, nil
}

// WriteAtomic replaces the file at path with b: a temporary file in the
// same directory gets b and mode perm, is fsync'd and renamed over path,
// and the directory is fsync'd. Readers see the old or the new contents,
// never a mix. It does not lock; see [Update].
func WriteAtomic(path string, b []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := rename(name, path); err != nil {
		return err
	}
	done = true
	return syncDir(dir)
}
