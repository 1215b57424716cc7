//go:build linux

package server

import (
	"fmt"
	"net"

	"github.com/rivumi/rivumi/internal/usersock"
)

// peerUID refuses a unix connection from another user (SO_PEERCRED): the
// socket's 0600 mode already keeps others out; this is the second wall.
func peerUID(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		if pc, ok := c.(*peekedConn); ok {
			return peerUID(pc.Conn)
		}
		return fmt.Errorf("%w (not a unix connection)", errPeer)
	}
	if err := usersock.PeerOf(uc); err != nil {
		return fmt.Errorf("%w (%v)", errPeer, err)
	}
	return nil
}
