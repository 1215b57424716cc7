package cli

import (
	"io/fs"
	"syscall"
)

func sysSig(path string, fi fs.FileInfo) (fileSig, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileSig{}, false
	}
	return fileSig{
		path: path, exists: true, dev: uint64(st.Dev), ino: st.Ino, mode: st.Mode, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}, true
}
