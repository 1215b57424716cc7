//go:build !unix

package cli

import "errors"

// autostart is unix-only (it locks with flock and detaches with setsid):
// elsewhere a hook without a server grades in-process every time.
func autostart(exe, sock string, getenv func(string) string) error { return nil }

func releaseStartLock(int) {}

func autostartProblem(string) error { return errors.New("hooks start no server on this system") }
