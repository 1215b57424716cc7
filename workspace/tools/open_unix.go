//go:build unix

package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// openBeneath opens rel (relative to dir) through a root handle: no
// component may lead out of dir (os.Root resolves each one beneath it,
// refusing a symlink that escapes, so a swap between a check and the open
// cannot win), the last component is not followed, and the open never
// blocks (O_NONBLOCK). Anything but a regular file — a FIFO, socket or
// device — is refused; for a write, so is a file with more than one hard
// link (writing it would write the other names too, outside perhaps).
// O_TRUNC is applied only after those checks.
func openBeneath(dir, rel string, flag int, perm os.FileMode, write bool) (*os.File, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, (flag&^os.O_TRUNC)|oNoFollow|oNonblock, perm)
	if errors.Is(err, syscall.ENXIO) {
		// open(2) of a unix socket.
		return nil, refusef("%s is not a regular file (a socket)", filepath.Base(rel))
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	name := filepath.Base(rel)
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, refusef("%s is not a regular file (%s)", name, fileKind(fi.Mode()))
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); write && ok && st.Nlink > 1 {
		f.Close()
		return nil, refusef("%s has %d hard links: writing it would write the others too", name, st.Nlink)
	}
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, err
	}
	if flag&os.O_TRUNC != 0 {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, fmt.Errorf("truncate %s: %w", name, err)
		}
	}
	return f, nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}
