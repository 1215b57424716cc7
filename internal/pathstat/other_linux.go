//go:build linux && !(amd64 || arm64 || riscv64)

package pathstat

import "syscall"

// statBuf stats the NUL-terminated path in buf (with syscall.Stat: this
// architecture has no newfstatat).
func statBuf(buf *[pathBuf]byte, st *syscall.Stat_t, nofollow bool) error {
	n := 0
	for buf[n] != 0 {
		n++
	}
	return slowStat(string(buf[:n]), st, nofollow)
}
