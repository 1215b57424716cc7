package execgate

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Available reports whether this kernel and architecture can run the gate.
func Available() error { return available() }

// available probes once per process: nothing in a process's life removes a
// seccomp filter it is under.
var available = sync.OnceValue(func() error {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		return fmt.Errorf("the exec gate is not built for %s", runtime.GOARCH)
	}
	var act uint32 = unix.SECCOMP_RET_USER_NOTIF
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&act))); errno != 0 {
		return fmt.Errorf("the kernel has no seccomp user notification: %w", errno)
	}
	return probeListener()
})

// probeListener installs a filter that allows everything, asking for a
// listener, on a thread of its own that then exits (a goroutine that ends
// locked to its thread takes the thread, and its filter, with it). The
// kernel refuses a second listener in one filter chain (EBUSY): a process
// already under a gate — a test suite run through `rivumi run --gate` —
// cannot start a gate of its own, and says so here instead of at the
// first run.
func probeListener() error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			errc <- fmt.Errorf("exec gate probe: no_new_privs: %w", err)
			return
		}
		prog := []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}
		fprog := unix.SockFprog{Len: 1, Filter: &prog[0]}
		fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER,
			uintptr(unsafe.Pointer(&fprog)))
		runtime.KeepAlive(prog)
		switch errno {
		case 0:
			unix.Close(int(fd))
			errc <- nil
		case unix.EBUSY:
			errc <- errors.New("this process already runs under a seccomp listener (inside a gated run?): the kernel allows one per process tree, so no gate can start here")
		default:
			errc <- fmt.Errorf("exec gate probe: %w", errno)
		}
	}()
	return <-errc
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
	// WAIT_KILLABLE_RECV (Linux 5.19): once the supervisor has received an
	// exec, a signal other than a fatal one no longer interrupts it, so
	// an exec is decided once (without it a Go program's preemption
	// signal restarts its execve, and the supervisor sees it again).
	fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER|unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, uintptr(unsafe.Pointer(&fprog)))
	if errno == unix.EINVAL {
		fd, _, errno = unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER,
			uintptr(unsafe.Pointer(&fprog)))
	}
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
		start := time.Now()
		d := Decision{}
		ex, err := readExec(listener, req)
		if errors.Is(err, errGone) {
			// The caller was interrupted (a signal restarts its execve, which
			// comes again as a new notification) or died: nothing to decide.
			continue
		}
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
		d.Took = time.Since(start)
		resp := notifResp{ID: req.ID}
		if d.Allowed {
			resp.Flags = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
		} else {
			resp.Error = -int32(unix.EPERM)
		}
		if err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp)); err != nil && err != unix.ENOENT {
			return fmt.Errorf("exec gate: answer: %w", err)
		}
		// The parent is only for the record: read after the answer, off the
		// exec's path (an exec does not change it; a process already gone
		// leaves it 0).
		d.PPID = parentOf(d.PID)
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

// errGone is a notification no longer pending when its reads were done.
var errGone = errors.New("the exec is no longer pending")

// readExec reads the path, argv and working directory of a stopped exec.
// The notification must still be valid after the reads: otherwise the
// memory read may have been another process's.
func readExec(listener int, req notif) (Exec, error) {
	pid := int(req.PID)
	pathAddr, argvAddr := req.Args[0], req.Args[1]
	dirfd := -1
	if req.Nr == unix.SYS_EXECVEAT {
		dirfd, pathAddr, argvAddr = int(int32(req.Args[0])), req.Args[1], req.Args[2]
	}
	path, argv, ok := readArgsFast(pid, pathAddr, argvAddr)
	if !ok {
		var err error
		if path, argv, err = readArgs(pid, pathAddr, argvAddr); err != nil {
			return Exec{}, err
		}
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
		return Exec{}, fmt.Errorf("%w: %w", errGone, err)
	}
	return Exec{PID: pid, Path: path, Argv: argv, Dir: dir}, nil
}

// fastChunk is how much of each string the fast reader reads at once.
const fastChunk = 256

