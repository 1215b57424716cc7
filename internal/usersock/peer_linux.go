//go:build linux

package usersock

import (
	"fmt"
	"os"
	"syscall"
)

// PeerIsUs refuses the connected unix socket fd when the process at its
// other end is not this user's: the credentials the kernel recorded when
// the peer connected (or, for a client, when the server listened),
// SO_PEERCRED. Unlike the socket file's owner, they cannot change between
// a check and the connection, nor be borrowed by a socket file that
// another user's process listens on.
func PeerIsUs(fd int) error {
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		return os.NewSyscallError("getsockopt SO_PEERCRED", err)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("%w: the peer is uid %d (pid %d), not us (uid %d)", ErrPeer, cred.Uid, cred.Pid, os.Getuid())
	}
	return nil
}
