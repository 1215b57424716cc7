//go:build linux && (amd64 || arm64 || riscv64)

package pathstat

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// statBuf stats the NUL-terminated path in buf with newfstatat(2). The
// buffer stays where it is for the call: a pointer converted to uintptr
// in a syscall's arguments is kept alive and unmoved until it returns
// (unsafe.Pointer's rule 4).
func statBuf(buf *[pathBuf]byte, st *syscall.Stat_t, nofollow bool) error {
	dirfd, flags := unix.AT_FDCWD, 0
	if nofollow {
		flags = unix.AT_SYMLINK_NOFOLLOW
	}
	for {
		_, _, e := syscall.Syscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(&buf[0])),
			uintptr(unsafe.Pointer(st)), uintptr(flags), 0, 0)
		switch e {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		}
		return e
	}
}
