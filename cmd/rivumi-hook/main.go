// Command rivumi-hook is the thin hook client: `rivumi-hook [hook] AGENT
// [hook flags]` answers one hook call exactly as `rivumi hook AGENT [hook
// flags]` would, by relaying it (payload, flags, cwd, environment) to the
// per-user `rivumi serve --socket` that already has the policy compiled,
// which runs the same code and grades with its warm engine.
//
// It links neither OPA nor the engine, so it starts in a fraction of the
// full binary's time. When no trusted server answers, or the flags name
// another policy or server (--policy, --remote, --socket none), it runs
// the full binary, `rivumi` in its own directory, with the same
// arguments and payload: that one grades in-process (and may start the
// per-user server, see docs/hooks.md). It never answers on its own but to
// block: when neither the server nor the full binary answers, the call is
// blocked (exit 2, the reason on stderr), as every supported agent reads
// it.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rivumi/rivumi/internal/hookrelay"
	"github.com/rivumi/rivumi/internal/usersock"
)

// exitBlock is the exit code every supported agent reads as "block"
// (cli.ExitHookBlock; TestExitBlockMatchesCLI keeps them equal).
const exitBlock = 2

// defaultTimeout is the hook's own default deadline (hook.DefaultTimeout;
// TestDefaultTimeoutMatchesHook keeps them equal).
const defaultTimeout = 5 * time.Second

func main() {
	// One thread does all of it (read, one round trip, write): with more,
	// the scheduler's idle threads spin while the server answers, and the
	// call costs a fifth more CPU (interleaved runs: 4.1 against 3.5 ms).
	runtime.GOMAXPROCS(1)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	block := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rivumi: blocked: "+format+" (rivumi fails closed)\n", a...)
		return exitBlock
	}
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:] // `rivumi-hook hook AGENT`, as hook install writes it
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return block("usage: rivumi-hook [hook] AGENT [hook flags] < payload.json")
	}
	sock, timeout, relay := scan(args[1:], getenv)
	if !relay {
		return runFull(args, stdin, stdout, stderr, block)
	}
	// The payload, bounded: beyond the relay's limit the full binary
	// reads it (and applies --max-input).
	payload, err := io.ReadAll(io.LimitReader(stdin, hookrelay.MaxStdin+1))
	if err != nil {
		return block("cannot read the hook input: %v", err)
	}
	if len(payload) > hookrelay.MaxStdin {
		return runFull(args, io.MultiReader(bytes.NewReader(payload), stdin), stdout, stderr, block)
	}
	if usersock.Trusted(sock) != nil {
		return runFull(args, bytes.NewReader(payload), stdout, stderr, block)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return runFull(args, bytes.NewReader(payload), stdout, stderr, block)
	}
	exe, _ := os.Executable()
	// The server answers within the hook's deadline (it fails closed past
	// it); a server that does not is cut off a little later.
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Second)
	defer cancel()
	res, err := hookrelay.Do(ctx, sock, hookrelay.Call{
		Agent: args[0], Args: args[1:], Stdin: payload, Cwd: cwd, Env: os.Environ(), PPID: os.Getppid(), Exe: exe,
	})
	switch {
	case errors.Is(err, hookrelay.ErrTimeout):
		return block("the rivumi server on %s did not answer within %v", sock, timeout+time.Second)
	case err != nil || res.Local:
		// Nothing was answered: the full binary grades in-process.
		return runFull(args, bytes.NewReader(payload), stdout, stderr, block)
	}
	stdout.Write(res.Stdout)
	stderr.Write(res.Stderr)
	return res.Code
}

// scan reads what the client needs of the hook flags: the socket, the
// deadline, and whether the call may be relayed at all (not with
// --policy, --remote or --socket none, which the full binary handles).
// The server parses the flags again with the hook's own flag set and
// refuses to relay what it cannot; this is only the client's shortcut.
func scan(args []string, getenv func(string) string) (sock string, timeout time.Duration, relay bool) {
	timeout, relay = defaultTimeout, true
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") {
			continue
		}
		next := func() string {
			if hasVal {
				return val
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case name == "socket":
			sock = next()
		case name == "timeout":
			if d, err := time.ParseDuration(next()); err == nil && d > 0 {
				timeout = d
			}
		case name == "policy" || strings.HasPrefix(name, "remote"):
			relay = false
		}
	}
	switch sock {
	case "none":
		relay = false
	case "":
		sock = usersock.Default(getenv)
	}
	return sock, timeout, relay
}

// fullBinary is the full rivumi binary: `rivumi` next to this one (after
// resolving symlinks).
func fullBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	name := "rivumi"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	p := filepath.Join(filepath.Dir(exe), name)
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if fi.IsDir() || (runtime.GOOS != "windows" && fi.Mode()&0o111 == 0) {
		return "", fmt.Errorf("%s is not an executable", p)
	}
	return p, nil
}

// runFull runs `rivumi hook AGENT ARGS` (the full binary) with the
// payload and passes its answer and exit code on.
func runFull(args []string, stdin io.Reader, stdout, stderr io.Writer, block func(string, ...any) int) int {
	full, ferr := fullBinary()
	if ferr != nil {
		return block("no rivumi server answers and the full binary is missing: %v", ferr)
	}
	c := exec.Command(full, append([]string{"hook"}, args...)...)
	c.Stdin, c.Stdout, c.Stderr = stdin, stdout, stderr
	err := c.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return ee.ExitCode()
	}
	return block("the full binary %s failed: %v", full, err)
}
