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
	// serveIdleEnv is the idle time after which a started server exits
	// (a Go duration; default [defaultServeIdle]).
	serveIdleEnv = "RIVUMI_SERVE_IDLE"
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

// serveIdle is the idle exit of a started server.
func serveIdle(getenv func(string) string) time.Duration {
	if d, err := time.ParseDuration(getenv(serveIdleEnv)); err == nil && d > 0 {
		return d
	}
	return defaultServeIdle
}

// startLog is where a started server's stderr goes: next to its socket.
func startLog(sock string) string { return sock + ".log" }

// maxStartLog bounds the log: past it, the next start truncates it.
const maxStartLog = 1 << 20
