//go:build linux && (amd64 || arm64)

package harness

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompAvailable reports whether [denyIPSockets] can work on this
// architecture.
const seccompAvailable = true

// denyIPSockets installs a seccomp filter on every thread of the process
// (inherited across exec) that refuses to create IPv4, IPv6 and packet
// sockets (EACCES) and to set up io_uring (ENOSYS; io_uring can create
// sockets without the socket syscall), and refuses every syscall made
// through a foreign ABI (x32 on amd64, 32-bit compat), which could reach
// socketcall. Landlock's network rules cover TCP bind and connect only;
// this closes UDP, raw sockets and Multipath TCP. No new privileges must
// already be set (Landlock does).
func denyIPSockets() error {
	arch := uint32(unix.AUDIT_ARCH_X86_64)
	if runtime.GOARCH == "arm64" {
		arch = unix.AUDIT_ARCH_AARCH64
	}
	const (
		ldAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		// offsets in struct seccomp_data
		offNr   = 0
		offArch = 4
		offArg0 = 16 // low 32 bits on little-endian amd64 and arm64
		allow   = unix.SECCOMP_RET_ALLOW
		eacces  = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
		enosys  = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	)
	// x32 syscalls on amd64 carry this bit; arm64 has no such range, and
	// the check is harmless there.
	const x32Bit = 0x40000000
	prog := []unix.SockFilter{
		/* 0 */ {Code: ldAbs, K: offArch},
		/* 1 */ {Code: jeq, K: arch, Jt: 1, Jf: 0},
		/* 2 */ {Code: ret, K: eacces}, // foreign ABI
		/* 3 */ {Code: ldAbs, K: offNr},
		/* 4 */ {Code: jge, K: x32Bit, Jt: 0, Jf: 1},
		/* 5 */ {Code: ret, K: eacces}, // x32
		/* 6 */ {Code: jeq, K: unix.SYS_IO_URING_SETUP, Jt: 0, Jf: 1},
		/* 7 */ {Code: ret, K: enosys},
		/* 8 */ {Code: jeq, K: unix.SYS_SOCKET, Jt: 1, Jf: 0},
		/* 9 */ {Code: ret, K: allow},
		/* 10 */ {Code: ldAbs, K: offArg0},
		/* 11 */ {Code: jeq, K: unix.AF_INET, Jt: 3, Jf: 0},
		/* 12 */ {Code: jeq, K: unix.AF_INET6, Jt: 2, Jf: 0},
		/* 13 */ {Code: jeq, K: unix.AF_PACKET, Jt: 1, Jf: 0},
		/* 14 */ {Code: ret, K: allow},
		/* 15 */ {Code: ret, K: eacces},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC,
		uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}
