package usersock

import (
	"errors"
	"syscall"
)

// ErrPeer is a unix connection whose other end is another user's process
// ([PeerIsUs]).
var ErrPeer = errors.New("the process at the other end of the socket is not this user's")

// PeerOf is [PeerIsUs] for a connection (a *net.UnixConn).
func PeerOf(c syscall.Conn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var perr error
	if err := raw.Control(func(fd uintptr) { perr = PeerIsUs(int(fd)) }); err != nil {
		return err
	}
	return perr
}
