//go:build linux

package server

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// peerUID refuses a unix connection from another user (SO_PEERCRED): the
// socket's 0600 mode already keeps others out; this is the second wall.
func peerUID(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("%w (not a unix connection)", errPeer)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("%w (uid %d)", errPeer, cred.Uid)
	}
	return nil
}
