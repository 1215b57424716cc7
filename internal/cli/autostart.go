package cli

import (
	"strings"
	"time"
)

// Starting the per-user server (docs/hooks.md, "A server that starts
// itself"): a hook call that finds no server on its socket grades
// in-process, as it always did, and starts `rivumi serve --socket` in the
// background for the calls after it.
const (
	// noAutostartEnv set (to anything but "" or "0") keeps hooks from
	// starting a server, like the hook flag --no-autostart.
	noAutostartEnv = "RIVUMI_NO_AUTOSTART"
	// defaultServeIdle: a started server exits after this long without
	// a request.
	defaultServeIdle = 30 * time.Minute
)

// autostartOff reports whether the environment opts out of starting a
// server.
func autostartOff(getenv func(string) string) bool {
	v := strings.TrimSpace(getenv(noAutostartEnv))
	return v != "" && v != "0"
}
