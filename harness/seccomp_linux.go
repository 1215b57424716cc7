//go:build linux && (amd64 || arm64)

package harness

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// deniedSyscalls are refused (EPERM) under every Linux backend: they
// change mounts or namespaces, reach the kernel's keyrings, BPF and
// performance counters, load code into the kernel, or inspect other
// processes. ptrace is refused whole (a debugger cannot run inside the
// sandbox): the filter cannot tell a descendant from any other process.
var deniedSyscalls = []uintptr{
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT,
	unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOVE_MOUNT,
	unix.SYS_OPEN_TREE, unix.SYS_MOUNT_SETATTR,
	unix.SYS_SETNS, unix.SYS_UNSHARE,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_REBOOT,
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_ACCT, unix.SYS_QUOTACTL,
	unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME, unix.SYS_CLOCK_ADJTIME, unix.SYS_ADJTIMEX,
}

// enosysSyscalls are answered ENOSYS, as if the kernel did not have them,
// so that libraries fall back: io_uring (which can open sockets and files
// without the syscalls below) and clone3 (whose flags sit in memory the
// filter cannot read; glibc falls back to clone, whose flags it can).
var enosysSyscalls = []uintptr{
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER, unix.SYS_CLONE3,
}

// cloneNamespaces are clone's flags that make a new namespace.
const cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWTIME

// contractFilter returns the seccomp program of the sandbox contract
// ([Contract]): every syscall through a foreign ABI (x32, 32-bit compat,
// which could reach socketcall) refused; [deniedSyscalls] refused; clone
// with a namespace flag refused; [enosysSyscalls] answered ENOSYS; and
// socket(2) refused for every address family, or, when allowNet, for every
// family but AF_INET and AF_INET6. socketpair(2) is a syscall of its own
// and stays available, so pipes between a process and its children work.
// No new privileges must be set before it is installed.
func contractFilter(allowNet bool) []unix.SockFilter {
	arch := uint32(unix.AUDIT_ARCH_X86_64)
	if runtime.GOARCH == "arm64" {
		arch = unix.AUDIT_ARCH_AARCH64
	}
	const (
		ldAbs  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge    = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		jset   = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret    = unix.BPF_RET | unix.BPF_K
		offNr  = 0
		offArc = 4
		offA0  = 16 // low 32 bits of args[0] on little-endian amd64 and arm64
		allow  = unix.SECCOMP_RET_ALLOW
		eperm  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		eacces = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
		enosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
		x32Bit = 0x40000000 // x32 syscalls on amd64; no such range on arm64
	)
	p := []unix.SockFilter{
		{Code: ldAbs, K: offArc},
		{Code: jeq, K: arch, Jt: 1},
		{Code: ret, K: eperm},
		{Code: ldAbs, K: offNr},
		{Code: jge, K: x32Bit, Jf: 1},
		{Code: ret, K: eperm},
	}
	refuse := func(nrs []uintptr, k uint32) {
		for _, nr := range nrs {
			p = append(p, unix.SockFilter{Code: jeq, K: uint32(nr), Jf: 1}, unix.SockFilter{Code: ret, K: k})
		}
	}
	refuse(deniedSyscalls, eperm)
	refuse(enosysSyscalls, enosys)
	// clone: refused with a namespace flag. The block ends in returns, as
	// it replaces the syscall number with the flags.
	p = append(p,
		unix.SockFilter{Code: jeq, K: unix.SYS_CLONE, Jf: 4},
		unix.SockFilter{Code: ldAbs, K: offA0},
		unix.SockFilter{Code: jset, K: cloneNamespaces, Jf: 1},
		unix.SockFilter{Code: ret, K: eperm},
		unix.SockFilter{Code: ret, K: allow},
	)
	// socket: the last block; everything else is allowed.
	if allowNet {
		p = append(p,
			unix.SockFilter{Code: jeq, K: unix.SYS_SOCKET, Jf: 5},
			unix.SockFilter{Code: ldAbs, K: offA0},
			unix.SockFilter{Code: jeq, K: unix.AF_INET, Jt: 2},
			unix.SockFilter{Code: jeq, K: unix.AF_INET6, Jt: 1},
			unix.SockFilter{Code: ret, K: eacces},
			unix.SockFilter{Code: ret, K: allow},
		)
	} else {
		p = append(p,
			unix.SockFilter{Code: jeq, K: unix.SYS_SOCKET, Jf: 1},
			unix.SockFilter{Code: ret, K: eacces},
		)
	}
	return append(p, unix.SockFilter{Code: ret, K: allow})
}

// contractFilterBytes encodes [contractFilter] as the kernel's struct
// sock_filter array (what bubblewrap's --seccomp reads from a file
// descriptor).
func contractFilterBytes(allowNet bool) []byte {
	p := contractFilter(allowNet)
	b := make([]byte, 0, 8*len(p))
	for _, f := range p {
		b = binary.LittleEndian.AppendUint16(b, f.Code)
		b = append(b, f.Jt, f.Jf)
		b = binary.LittleEndian.AppendUint32(b, f.K)
	}
	return b
}

// installContractFilter installs [contractFilter] on every thread of the
// process (inherited across fork and exec).
func installContractFilter(allowNet bool) error {
	prog := contractFilter(allowNet)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC,
		uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}
