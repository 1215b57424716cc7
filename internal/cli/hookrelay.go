package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/hook"
	"github.com/rivumi/rivumi/internal/hookrelay"
	"github.com/rivumi/rivumi/server"
)

// hookEnv is what a hook call sees of the process it runs in: its
// environment, working directory, its binaries and its parent. A call
// relayed by the thin client (cmd/rivumi-hook) runs in `rivumi serve`
// with the client's; every other call with this process's.
type hookEnv struct {
	getenv func(string) string
	cwd    string   // "": this process's
	exes   []string // the client's binary, protected like this one
	ppid   int      // the agent's process (0: this process's parent)
	// verdict grades in the serving process (relayed calls only).
	verdict func(context.Context, server.Request) (engine.Verdict, error)
}

type hookEnvKey struct{}

// hookEnvFrom returns the environment of the hook call running under ctx.
func hookEnvFrom(ctx context.Context) hookEnv {
	if e, ok := ctx.Value(hookEnvKey{}).(hookEnv); ok {
		return e
	}
	return hookEnv{getenv: os.Getenv}
}

// abs makes p absolute against the call's working directory.
func (e hookEnv) abs(p string) string {
	if p == "" || filepath.IsAbs(p) || e.cwd == "" {
		return abs(p)
	}
	return filepath.Clean(filepath.Join(e.cwd, p))
}

// home is the user's home directory as the call's environment names it.
func (e hookEnv) home() (string, error) {
	if e.cwd == "" {
		return os.UserHomeDir()
	}
	v := "HOME"
	if runtime.GOOS == "windows" {
		v = "USERPROFILE"
	}
	if h := e.getenv(v); h != "" {
		return h, nil
	}
	return "", fmt.Errorf("$%s is not defined", v)
}

// relayHook runs one hook call relayed by the thin client, as `rivumi hook
// AGENT ARGS` would run it in the client's place, grading through srv.
// Calls whose flags name another policy or server (--policy, --remote,
// --socket none) are not run: the client runs the full binary for them.
func relayHook(ctx context.Context, srv *server.Server, c hookrelay.Call) hookrelay.Result {
	if !slices.Contains(hook.Agents, hook.Agent(c.Agent)) {
		return hookrelay.Result{Code: ExitHookBlock, Stderr: fmt.Appendf(nil, "rivumi: blocked: unknown hook agent %q\n", c.Agent)}
	}
	if !filepath.IsAbs(c.Cwd) {
		return hookrelay.Result{Local: true}
	}
	fs := flag.NewFlagSet("relay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var h hookFlags
	h.register(fs)
	if fs.Parse(c.Args) == nil && (h.remote.url != "" || len(h.pf.policyDirs) > 0 || h.socket == "none") {
		return hookrelay.Result{Local: true}
	}
	env := map[string]string{}
	for _, kv := range c.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if _, dup := env[k]; !dup { // the first wins, as in os.Getenv
				env[k] = v
			}
		}
	}
	var exes []string
	if c.Exe != "" && filepath.IsAbs(c.Exe) {
		exes = append(exes, c.Exe)
	}
	he := hookEnv{
		getenv: func(k string) string { return env[k] }, cwd: c.Cwd, exes: exes, ppid: c.PPID,
		verdict: func(ctx context.Context, r server.Request) (engine.Verdict, error) {
			return srv.Verdict(ctx, r, "relay")
		},
	}
	var out, errb bytes.Buffer
	args := append([]string{"hook", c.Agent}, c.Args...)
	code := Main(context.WithValue(ctx, hookEnvKey{}, he), args, Stdio{In: bytes.NewReader(c.Stdin), Out: &out, Err: &errb})
	return hookrelay.Result{Code: code, Stdout: out.Bytes(), Stderr: errb.Bytes()}
}
