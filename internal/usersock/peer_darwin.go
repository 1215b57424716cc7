//go:build darwin

package usersock

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// PeerIsUs refuses the connected unix socket fd when the process at its
// other end is not this user's: the credentials the kernel recorded when
// the peer connected (or, for a client, when the server listened),
// LOCAL_PEERCRED. Unlike the socket file's owner, they cannot change
// between a check and the connection.
func PeerIsUs(fd int) error {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return os.NewSyscallError("getsockopt LOCAL_PEERCRED", err)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("%w: the peer is uid %d, not us (uid %d)", ErrPeer, cred.Uid, os.Getuid())
	}
	return nil
}
