//go:build !(linux && (amd64 || arm64))

package harness

import "errors"

var errNoSeccomp = errors.New("the sandbox contract's seccomp filter is not implemented on this architecture")

// contractFilterBytes: no filter on this architecture (used on linux only).
//
//lint:ignore U1000 used by the Linux probe on architectures without the filter
func contractFilterBytes(bool) []byte { return nil }

func installContractFilter(bool) error { return errNoSeccomp }
