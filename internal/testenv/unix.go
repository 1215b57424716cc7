//go:build unix

package testenv

import "syscall"

// unixSockets reports whether this process may create a unix socket.
func unixSockets() bool {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return false
	}
	syscall.Close(fd)
	return true
}
