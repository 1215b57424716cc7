//go:build !unix

package cli

// autostart is unix-only (it locks with flock and detaches with setsid):
// elsewhere a hook without a server grades in-process every time.
func autostart(exe, sock string, getenv func(string) string) error { return nil }

func releaseStartLock(int) {}
