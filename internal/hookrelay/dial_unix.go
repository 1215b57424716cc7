//go:build unix

package hookrelay

import (
	"errors"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/rivumi/rivumi/internal/usersock"
)

// dial connects to the unix socket path with the system calls alone: the
// net package links the C library (its resolver) into the thin client,
// which then starts through the dynamic loader and costs ~1.2 ms more
// CPU per call (docs/performance.md). The socket blocks; the kernel's
// send and receive timeouts, set to what is left before deadline at each
// call, bound connect, every write and every read. A server that is not
// this user's process is refused once connected, before a byte is sent
// ([usersock.PeerIsUs]): the call carries the environment.
func dial(path string, deadline time.Time) (io.ReadWriteCloser, error) {
	sa := &syscall.SockaddrUnix{Name: path}
	syscall.ForkLock.RLock() // no exec between socket and close-on-exec
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	c := &unixConn{fd: fd, deadline: deadline}
	if err := c.timeouts(); err != nil {
		c.Close()
		return nil, err
	}
	for {
		err = syscall.Connect(fd, sa)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		c.Close()
		if timedOut(err) {
			return nil, os.ErrDeadlineExceeded
		}
		return nil, os.NewSyscallError("connect", err)
	}
	if err := usersock.PeerIsUs(fd); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// unixConn is a connected, blocking unix socket.
type unixConn struct {
	fd       int
	deadline time.Time // zero: none
}

// timeouts sets the socket's send and receive timeouts to the time left
// (at least a microsecond: zero would mean none).
func (c *unixConn) timeouts() error {
	if c.deadline.IsZero() {
		return nil
	}
	left := time.Until(c.deadline)
	if left <= 0 {
		return os.ErrDeadlineExceeded
	}
	tv := syscall.NsecToTimeval(max(left, time.Microsecond).Nanoseconds())
	for _, opt := range []int{syscall.SO_SNDTIMEO, syscall.SO_RCVTIMEO} {
		if err := syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
			return os.NewSyscallError("setsockopt", err)
		}
	}
	return nil
}

// timedOut: a blocking socket call past its timeout fails with EAGAIN
// (EWOULDBLOCK).
func timedOut(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK)
}

// retry is one read or write, retried when a signal interrupts it (a socket
// call with a timeout is not restarted by the kernel) with the timeouts
// set again for the time left.
func (c *unixConn) retry(f func(int, []byte) (int, error), b []byte) (int, error) {
	for {
		n, err := f(c.fd, b)
		switch {
		case err == syscall.EINTR:
			if terr := c.timeouts(); terr != nil {
				return 0, terr
			}
			continue
		case err != nil && timedOut(err):
			return 0, os.ErrDeadlineExceeded
		case err != nil:
			return 0, err
		}
		return n, nil
	}
}

func (c *unixConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, err := c.retry(syscall.Read, b)
	if err == nil && n == 0 {
		return 0, io.EOF
	}
	return n, err
}

func (c *unixConn) Write(b []byte) (int, error) {
	written := 0
	for written < len(b) {
		n, err := c.retry(syscall.Write, b[written:])
		if err != nil {
			return written, err
		}
		written += n
	}
	return written, nil
}

func (c *unixConn) Close() error {
	if c.fd < 0 {
		return nil
	}
	err := syscall.Close(c.fd)
	c.fd = -1
	return err
}
