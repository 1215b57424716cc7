package execgate

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Available reports whether this kernel and architecture can run the gate.
func Available() error {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		return fmt.Errorf("the exec gate is not built for %s", runtime.GOARCH)
	}
	var act uint32 = unix.SECCOMP_RET_USER_NOTIF
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&act))); errno != 0 {
		return fmt.Errorf("the kernel has no seccomp user notification: %w", errno)
	}
	return nil
}

// InstallFilter installs, on the calling thread (which must be locked to
// its OS thread and be the one that execs or forks the target), a seccomp
// filter that stops every execve and execveat of it and its descendants
// for the supervisor, and returns the listener's file descriptor. No new
// privileges must be set.
func InstallFilter() (int, error) {
	arch := uint32(unix.AUDIT_ARCH_X86_64)
	if runtime.GOARCH == "arm64" {
		arch = unix.AUDIT_ARCH_AARCH64
	}
	const (
		ldAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
	)
	prog := []unix.SockFilter{
		{Code: ldAbs, K: 4},
		{Code: jeq, K: arch, Jt: 1},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: ldAbs, K: 0},
		{Code: jeq, K: unix.SYS_EXECVE, Jt: 2},
		{Code: jeq, K: unix.SYS_EXECVEAT, Jt: 1},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		{Code: ret, K: unix.SECCOMP_RET_USER_NOTIF},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER,
		uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return -1, fmt.Errorf("exec gate filter: %w", errno)
	}
	return int(fd), nil
}

// SendFD sends fd over the unix socket sock.
func SendFD(sock, fd int) error {
	return unix.Sendmsg(sock, []byte{'g'}, unix.UnixRights(fd), nil, 0)
}

// RecvFD receives one file descriptor from the unix socket sock.
func RecvFD(sock int) (int, error) {
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(sock, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return -1, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, fmt.Errorf("exec gate: no listener received (%v)", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return -1, fmt.Errorf("exec gate: no listener received (%v)", err)
	}
	return fds[0], nil
}

// The kernel's structures (linux/seccomp.h).
type notif struct {
	ID    uint64
	PID   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

type notifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

const ioctlNotifIDValid = 0x40082102 // SECCOMP_IOCTL_NOTIF_ID_VALID (_IOW('!', 2, __u64))

// Bounds of what is read of an exec's arguments (the kernel's own:
// MAX_ARG_STRLEN, and a total of 2 MiB).
const (
	maxArgs     = 1 << 14
	maxArgBytes = 128 << 10
	maxAllBytes = 2 << 20
)

// Serve answers the listener's notifications until ctx ends or every
// process of the tree is gone, calling decide for each exec and report
// (if not nil) with each decision. It closes the listener when it
// returns; from then on the kernel fails the tree's execs.
func Serve(ctx context.Context, listener int, decide Decide, report func(Decision)) error {
	defer unix.Close(listener)
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 100)
		if err == unix.EINTR || n == 0 {
			continue
		}
		if err != nil {
			return err
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			if fds[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 {
				return nil // no process holds the filter any more
			}
			continue
		}
		var req notif
		if err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&req)); err != nil {
			if err == unix.EINTR || err == unix.ENOENT {
				continue // the caller went away
			}
			return fmt.Errorf("exec gate: receive: %w", err)
		}
		d := Decision{}
		ex, err := readExec(listener, req)
		if err == nil {
			d.Exec = ex
			if derr := decide(ex); derr != nil {
				d.Reason = derr.Error()
			} else {
				d.Allowed = true
			}
		} else {
			d.Exec = Exec{PID: int(req.PID)}
			d.Reason = "cannot read the exec: " + err.Error()
		}
		resp := notifResp{ID: req.ID}
		if d.Allowed {
			resp.Flags = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
		} else {
			resp.Error = -int32(unix.EPERM)
		}
		if err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp)); err != nil && err != unix.ENOENT {
			return fmt.Errorf("exec gate: answer: %w", err)
		}
		if report != nil {
			report(d)
		}
	}
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}

// readExec reads the path, argv and working directory of a stopped exec.
// The notification must still be valid after the reads: otherwise the
// memory read may have been another process's.
func readExec(listener int, req notif) (Exec, error) {
	pid := int(req.PID)
	mem, err := os.Open("/proc/" + strconv.Itoa(pid) + "/mem")
	if err != nil {
		return Exec{}, err
	}
	defer mem.Close()
	pathAddr, argvAddr := req.Args[0], req.Args[1]
	dirfd := -1
	if req.Nr == unix.SYS_EXECVEAT {
		dirfd, pathAddr, argvAddr = int(int32(req.Args[0])), req.Args[1], req.Args[2]
	}
	path, err := readString(mem, pathAddr, unix.PathMax)
	if err != nil {
		return Exec{}, fmt.Errorf("path: %w", err)
	}
	var argv []string
	total := 0
	for i := 0; ; i++ {
		if i >= maxArgs {
			return Exec{}, errors.New("argv too long")
		}
		var b [8]byte
		if _, err := mem.ReadAt(b[:], int64(argvAddr)+int64(8*i)); err != nil {
			return Exec{}, fmt.Errorf("argv[%d]: %w", i, err)
		}
		p := binary.LittleEndian.Uint64(b[:])
		if p == 0 {
			break
		}
		s, err := readString(mem, p, maxArgBytes)
		if err != nil {
			return Exec{}, fmt.Errorf("argv[%d]: %w", i, err)
		}
		if total += len(s); total > maxAllBytes {
			return Exec{}, errors.New("argv too large")
		}
		argv = append(argv, s)
	}
	dir, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if !filepath.IsAbs(path) {
		base := dir
		if dirfd >= 0 {
			base, _ = os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(dirfd))
		}
		if path == "" { // AT_EMPTY_PATH: the descriptor itself
			path = base
		} else {
			path = filepath.Join(base, path)
		}
	}
	id := req.ID
	if err := ioctl(listener, ioctlNotifIDValid, unsafe.Pointer(&id)); err != nil {
		return Exec{}, fmt.Errorf("the exec is no longer pending: %w", err)
	}
	return Exec{PID: pid, PPID: parentOf(pid), Path: path, Argv: argv, Dir: dir}, nil
}

// parentOf reads the parent of pid from /proc/PID/stat (0 if it cannot).
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(string(f[1]))
	return pp
}

// readString reads a NUL-terminated string at addr, up to max bytes.
func readString(mem *os.File, addr uint64, max int) (string, error) {
	var out []byte
	buf := make([]byte, 256)
	for len(out) < max {
		n, err := mem.ReadAt(buf, int64(addr)+int64(len(out)))
		if n > 0 {
			if i := bytes.IndexByte(buf[:n], 0); i >= 0 {
				return string(append(out, buf[:i]...)), nil
			}
			out = append(out, buf[:n]...)
		}
		if err != nil {
			if n > 0 {
				continue
			}
			return "", err
		}
	}
	return "", errors.New("string too long")
}
