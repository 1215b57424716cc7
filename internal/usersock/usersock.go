// Package usersock finds, checks and listens on the per-user unix socket
// of `rivumi serve`, without linking the policy engine, so that the thin
// hook client (cmd/rivumi-hook) can use it.
//
// A client takes verdicts from a socket only when the socket and its
// directory belong to the user ([Trusted]): another user's server planted
// at a shared path is refused.
package usersock

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Default is the well-known socket path `rivumi serve --socket` and the
// hook adapters agree on, read through getenv (nil: [os.Getenv]):
// $RIVUMI_SOCKET, else $XDG_RUNTIME_DIR/rivumi.sock, else
// $TMPDIR/rivumi-<uid>/serve.sock.
func Default(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if s := getenv("RIVUMI_SOCKET"); s != "" {
		return s
	}
	if d := getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "rivumi.sock")
	}
	tmp := getenv("TMPDIR")
	if tmp == "" || !filepath.IsAbs(tmp) {
		tmp = os.TempDir()
	}
	return filepath.Join(tmp, fmt.Sprintf("rivumi-%d", os.Getuid()), "serve.sock")
}

// Listen listens on the unix socket path, readable and writable by the
// owner only. Its directory is created (mode 0700) when missing. A stale
// socket (nothing answers on it) is replaced; a live one is an error. The
// socket file is removed when the listener closes.
func Listen(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := ownDir(filepath.Dir(path)); err != nil {
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

// Trusted reports whether path is a unix socket owned by this user in a
// directory no other user controls, so that a client does not take
// verdicts from another user's server planted at a shared path.
func Trusted(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("%s is not a socket", path)
	}
	if err := ownedByUs(path, fi); err != nil {
		return err
	}
	return ownDir(filepath.Dir(path))
}
