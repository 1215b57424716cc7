// Command rivumi grades shell commands before anything runs them.
//
// See the README and docs/ for usage; exit codes are documented in
// package internal/cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/internal/cli"
)

// version is the release's tag, stamped at link time by scripts/release
// (-ldflags "-X main.version=v1.2.3"); empty in any other build.
var version string

func main() {
	cli.ReleaseVersion = version
	// When rivumi re-executes itself as a Landlock-sandboxed child, this
	// applies the sandbox and execs the target; it never returns then.
	harness.MaybeRunSandboxChild()
	if cli.OneShot(os.Args[1:]) {
		// Compile, grade once, exit: collecting garbage only costs time.
		cli.CollectorOff()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
