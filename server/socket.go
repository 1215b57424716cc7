package server

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/rivumi/rivumi/internal/usersock"
)

// DefaultSocket is the well-known socket path `rivumi serve --socket` and
// the hook adapters agree on: $RIVUMI_SOCKET, else
// $XDG_RUNTIME_DIR/rivumi.sock, else $TMPDIR/rivumi-<uid>/serve.sock
// ([usersock.Default]).
func DefaultSocket() string { return usersock.Default(nil) }

// ListenUnix listens on the unix socket path, readable and writable by
// the owner only. Its directory is created (mode 0700) when missing and
// must not be another user's ([usersock.CheckDir]). A stale socket
// (nothing answers on it) is replaced; a live one is an error. The
// socket file is removed when the listener closes.
func ListenUnix(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := usersock.CheckDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("%s: a server is already listening", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	}
	// The directory (ours, 0700, or $XDG_RUNTIME_DIR) keeps others out
	// until the chmod below.
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// TrustedSocket reports whether path is a unix socket owned by this user,
// so that a client does not take verdicts from another user's server
// planted at a shared path ([usersock.Trusted]).
func TrustedSocket(path string) error { return usersock.Trusted(path) }
