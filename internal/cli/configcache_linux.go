package cli

import (
	"errors"
	"io/fs"
	"syscall"

	"github.com/rivumi/rivumi/internal/pathstat"
)

// fileID is what Linux's stat says a file is: device, inode, mode and
// size (compared as part of a [fileSig]).
type fileID struct {
	dev, ino uint64
	mode     uint32
	size     int64
}

// statSig stats path (following symlinks, as reading it does). A missing
// file is a signature too; any other error is not. It allocates nothing
// (pathstat): it runs for every file of every request's configuration.
func statSig(path string) (fileSig, bool) {
	var st syscall.Stat_t
	err := pathstat.Stat(path, &st, false)
	if errors.Is(err, fs.ErrNotExist) {
		return fileSig{path: path}, true
	}
	if err != nil {
		return fileSig{}, false
	}
	return fileSig{
		path: path, exists: true, id: fileID{dev: uint64(st.Dev), ino: st.Ino, mode: st.Mode, size: st.Size},
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}, true
}
