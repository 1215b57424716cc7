//go:build unix

package harness

import (
	"errors"
	"os"
	"strings"
	"syscall"
)

// hasDirPart reports whether a program name is a path (exec does not
// search PATH for it).
func hasDirPart(name string) bool { return strings.Contains(name, "/") }

// pathCandidates are the file names a PATH entry is searched for.
func pathCandidates(name string) []string { return []string{name} }

// executable refuses a file without an execute bit.
func executable(_ string, fi os.FileInfo) error {
	if fi.Mode().Perm()&0o111 == 0 {
		return errors.New("not executable")
	}
	return nil
}

// fileID is the file's device and inode.
func fileID(_ string, fi os.FileInfo) (dev, ino uint64, err error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, errors.New("no stat data")
	}
	return uint64(st.Dev), st.Ino, nil
}
