//go:build !linux

package execgate

import (
	"context"
	"errors"
)

var errNoGate = errors.New("the exec gate needs Linux's seccomp user notification")

// Available reports that this platform has no exec gate.
func Available() error { return errNoGate }

// InstallFilter: no gate here.
func InstallFilter() (int, error) { return -1, errNoGate }

// SendFD: no gate here.
func SendFD(int, int) error { return errNoGate }

// RecvFD: no gate here.
func RecvFD(int) (int, error) { return -1, errNoGate }

// Serve: no gate here.
func Serve(context.Context, int, Decide, func(Decision)) error { return errNoGate }
