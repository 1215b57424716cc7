//go:build !linux

package cli

import (
	"errors"
	"io/fs"
	"os"
)

// fileID is empty here: an existing file gives no signature (statSig).
type fileID struct{}

// statSig stats path (following symlinks, as reading it does). A missing
// file is a signature too. An existing one gives none here: without
// Linux's inode and change time a stat cannot vouch for a file, and the
// configuration is read for every request.
func statSig(path string) (fileSig, bool) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileSig{path: path}, true
	}
	return fileSig{}, false
}
