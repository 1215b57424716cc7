package server

import (
	"net"

	"github.com/rivumi/rivumi/internal/usersock"
)

// DefaultSocket is the well-known socket path `rivumi serve --socket` and
// the hook adapters agree on: $RIVUMI_SOCKET, else
// $XDG_RUNTIME_DIR/rivumi.sock, else $TMPDIR/rivumi-<uid>/serve.sock
// ([usersock.Default]).
func DefaultSocket() string { return usersock.Default(nil) }

// ListenUnix listens on the unix socket path, readable and writable by
// the owner only ([usersock.Listen]). Its directory is created (mode
// 0700) when missing. A stale socket (nothing answers on it) is replaced;
// a live one is an error. The socket file is removed when the listener
// closes.
func ListenUnix(path string) (net.Listener, error) { return usersock.Listen(path) }

// TrustedSocket reports whether path is a unix socket owned by this user,
// so that a client does not take verdicts from another user's server
// planted at a shared path ([usersock.Trusted]).
func TrustedSocket(path string) error { return usersock.Trusted(path) }
