//go:build !linux

package harness

import (
	"context"
	"errors"
	"os/exec"
)

var errNoGate = errors.New("the exec gate is Linux only")

func (g *gate) start(context.Context, *exec.Cmd, *supervision) (func(), error) { return nil, errNoGate }

func installGate() error { return errNoGate }
