package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/hook"
	"github.com/rivumi/rivumi/internal/hookrelay"
	"github.com/rivumi/rivumi/server"
	"github.com/spf13/pflag"
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
	// early answers a relayed call past its deadline (hook.Config.Early).
	early func(code int, stdout, stderr []byte)
}

// processEnv is the environment of a hook call that is not relayed.
func processEnv() hookEnv { return hookEnv{getenv: os.Getenv} }

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
//
// The hook grades on the calling goroutine; a call past its deadline is
// answered through reply (nil: the hook grades on a goroutine of its own).
func relayHook(ctx context.Context, srv *server.Server, c hookrelay.Call, reply func(hookrelay.Result)) hookrelay.Result {
	if !slices.Contains(hook.Agents, hook.Agent(c.Agent)) {
		return hookrelay.Result{Code: ExitHookBlock, Stderr: fmt.Appendf(nil, "rivumi: blocked: unknown hook agent %q\n", c.Agent)}
	}
	if !filepath.IsAbs(c.Cwd) {
		return hookrelay.Result{Local: true}
	}
	// The flags are parsed once, by the hook's own flag set: what Main
	// would run for `rivumi hook AGENT ARGS` is run from here on, without
	// its dispatch.
	agent := hook.Agent(c.Agent)
	var out, errb bytes.Buffer
	stdio := Stdio{In: bytes.NewReader(c.Stdin), Out: &out, Err: &errb}
	var h hookFlags
	var perr error
	key := flagsKey(c.Agent, c.Args)
	if o, ok := relayFlags.get(key); ok {
		h.hookOpts = o
	} else if perr = h.parse(agent, stdio, c.Args); perr == nil {
		relayFlags.put(key, h.hookOpts)
	}
	if perr == nil && (h.remote.url != "" || len(h.pf.policyDirs) > 0 || h.socket == "none") {
		return hookrelay.Result{Local: true}
	}
	var exes []string
	if c.Exe != "" && filepath.IsAbs(c.Exe) {
		exes = append(exes, c.Exe)
	}
	h.env = hookEnv{
		getenv: func(k string) string { return lookupEnv(c.Env, k) }, cwd: c.Cwd, exes: exes, ppid: c.PPID,
		verdict: func(ctx context.Context, r server.Request) (engine.Verdict, error) {
			return srv.Verdict(ctx, r, "relay")
		},
	}
	if reply != nil {
		// What the call returns below for the same answer (run: exit
		// codes without a message).
		h.env.early = func(code int, stdout, stderr []byte) {
			reply(hookrelay.Result{Code: code, Stdout: stdout, Stderr: stderr})
		}
	}
	code := runRelayed(stdio, "hook "+c.Agent, func() error {
		if perr != nil {
			return perr
		}
		return h.run(ctx, agent, stdio)
	})
	return hookrelay.Result{Code: code, Stdout: out.Bytes(), Stderr: errb.Bytes()}
}

// relayFlags are the parsed flags of the calls relayed so far: the
// agents' settings give a server a handful of distinct flag lists, and
// parsing one costs a call as much as reading its payload.
var relayFlags flagCache

// flagCache maps a flag list to its parse (those that parse only).
type flagCache struct {
	mu sync.Mutex
	m  map[string]hookOpts
}

// maxRelayCached bounds the relay's caches ([flagCache], [logCache]): past
// it, a cache starts over.
const maxRelayCached = 64

func (c *flagCache) get(key string) (hookOpts, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.m[key]
	return o, ok
}

func (c *flagCache) put(key string, o hookOpts) {
	// The lists are shared by the calls that read them: none may append
	// in place.
	o.pf.policyDirs, o.protect, o.secrets = slices.Clip(o.pf.policyDirs), slices.Clip(o.protect), slices.Clip(o.secrets)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxRelayCached {
		c.m = map[string]hookOpts{}
	}
	c.m[key] = o
}

// flagsKey names the flag list args of agent's hook unambiguously.
func flagsKey(agent string, args []string) string {
	b := strconv.AppendQuote(nil, agent)
	for _, a := range args {
		b = strconv.AppendQuote(append(b, ' '), a)
	}
	return string(b)
}

// openLogs are the decision logs relayed calls write, kept open.
var openLogs logCache

// logCache keeps one open [audit.Logger] per path, for as long as the path
// names the file it has open: each open checks that with a stat (one
// system call, against the four of opening and closing), and opens the
// path anew when it names another file or none (the log was rotated or
// removed). A logger given up is closed by the collector once the calls
// writing it are done.
type logCache struct {
	mu sync.Mutex
	m  map[string]openLog
}

type openLog struct {
	l  *audit.Logger
	fi os.FileInfo // of the file l has open
}

func (c *logCache) open(path string) (*audit.Logger, error) {
	fi, serr := os.Stat(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if o, ok := c.m[path]; ok && serr == nil && os.SameFile(o.fi, fi) {
		return o.l, nil
	}
	l, err := audit.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err = os.Stat(path); err != nil {
		return l, nil // used once: the next call opens it again
	}
	if c.m == nil || len(c.m) >= maxRelayCached {
		c.m = map[string]openLog{}
	}
	c.m[path] = openLog{l, fi}
	return l, nil
}

// lookupEnv is the value of k in env (KEY=value entries; the first wins,
// as in os.Getenv). A call reads a dozen variables: scanning for each
// costs less than building a map of them all.
func lookupEnv(env []string, k string) string {
	for _, kv := range env {
		if len(kv) > len(k) && kv[len(k)] == '=' && kv[:len(k)] == k {
			return kv[len(k)+1:]
		}
	}
	return ""
}

// runRelayed runs f as [Main] runs the command at path: a panic is
// [ExitInternal], an error its exit status, --help the command's help.
func runRelayed(stdio Stdio, path string, f func() error) (code int) {
	defer recoverInternal(stdio, &code)
	err := f()
	if errors.Is(err, pflag.ErrHelp) {
		return Main(context.Background(), append(strings.Fields(path), "--help"), stdio)
	}
	return exitStatus(stdio, nil, err)
}
