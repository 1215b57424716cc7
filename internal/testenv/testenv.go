// Package testenv lets a test that needs what rivumi's own sandbox refuses
// by design skip when, and only when, it runs inside one: `rivumi run
// --gate deny -- go test ./...` runs this repository's suite under the
// contract it tests, and the contract refuses unix sockets (a socket could
// reach a host service), user namespaces and setuid (no privilege
// inside), writes outside the workspace and the run's directories, a
// second exec gate (the kernel allows one listener per process tree), and
// its gate refuses the execs the policy denies.
//
// Outside a rivumi run these helpers never skip: there a missing
// capability is a failure the test must report (CI runs every test).
package testenv

import (
	"os"
	"testing"
)

// RunMarkerEnv is the variable the harness sets in every command it runs
// (harness.RunMarkerEnv; a test keeps the two equal).
const RunMarkerEnv = "RIVUMI_RUN_ID"

// InsideRun reports whether this process runs inside a command started
// by rivumi's harness.
func InsideRun() bool { return os.Getenv(RunMarkerEnv) != "" }

// SkipInsideRun skips t inside a rivumi run, saying what the test needs
// that the sandbox refuses; outside one it does nothing.
func SkipInsideRun(t testing.TB, need string) {
	t.Helper()
	if InsideRun() {
		t.Skipf("inside a rivumi run (%s=%s): the sandbox refuses %s by design", RunMarkerEnv, os.Getenv(RunMarkerEnv), need)
	}
}

// NeedUnixSockets skips t inside a rivumi run whose sandbox refuses unix
// sockets (it does, unless run with --sandbox none); outside one it does
// nothing.
func NeedUnixSockets(t testing.TB) {
	t.Helper()
	if InsideRun() && !unixSockets() {
		SkipInsideRun(t, "unix sockets")
	}
}
