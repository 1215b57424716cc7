//go:build !darwin

package harness

import "errors"

var errSeatbeltMacOnly = errors.New("sandbox-exec (Seatbelt) is macOS only")
