//go:build unix

package usersock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ownedByUs refuses a file (the socket) that belongs to another user.
func ownedByUs(path string, fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("cannot read the socket's owner")
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not to us (uid %d)", path, st.Uid, os.Getuid())
	}
	return nil
}

// ownDir refuses a socket directory that another user controls: one
// owned by someone else (but root) that others may write to.
func ownDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("cannot read the socket directory's owner")
	}
	if int(st.Uid) != os.Getuid() && st.Uid != 0 {
		return fmt.Errorf("socket directory %s belongs to uid %d, not to us", dir, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 {
		return fmt.Errorf("socket directory %s is writable by others", dir)
	}
	return nil
}
