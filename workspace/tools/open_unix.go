//go:build unix

package tools

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// openBeneath opens rel (relative to dir) through a root handle: no
// component may lead out of dir (os.Root resolves each one beneath it,
// refusing a symlink that escapes, so a swap between a check and the open
// cannot win), the last component is not followed, and the open never
// blocks (O_NONBLOCK). Anything but a regular file — a FIFO, socket or
// device — is refused; for a write, so is a file with more than one hard
// link (writing it would write the other names too, outside perhaps).
// O_TRUNC is applied only after those checks.
//
// A write goes further: no component at all may be a symlink (see
// [openDirNoFollow]), as the path policy judges the path as written, so a
// directory swapped for a symlink to another workspace directory (one
// outside allowed_paths) cannot redirect it either.
func openBeneath(dir, rel string, flag int, perm os.FileMode, write bool) (*os.File, error) {
	var f *os.File
	var err error
	if write {
		f, err = openNoFollow(dir, rel, (flag&^os.O_TRUNC)|oNonblock, perm)
	} else {
		var root *os.Root
		root, err = os.OpenRoot(dir)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		f, err = root.OpenFile(rel, (flag&^os.O_TRUNC)|oNoFollow|oNonblock, perm)
	}
	if errors.Is(err, syscall.ENXIO) {
		// open(2) of a unix socket, a device with no driver, or (write,
		// O_NONBLOCK) a FIFO with no reader.
		return nil, refusef("%s is not a regular file (a FIFO, socket or device)", filepath.Base(rel))
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

// openDirNoFollow opens the directory rel beneath dir one component at a
// time, each with openat(O_DIRECTORY|O_NOFOLLOW) relative to the last: a
// symlink at any component is refused by the kernel at the open that meets
// it, so a swap between a check and the open cannot win. rel is a path the
// policy cleaned (no "..", no absolute path).
func openDirNoFollow(dir, rel string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: ".", Err: err}
	}
	for _, c := range strings.Split(filepath.ToSlash(rel), "/") {
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			unix.Close(fd)
			return nil, refusef("%s: a \"..\" segment", rel)
		}
		nfd, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		switch {
		case err == unix.ELOOP || err == unix.ENOTDIR:
			return nil, refusef("%s passes through a symlink or a non-directory (writes never do)", rel)
		case err != nil:
			return nil, &fs.PathError{Op: "open", Path: rel, Err: err}
		}
		fd = nfd
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// openNoFollow opens rel beneath dir with no symlink at any component
// (the directories through [openDirNoFollow], the file with O_NOFOLLOW).
func openNoFollow(dir, rel string, flag int, perm os.FileMode) (*os.File, error) {
	d, err := openDirNoFollow(dir, filepath.Dir(rel))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	fd, err := unix.Openat(int(d.Fd()), filepath.Base(rel), flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		if err == unix.ELOOP {
			return nil, refusef("%s is a symlink (written files must be regular files)", filepath.Base(rel))
		}
		return nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// writeViaTemp writes data over name in the directory d: a temporary
// NAME.rivumi-replace-<id> beside it (O_EXCL|O_NOFOLLOW), fsync, and a
// rename within d. The temporary file is removed on failure.
func writeViaTemp(d *os.File, name string, data []byte, perm fs.FileMode) error {
	var id [6]byte
	_, _ = rand.Read(id[:])
	tmp := name + ".rivumi-replace-" + hex.EncodeToString(id[:])
	dfd := int(d.Fd())
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return &fs.PathError{Op: "create", Path: tmp, Err: err}
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		unix.Unlinkat(dfd, tmp, 0) //nolint:errcheck
		return err
	}
	if err := unix.Renameat(dfd, tmp, dfd, name); err != nil {
		unix.Unlinkat(dfd, tmp, 0) //nolint:errcheck
		return &fs.PathError{Op: "rename", Path: name, Err: err}
	}
	return nil
}