// readArgsFast reads the path and argv with two process_vm_readv calls:
// the path and the pointer array, then every string. It gives up (ok
// false, for [readArgs] to do it the slow way) on anything unusual: a
// string longer than fastChunk, more than 64 arguments, a short read
// (a string that ends near an unmapped page).
func readArgsFast(pid int, pathAddr, argvAddr uint64) (path string, argv []string, ok bool) {
	var head [fastChunk + 64*8]byte
	local := []unix.Iovec{{Base: &head[0]}, {Base: &head[fastChunk]}}
	local[0].SetLen(fastChunk)
	local[1].SetLen(64 * 8)
	remote := []unix.RemoteIovec{{Base: uintptr(pathAddr), Len: fastChunk}, {Base: uintptr(argvAddr), Len: 64 * 8}}
	if n, err := unix.ProcessVMReadv(pid, local, remote, 0); err != nil || n != len(head) {
		return "", nil, false
	}
	i := bytes.IndexByte(head[:fastChunk], 0)
	if i < 0 {
		return "", nil, false
	}
	path = string(head[:i])
	var ptrs []uint64
	for j := 0; ; j++ {
		if j == 64 {
			return "", nil, false
		}
		p := binary.LittleEndian.Uint64(head[fastChunk+8*j:])
		if p == 0 {
			break
		}
		ptrs = append(ptrs, p)
	}
	if len(ptrs) == 0 {
		return path, nil, true
	}
	buf := make([]byte, len(ptrs)*fastChunk)
	local = make([]unix.Iovec, len(ptrs))
	remote = make([]unix.RemoteIovec, len(ptrs))
	for j, p := range ptrs {
		local[j] = unix.Iovec{Base: &buf[j*fastChunk]}
		local[j].SetLen(fastChunk)
		remote[j] = unix.RemoteIovec{Base: uintptr(p), Len: fastChunk}
	}
	if n, err := unix.ProcessVMReadv(pid, local, remote, 0); err != nil || n != len(buf) {
		return "", nil, false
	}
	argv = make([]string, len(ptrs))
	for j := range ptrs {
		s := buf[j*fastChunk : (j+1)*fastChunk]
		k := bytes.IndexByte(s, 0)
		if k < 0 {
			return "", nil, false
		}
		argv[j] = string(s[:k])
	}
	return path, argv, true
}

// readArgs reads the path and argv through /proc/PID/mem, a string at a
// time, within the kernel's own bounds.
func readArgs(pid int, pathAddr, argvAddr uint64) (string, []string, error) {
	// A raw descriptor: os.Open would register it with Go's poller, which
	// costs more than the reads (this runs once per exec of the tree).
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/mem", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, err
	}
	defer unix.Close(fd)
	mem := procMem(fd)
	path, err := readString(mem, pathAddr, unix.PathMax)
	if err != nil {
		return "", nil, fmt.Errorf("path: %w", err)
	}
	var argv []string
	total := 0
	var ptrs [64 * 8]byte // the argv array, read up to 64 pointers at a time
	base, n := 0, 0       // ptrs holds pointers base … base+n-1
	for i := 0; ; i++ {
		if i >= maxArgs {
			return "", nil, errors.New("argv too long")
		}
		if i >= base+n {
			// A short read is fine if it holds a pointer: the array may end
			// just before an unmapped page.
			m, err := mem.ReadAt(ptrs[:], int64(argvAddr)+int64(8*i))
			if m < 8 {
				return "", nil, fmt.Errorf("argv[%d]: %w", i, err)
			}
			base, n = i, m/8
		}
		p := binary.LittleEndian.Uint64(ptrs[(i-base)*8:])
		if p == 0 {
			break
		}
		s, err := readString(mem, p, maxArgBytes)
		if err != nil {
			return "", nil, fmt.Errorf("argv[%d]: %w", i, err)
		}
		if total += len(s); total > maxAllBytes {
			return "", nil, errors.New("argv too large")
		}
		argv = append(argv, s)
	}
	return path, argv, nil
}

// procMem reads a process's memory through a raw descriptor of
// /proc/PID/mem.
type procMem int

// ReadAt reads at the address off (io.ReaderAt).
func (m procMem) ReadAt(p []byte, off int64) (int, error) {
	for {
		n, err := unix.Pread(int(m), p, off)
		if err == unix.EINTR {
			continue
		}
		if n < 0 {
			n = 0
		}
		if err == nil && n == 0 {
			err = io.EOF
		}
		return n, err
	}
}

// parentOf reads the parent of pid from /proc/PID/stat (0 if it cannot).
func parentOf(pid int) int {
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	var buf [512]byte // pid (comm) state ppid …: comm is at most 64 bytes
	n, err := unix.Read(fd, buf[:])
	unix.Close(fd)
	if err != nil || n <= 0 {
		return 0
	}
	b := buf[:n]
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
func readString(mem io.ReaderAt, addr uint64, max int) (string, error) {
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
