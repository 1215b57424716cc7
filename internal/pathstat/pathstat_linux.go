//go:build linux

package pathstat

import (
	"io/fs"
	"syscall"
)

// Stat fills st with stat(2)'s answer for path (lstat(2)'s when nofollow).
// On amd64, arm64 and riscv64 it allocates nothing; the error is then a
// syscall.Errno.
func Stat(path string, st *syscall.Stat_t, nofollow bool) error {
	var buf [pathBuf]byte
	if len(path) >= len(buf) || !clean(path) {
		return slowStat(path, st, nofollow)
	}
	n := copy(buf[:], path)
	buf[n] = 0
	return statBuf(&buf, st, nofollow)
}

// pathBuf is the longest path (with its NUL) stat'ed from the stack;
// longer ones take the allocating path.
const pathBuf = 512

// clean reports whether path holds no NUL (which the kernel would take
// for its end).
func clean(path string) bool {
	for i := 0; i < len(path); i++ {
		if path[i] == 0 {
			return false
		}
	}
	return true
}

func slowStat(path string, st *syscall.Stat_t, nofollow bool) error {
	if nofollow {
		return syscall.Lstat(path, st)
	}
	return syscall.Stat(path, st)
}

func in(dir, name string, nofollow bool) (fs.FileMode, error) {
	var buf [pathBuf]byte
	n := len(dir) + 1 + len(name)
	var st syscall.Stat_t
	var err error
	switch {
	case n >= len(buf) || !clean(dir) || !clean(name):
		err = slowStat(join(dir, name), &st, nofollow)
	default:
		i := copy(buf[:], dir)
		if i > 0 && buf[i-1] != '/' {
			buf[i] = '/'
			i++
		}
		i += copy(buf[i:], name)
		buf[i] = 0
		err = statBuf(&buf, &st, nofollow)
	}
	if err != nil {
		return 0, err
	}
	return modeOf(st.Mode), nil
}

// join is filepath.Join for a clean dir and a single-element name.
func join(dir, name string) string {
	if dir == "" {
		return name
	}
	if dir[len(dir)-1] == '/' {
		return dir + name
	}
	return dir + "/" + name
}

// modeOf is os.Stat's FileMode for st_mode: the type bits rivumi
// distinguishes and the permissions.
func modeOf(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
