// Package usersock finds and checks the per-user unix socket of `rivumi
// serve` for the thin hook client (cmd/rivumi-hook): it links neither the
// policy engine nor the net package (which would link the C library and
// make the client start through the dynamic loader). The server listens
// with [github.com/rivumi/rivumi/server.ListenUnix].
//
// A client takes verdicts from a socket only when the socket and its
// directory belong to the user ([Trusted]): another user's server planted
// at a shared path is refused.
package usersock

import (
	"fmt"
	"os"
	"path/filepath"
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

// CheckDir refuses a socket directory that another user controls: one
// owned by someone else (but root) that others may write to.
func CheckDir(dir string) error { return ownDir(dir) }
