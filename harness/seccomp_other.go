//go:build !(linux && (amd64 || arm64))

package harness

import "errors"

const seccompAvailable = false

func denyIPSockets() error { return errors.New("seccomp filter not implemented on this architecture") }
