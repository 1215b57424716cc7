package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/rivumi/rivumi/execgate"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/hook"
	"github.com/rivumi/rivumi/internal/usersock"
	"github.com/rivumi/rivumi/server"
	"github.com/spf13/pflag"
)

func init() {
	for _, a := range hook.Agents {
		register("hook "+string(a), "answer one "+string(a)+" hook call (JSON on stdin) with rivumi's verdict", hookRunner(a))
		describe("hook "+string(a), "[flags] < payload.json", fmt.Sprintf(hookHelp, a, a))
	}
	register("hook install", "wire the hook into an agent's settings ("+agentNames()+"): the thin client rivumi-hook, with the full binary as its fallback (--full: the full binary alone)", hookInstall)
	describe("hook install", "AGENT [--user | --project] [flags] [-- HOOK FLAGS...]", installHelp)
	register("hook doctor", "check the hook wiring, that a floor command is denied end to end, the installed form and its measured latency", hookDoctor)
}

// agentNames lists the agents rivumi has an adapter for.
func agentNames() string {
	names := make([]string, len(hook.Agents))
	for i, a := range hook.Agents {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

// ExitHookBlock is the exit code that every supported agent takes as
// "block this tool call": hook errors exit with it so that a broken hook
// never fails open.
const ExitHookBlock = 2

const hookHelp = `Reads one %s hook call on stdin and answers in its protocol: shell
commands are graded by the policy (a running 'rivumi serve --socket' when
there is one, else compiled in-process), file tools by the path policy.
Anything that goes wrong (bad input, internal error, deadline) blocks the
call (exit 2, reason on stderr). Install with 'rivumi hook install %s'.`

// hookFlags are the flags of `rivumi hook AGENT`.
type hookFlags struct {
	hookOpts
	// pending is the socket to start a server on once the call is
	// answered (set by the grader, which may outlive a missed deadline).
	pending atomic.Pointer[string]
	env     hookEnv // hookrelay.go: the process the call runs in
}

// hookOpts are the values of the hook's flags.
type hookOpts struct {
	pf        policyFlags
	socket    string
	askAs     string
	shadow    bool
	timeout   time.Duration
	maxInput  int64
	auditFile string
	auditBest bool
	grants    string
	protect   stringList
	secrets   stringList
	remote    remoteFlags // hookremote.go
	noStart   bool        // autostart.go
	gate      string
}

func (h *hookFlags) register(fs *pflag.FlagSet) {
	h.remote.register(fs)
	fs.Var(&h.pf.policyDirs, "policy", "directory of user Rego packs (package rivumi.user…); repeatable")
	fs.StringVar(&h.pf.workspace, "workspace", "", "project root when the agent does not name one (CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR win; default: the nearest .git above the cwd)")
	fs.StringVar(&h.pf.shell, "shell", "", "shell dialect: bash, sh or zsh (default: the basename of $SHELL)")
	fs.StringVar(&h.socket, "socket", "", "use the socket of a running 'rivumi serve' at `PATH` (default: "+server.DefaultSocket()+" when it is there and no --policy is given); none: always compile in-process")
	fs.StringVar(&h.askAs, "ask-as", "auto", "answer for ask on agents that cannot always ask: auto (gemini asks in an interactive session and denies headless; codex denies), ask (gemini always asks), deny, pass (let the agent's own approval decide) or allow")
	fs.BoolVar(&h.shadow, "shadow", false, "grade and log, but answer nothing: the agent behaves as without rivumi")
	fs.DurationVar(&h.timeout, "timeout", hook.DefaultTimeout, "internal deadline; keep it below the agent's hook timeout")
	fs.Int64Var(&h.maxInput, "max-input", hook.DefaultMaxInput, "largest hook input in `bytes`")
	fs.StringVar(&h.auditFile, "audit", "", "append one audit entry per call to `FILE` (default $XDG_STATE_HOME/rivumi/audit.jsonl; off: none)")
	fs.BoolVar(&h.auditBest, "audit-best-effort", false, "answer even when the audit entry cannot be written (default: such calls are blocked)")
	fs.StringVar(&h.grants, "grants", "", "grants `FILE` (default: the project's, as `rivumi grant` keeps them)")
	fs.Var(&h.protect, "protect", "`GLOB` of paths file tools may not write (relative to the workspace, ~/…, or absolute); repeatable")
	fs.Var(&h.secrets, "secret", "`GLOB` of paths whose reading asks; repeatable")
	fs.StringVar(&h.gate, "gate", "off", "run the shell commands the hook lets through under rivumi's exec gate (Claude Code; Linux with Landlock): off, floor (refuse each program the critical floor denies), deny (… the policy denies) or ask (refuse all but what it allows)")
	fs.BoolVar(&h.noStart, "no-autostart", false, "when no server answers on the socket, do not start one in the background (also: "+noAutostartEnv+"=1)")
}

func hookRunner(agent hook.Agent) func(ctx context.Context, stdio Stdio, args []string) error {
	return func(ctx context.Context, stdio Stdio, args []string) error {
		h := hookFlags{env: processEnv()}
		if err := h.parse(agent, stdio, args); err != nil {
			return err
		}
		return h.run(ctx, agent, stdio)
	}
}

// parse parses the hook's flags, args, as the agent's settings give them.
func (h *hookFlags) parse(agent hook.Agent, stdio Stdio, args []string) error {
	fs := newFlags("hook "+string(agent), stdio)
	h.register(fs.FlagSet)
	if err := parseArgs(fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) || errors.Is(err, errFlagsDeclared) {
			return err
		}
		return exitf(ExitHookBlock, "blocked: bad hook flags in the agent's settings: %v", err)
	}
	if fs.NArg() > 0 {
		return exitf(ExitHookBlock, "blocked: unexpected arguments %q in the agent's settings", fs.Args())
	}
	return nil
}

// run answers one hook call with the parsed flags.
func (h *hookFlags) run(ctx context.Context, agent hook.Agent, stdio Stdio) error {
	cfg, closeAudit, err := h.config(agent)
	if err != nil {
		return exitf(ExitHookBlock, "blocked: %v", err)
	}
	defer closeAudit()
	code := hook.Run(ctx, cfg, stdio.In, stdio.Out, stdio.Err)
	// After the answer is out: the server's compile does not compete
	// with this call's on a small machine.
	h.startPending()
	if code != 0 {
		return exitCode(code)
	}
	return nil
}

// config builds the adapter's configuration from the flags.
func (h *hookFlags) config(agent hook.Agent) (hook.Config, func(), error) {
	env := h.env
	if env.getenv == nil {
		env = hookEnv{getenv: os.Getenv}
	}
	cfg := hook.Config{
		Agent: agent, Workspace: env.abs(h.pf.workspace), Shell: h.pf.shell, Shadow: h.shadow,
		Probe:   env.getenv(doctorProbeEnv) == "1",
		Timeout: h.timeout, MaxInput: h.maxInput,
		Protected: append([]string(nil), h.protect...), Secrets: h.secrets,
		NewGrader: h.newGrader,
	}
	if env.cwd != "" { // a relayed call: the client's environment
		cfg.Getenv = env.getenv
		if home, err := env.home(); err == nil && home != "/" {
			cfg.Home = home
		}
		ppid := env.ppid
		cfg.Interactive = func() bool { return ppid > 1 && hook.GeminiInteractiveFrom(ppid) }
		cfg.Early = env.early
	}
	askAs, err := hook.ParseAskAs(h.askAs)
	if err != nil {
		return cfg, nil, fmt.Errorf("--ask-as %v", err)
	}
	cfg.AskAs = askAs
	if h.gate != "off" && h.gate != "" {
		exe, err := os.Executable()
		if err != nil {
			return cfg, nil, fmt.Errorf("--gate: %v", err)
		}
		cfg.GateWrap = &hook.GateWrap{Mode: h.gate, Rivumi: exe}
		if err := hook.CheckGateWrap(agent, cfg.GateWrap); err != nil {
			return cfg, nil, err
		}
		// Landlock is checked by the run itself (exit 126, the command
		// does not run): probing it here would cost every call a process.
		if err := execgate.Available(); err != nil {
			return cfg, nil, fmt.Errorf("--gate: %v", err)
		}
	}
	switch h.pf.shell {
	case "", "bash", "sh", "zsh":
	default:
		return cfg, nil, fmt.Errorf("--shell %q: want bash, sh or zsh", h.pf.shell)
	}
	for _, g := range append(append([]string(nil), h.protect...), h.secrets...) {
		if !hook.ValidGlob(g) {
			return cfg, nil, fmt.Errorf("bad glob %q", g)
		}
	}
	// rivumi's own state is protected from file tools wherever it lives:
	// the files named below, and these (found only when a file tool is
	// judged: finding the binaries costs a shell command's call a dozen
	// system calls).
	var own []string // the globs of the files named below
	cfg.MoreProtected = func() []string {
		var ps []string
		for _, d := range h.pf.policyDirs {
			ps = append(ps, hook.EscapeGlob(env.abs(d))+"/")
		}
		if g, err := grant.PathIn("/", env.getenv, env.home); err == nil {
			ps = append(ps, hook.EscapeGlob(filepath.Dir(filepath.Dir(g)))+"/")
		}
		// So is the binary the hook runs, and the per-user copy install
		// makes: replaced, it would answer anything.
		exes := env.exes
		if exe, err := os.Executable(); err == nil {
			exes = append([]string{exe}, exes...)
		}
		for _, exe := range exes {
			ps = append(ps, hook.EscapeGlob(exe))
			if r, err := filepath.EvalSymlinks(exe); err == nil && r != exe {
				ps = append(ps, hook.EscapeGlob(r))
			}
		}
		if ub, err := userBinaryIn(env.getenv, env.home); err == nil {
			ps = append(ps, hook.EscapeGlob(filepath.Dir(ub))+"/")
		}
		return append(ps, own...)
	}
	if h.grants != "" {
		grants := env.abs(h.grants)
		own = append(own, hook.EscapeGlob(grants))
		cfg.Grants = func(string) ([]engine.Grant, error) { return loadGrants(grants) }
	} else {
		cfg.Grants = func(ws string) ([]engine.Grant, error) {
			p, err := grant.PathIn(ws, env.getenv, env.home)
			if err != nil {
				return nil, err
			}
			return loadGrants(p)
		}
	}
	closer := func() {}
	if h.auditFile != "off" {
		path := env.abs(h.auditFile)
		if path == "" {
			var err error
			if path, err = auditPathIn(env.getenv, env.home); err != nil {
				return cfg, nil, err
			}
		}
		own = append(own, hook.EscapeGlob(filepath.Dir(abs(path)))+"/")
		cfg.AuditBestEffort = h.auditBest
		var l *audit.Logger
		var err error
		if env.cwd != "" { // relayed: the server keeps its logs open
			l, err = openLogs.open(path)
		} else if l, err = audit.Open(path); err == nil {
			closer = func() { l.Close() }
		}
		switch {
		case err != nil && h.auditBest:
			cfg.Audit = unwritable{err} // reported with each answer
		case err != nil:
			return cfg, nil, err
		default:
			cfg.Audit = l
		}
	}
	return cfg, closer, nil
}

// unwritable is the audit sink of a best-effort log that could not be
// opened: every entry fails with the error.
type unwritable struct{ err error }

func (u unwritable) Log(context.Context, audit.Entry) error { return u.err }

func loadGrants(path string) ([]engine.Grant, error) {
	s, err := grant.Load(path)
	if err != nil {
		return nil, err
	}
	return s.List(), nil
}

// newGrader returns the server on the socket when one answers there, and
// falls back to compiling the policy in this process.
func (h *hookFlags) newGrader(ctx context.Context) (hook.Grader, error) {
	// In process, the engine is compiled for the configuration found from
	// the call's own cwd (the payload's), not from this process's.
	local := func(ctx context.Context) (hook.Grader, error) {
		return func(ctx context.Context, r server.Request) (engine.Verdict, error) {
			pf := h.pf
			if r.Cwd != "" {
				pf.cwd = r.Cwd
			} else if r.Workspace != "" {
				pf.cwd = r.Workspace
			}
			e, err := pf.newEngine(ctx)
			if err != nil {
				return engine.Verdict{}, err
			}
			return e.Grade(ctx, r)
		}, nil
	}
	if h.remote.url != "" {
		if h.socket != "" {
			return nil, errors.New("--remote and --socket: name one server")
		}
		return h.remote.grader(local)
	}
	path := h.socket
	switch {
	case path == "none":
		return local(ctx)
	case path == "" && len(h.pf.policyDirs) > 0:
		// The user's packs are named here: a server may serve others.
		return local(ctx)
	case path == "":
		path = usersock.Default(h.env.getenv)
	}
	verdict := h.env.verdict // a relayed call: the serving process grades
	if verdict == nil {
		if err := server.TrustedSocket(path); err != nil {
			h.pending.Store(&path)
			return local(ctx)
		}
		verdict = server.NewUnixClient(path).CallerLogs().Verdict // the hook logs its own answer
	}
	return func(ctx context.Context, r server.Request) (engine.Verdict, error) {
		v, err := verdict(ctx, r)
		if err == nil {
			return v, nil
		}
		if h.env.verdict == nil {
			h.pending.Store(&path) // a stale socket: nothing answers there
		}
		g, lerr := local(ctx)
		if lerr != nil {
			return engine.Verdict{}, fmt.Errorf("server: %v; in-process: %v", err, lerr)
		}
		return g(ctx, r)
	}, nil
}

// startPending starts the per-user server on the socket where grading
// found none (autostart.go), unless the call opts out. A refusal or
// failure changes nothing for this call, graded in-process either way,
// and is not reported on the hook's stderr (which the agents show as its
// answer): docs/agents.md and `rivumi hook doctor` say when a server
// cannot start.
func (h *hookFlags) startPending() {
	p := h.pending.Load()
	if p == nil {
		return
	}
	sock := *p
	getenv := h.env.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if h.noStart || autostartOff(getenv) {
		return
	}
	if exe, err := os.Executable(); err == nil {
		_ = autostart(exe, sock, getenv)
	}
}

// hookTarget is the agent and settings file that install and doctor act on.
func hookScope(fs *flagSet) (project, user *bool, dir *string) {
	project = fs.Bool("project", false, "the project's settings (of the project containing -C DIR)")
	user = fs.Bool("user", false, "the user's settings (the default)")
	dir = fs.String("C", "", "the project is the one containing `DIR` (default: the current directory)")
	return
}

func settingsFiles(agent hook.Agent, project, user bool, dir string) ([]string, error) {
	cwd, err := workDir(dir)
	if err != nil {
		return nil, err
	}
	root, err := grant.ProjectRoot(cwd)
	if err != nil {
		return nil, err
	}
	home, err := os.UserHomeDir()
	if err != nil && (user || !project) {
		return nil, fmt.Errorf("no home directory: %v", err)
	}
	var out []string
	if project {
		out = append(out, hook.SettingsFile(agent, hook.ScopeProject, root, home, os.Getenv))
	}
	if user {
		out = append(out, hook.SettingsFile(agent, hook.ScopeUser, root, home, os.Getenv))
	}
	return out, nil
}

const installHelp = `Writes the PreToolUse (Gemini: BeforeTool) hook entry into the agent's
settings (AGENT: claude-code, gemini, codex, qwen, …). The entry runs the
thin client rivumi-hook beside this binary, by its absolute path, as
'rivumi-hook hook AGENT': it relays each call to the per-user server and
runs the full binary beside it when none answers. Without rivumi-hook
there (only 'go install ./cmd/rivumi' was run) it runs the full binary,
'rivumi hook AGENT', with a note; --full chooses that form. Other hooks
and settings are kept, an earlier rivumi entry is replaced, and the
previous file is kept as FILE.bak. Flags after -- are passed to the hook
(e.g. -- --shadow).`

func hookInstall(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("hook install", stdio)
	project, user, dir := hookScope(fs)
	binary := fs.String("binary", "", "absolute path of the rivumi binary the hook runs (default: this one)")
	timeout := fs.Duration("timeout", 10*time.Second, "the agent's timeout for the hook (the hook's own deadline is 5 s)")
	matcher := fs.String("matcher", "", "tools the entry hooks (default: the agent's shell and file tools)")
	thin := fs.Bool("thin", false, "accepted for older scripts: the thin client is the default; --thin writes it whatever the hook flags, and fails when there is no rivumi-hook beside the binary instead of writing the full binary")
	full := fs.Bool("full", false, "run the full binary (rivumi hook AGENT) instead of the thin client rivumi-hook: each call starts the whole engine (about 3x the thin client's warm call)")
	applyPatch := fs.Bool("apply-patch", false, "codex: accepted for older scripts; apply_patch is guarded by default now (matcher "+hook.CodexMatcher+")")
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	hookArgs := fs.Args()
	if name == "" && len(hookArgs) > 0 {
		name, hookArgs = hookArgs[0], hookArgs[1:]
	}
	if name == "" {
		return exitf(ExitError, "hook install: name the agent: %s", agentNames())
	}
	agent, err := hook.ParseAgent(name)
	if err != nil {
		return exitf(ExitError, "hook install: %v", err)
	}
	if len(hookArgs) > 0 && hookArgs[0] == "--" {
		hookArgs = hookArgs[1:]
	}
	// A bad hook flag would block every tool call: check them now.
	hfs := newFlags("hook "+string(agent), stdio)
	var hf hookFlags
	hf.register(hfs.FlagSet)
	if err := parseArgs(hfs, hookArgs); err != nil || hfs.NArg() > 0 {
		return exitf(ExitError, "hook install: bad hook flags %q", hookArgs)
	}
	if *project && *user {
		return exitf(ExitError, "hook install: --project or --user, not both")
	}
	if !*project {
		*user = true
	}
	if *timeout < 2*time.Second {
		return exitf(ExitError, "hook install: --timeout %v is too short for the hook's own deadline", *timeout)
	}
	if *thin && *full {
		return exitf(ExitError, "hook install: --thin or --full, not both")
	}
	exe, copiedFrom, notes, err := stableBinary(*binary)
	if err != nil {
		return exitf(ExitError, "hook install: %v", err)
	}
	for _, n := range notes {
		fmt.Fprintln(stdio.Err, "rivumi: "+n)
	}
	if *applyPatch && agent != hook.Codex {
		return exitf(ExitError, "hook install: --apply-patch is for codex")
	}
	files, err := settingsFiles(agent, *project, *user, *dir)
	if err != nil {
		return exitf(ExitError, "hook install: %v", err)
	}
	m := *matcher
	if m == "" {
		m = hook.Matchers[agent]
		if *applyPatch {
			m = hook.CodexApplyPatchMatcher
		}
	}
	// The thin client is the default form; without one beside the binary
	// the full binary is installed (with a note), unless --thin insists.
	// Hook flags that keep every call from the per-user server leave the
	// thin client nothing to relay: it would only add a process.
	useThin := !*full
	if noRelay := thinCannotRelay(hfs.FlagSet, hf.socket); useThin && !*thin && noRelay != "" {
		useThin = false
		fmt.Fprintf(stdio.Err, "rivumi: note: the hook runs the full binary: with %s no call can be relayed to a server, so the thin client would only add a process\n", noRelay)
	}
	if useThin {
		t, err := thinBinary(exe, copiedFrom)
		switch {
		case err == nil:
			exe = t
		case *thin:
			return exitf(ExitError, "hook install: --thin: %v", err)
		default:
			useThin = false
			fmt.Fprintf(stdio.Err, "rivumi: note: the hook runs the full binary %s, not the thin client: %v.\n"+
				"  Each call then starts the whole engine: about 3x the thin client's warm call (docs/performance.md).\n"+
				"  For the thin client, `go install ./cmd/rivumi-hook` (or unpack the release archive, which has both\n"+
				"  binaries side by side) and run this install again; --full installs this form without this note.\n", exe, err)
		}
	}
	// The agent's timeout must outlast rivumi (its deadline, and for the
	// thin client the relay and the fallback), or a slow grading is cut
	// off and the agent runs the tool. Unset, it is raised to fit.
	minTO := hook.MinAgentTimeout(hf.timeout, useThin)
	timeoutSet := false
	fs.Visit(func(f *pflag.Flag) { timeoutSet = timeoutSet || f.Name == "timeout" })
	if !timeoutSet && *timeout < minTO {
		*timeout = minTO.Round(time.Second)
		if *timeout < minTO {
			*timeout += time.Second
		}
	}
	e := hook.Entry{Agent: agent, Command: hook.HookCommand(exe, agent, hookArgs...), Matcher: m, Timeout: *timeout,
		Argv: append([]string{exe, "hook", string(agent)}, hookArgs...)}
	if e.AgentTimeout() < minTO {
		alt := ""
		if useThin && !*thin {
			alt = fmt.Sprintf(" (or %v with --full, the full binary alone)", hook.MinAgentTimeout(hf.timeout, false))
		}
		return exitf(ExitError, "hook install: --timeout %v lets %s cut rivumi off: the hook may take up to %v (its deadline %v%s); give the agent at least %v%s", *timeout, agent, minTO, hf.timeout, map[bool]string{true: ", plus the thin client's relay and fallback", false: ""}[useThin], minTO, alt)
	}
	for _, f := range files {
		changed, err := hook.Install(f, e)
		if err != nil {
			return exitf(ExitError, "hook install: %v", err)
		}
		if changed {
			fmt.Fprintf(stdio.Out, "installed %s in %s\n", e.Command, f)
		} else {
			fmt.Fprintf(stdio.Out, "already installed in %s\n", f)
		}
	}
	if agent == hook.Codex {
		return trustCodex(stdio, files, *project, *dir)
	}
	return nil
}

// trustCodex records trust for the rivumi entries just written, so that
// Codex runs them, or fails with the one step the user has to take.
func trustCodex(stdio Stdio, files []string, project bool, dir string) error {
	home, err := os.UserHomeDir()
	if err != nil {
		return exitf(ExitError, "hook install: no home directory: %v", err)
	}
	cfg := hook.CodexConfigFile(home, os.Getenv)
	if off, err := hook.CodexFeatureOff(cfg); err != nil {
		return exitf(ExitError, "hook install: %v", err)
	} else if off != "" {
		return exitf(ExitError, "hook install: %s turns Codex hooks off ([features] %s = false): remove that line, or Codex runs no hook at all", cfg, off)
	}
	for _, f := range files {
		entries, err := hook.FindInstalled(f, hook.Codex)
		if err != nil {
			return exitf(ExitError, "hook install: %v", err)
		}
		for _, e := range entries {
			changed, err := hook.TrustCodexHook(cfg, e)
			if err != nil {
				return exitf(ExitError, "hook install: the hook is in %s, but Codex skips it until it is trusted: %v\n(or run codex, type /hooks and trust the rivumi hook)", f, err)
			}
			if changed {
				fmt.Fprintf(stdio.Out, "trusted the hook in %s (Codex's trusted_hash of exactly this entry)\n", cfg)
			} else {
				fmt.Fprintf(stdio.Out, "already trusted in %s\n", cfg)
			}
		}
	}
	if project {
		cwd, err := workDir(dir)
		if err != nil {
			return exitf(ExitError, "hook install: %v", err)
		}
		root, err := grant.ProjectRoot(cwd)
		if err != nil {
			return exitf(ExitError, "hook install: %v", err)
		}
		if ok, err := hook.CodexProjectTrusted(cfg, root); err != nil {
			return exitf(ExitError, "hook install: %v", err)
		} else if !ok {
			return exitf(ExitError, "hook install: Codex reads %s/.codex/hooks.json only in a trusted project: trust %s when codex asks (or add [projects.%q] trust_level = \"trusted\" to %s), or install with --user", root, root, root, cfg)
		}
	}
	return nil
}

// stableBinary returns the binary the hook runs: --binary when given
// (with a warning when it lives inside a git checkout, where a clean or a
// rebuild removes it); else this binary when it lives somewhere stable (a
// `go install` location, a package's bin directory); else a per-user copy
// of it, refreshed by each install, so that cleaning a clone or a build
// directory does not switch the guard off (Claude Code, Codex) or block
// every tool (Gemini CLI). copiedFrom is the binary the per-user copy was
// made from ("" when exe is not such a copy).
func stableBinary(explicit string) (exe, copiedFrom string, notes []string, err error) {
	if explicit != "" {
		if !filepath.IsAbs(explicit) {
			return "", "", nil, fmt.Errorf("--binary %q is not an absolute path", explicit)
		}
		if root := gitCheckout(explicit); root != "" {
			notes = append(notes, fmt.Sprintf("warning: %s is inside the git checkout %s: a clean or rebuild there leaves the hook without its binary (Claude Code and Codex then run every tool unguarded, Gemini CLI blocks every tool); prefer `go install` or a copy outside it (omit --binary)", explicit, root))
		}
		return explicit, "", notes, nil
	}
	exe, err = os.Executable()
	if err != nil {
		return "", "", nil, fmt.Errorf("cannot find this binary: %v", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	root := gitCheckout(exe)
	tmp := false
	for _, d := range []string{os.TempDir(), "/tmp", "/var/tmp", "/private/tmp", "/private/var/folders"} {
		tmp = tmp || within(exe, d)
	}
	if root == "" && !tmp {
		return exe, "", nil, nil
	}
	dst, err := userBinary()
	if err != nil {
		return "", "", nil, err
	}
	if dst == exe {
		return exe, "", nil, nil
	}
	if err := copyBinary(exe, dst); err != nil {
		return "", "", nil, fmt.Errorf("copy %s to %s: %v", exe, dst, err)
	}
	why := "in the temporary directory"
	if root != "" {
		why = "inside the git checkout " + root
	}
	return dst, exe, []string{fmt.Sprintf("%s is %s; the hook runs a per-user copy, %s (install again after upgrading rivumi)", exe, why, dst)}, nil
}

// thinCannotRelay returns the hook flag, as parsed into fs (socket: its
// --socket), that makes the thin client hand every call to the full
// binary (as cmd/rivumi-hook's scan decides it: --policy, any --remote
// flag, --socket none), or "" when the thin client relays.
func thinCannotRelay(fs *pflag.FlagSet, socket string) string {
	why := ""
	fs.Visit(func(f *pflag.Flag) {
		if why == "" && (f.Name == "policy" || strings.HasPrefix(f.Name, "remote")) {
			why = "--" + f.Name
		}
	})
	if why == "" && socket == "none" {
		why = "--socket none"
	}
	return why
}

// thinName is the thin client's file name beside the full binary exe.
func thinName(exe string) string {
	if filepath.Ext(exe) == ".exe" {
		return "rivumi-hook.exe"
	}
	return "rivumi-hook"
}

// thinBinary returns the thin client the hook runs in front of the full
// binary exe: rivumi-hook beside exe. When exe is a per-user copy of
// copiedFrom, the rivumi-hook beside copiedFrom is copied next to it
// first (refreshed by each install, like the full one); without one there,
// a thin client left beside the copy by an earlier install is not used (it
// may be of another version). The thin client falls back to `rivumi`
// beside itself (after resolving links): thinBinary fails unless that is
// exe, so that the calls no server answers run the binary install chose.
func thinBinary(exe, copiedFrom string) (string, error) {
	name := thinName(exe)
	dst := filepath.Join(filepath.Dir(exe), name)
	if copiedFrom != "" {
		src := filepath.Join(filepath.Dir(copiedFrom), name)
		if fi, err := os.Stat(src); err != nil || !fi.Mode().IsRegular() {
			return "", fmt.Errorf("no %s beside %s", name, copiedFrom)
		}
		if err := copyBinary(src, dst); err != nil {
			return "", fmt.Errorf("copy %s to %s: %v", src, dst, err)
		}
	}
	if fi, err := os.Stat(dst); err != nil || fi.IsDir() {
		return "", fmt.Errorf("no %s beside %s", name, exe)
	}
	fb := thinFallback(dst)
	efi, err := os.Stat(exe)
	if err != nil {
		return "", fmt.Errorf("the full binary: %v", err)
	}
	if ffi, err := os.Stat(fb); err != nil || !os.SameFile(ffi, efi) {
		return "", fmt.Errorf("%s falls back to %s, which is not %s", dst, fb, exe)
	}
	return dst, nil
}

// thinFallback is the full binary the thin client at thin runs when no
// server answers, found as cmd/rivumi-hook finds it: `rivumi` in the
// directory of thin after resolving its links.
func thinFallback(thin string) string {
	real := thin
	if r, err := filepath.EvalSymlinks(thin); err == nil {
		real = r
	}
	name := "rivumi"
	if strings.HasSuffix(filepath.Base(thin), ".exe") {
		name += ".exe"
	}
	return filepath.Join(filepath.Dir(real), name)
}

// userBinary is where the per-user copy lives: $XDG_DATA_HOME/rivumi/bin,
// else ~/.local/share/rivumi/bin.
func userBinary() (string, error) { return userBinaryIn(os.Getenv, os.UserHomeDir) }

// userBinaryIn is [userBinary] in the environment getenv names.
func userBinaryIn(getenv func(string) string, homeDir func() (string, error)) (string, error) {
	base := getenv("XDG_DATA_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := homeDir()
		if err != nil {
			return "", fmt.Errorf("no home directory for the per-user copy: %v", err)
		}
		base = filepath.Join(home, ".local", "share")
	}
	name := "rivumi"
	if filepath.Ext(os.Args[0]) == ".exe" {
		name += ".exe"
	}
	return filepath.Join(base, "rivumi", "bin", name), nil
}

// copyBinary copies src to dst atomically (a running hook keeps its old
// file), executable.
func copyBinary(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".rivumi.tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// gitCheckout returns the nearest directory above path holding .git, or "".
func gitCheckout(path string) string {
	for d := filepath.Dir(filepath.Clean(path)); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// within reports whether path lies in dir (after resolving dir's links).
func within(path, dir string) bool {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// doctorServer reports the per-user server warm hook calls use: answering,
// or why none will start (informational: hooks work without one).
func doctorServer(w io.Writer) {
	sock := usersock.Default(nil)
	if usersock.Trusted(sock) == nil {
		if c, err := net.DialTimeout("unix", sock, time.Second); err == nil {
			c.Close()
			fmt.Fprintf(w, "ok    server: rivumi serve answers on %s (warm hook calls)\n", sock)
			return
		}
	}
	switch {
	case autostartOff(os.Getenv):
		fmt.Fprintf(w, "-     server: none on %s, and %s is set: every hook call compiles in-process\n", sock, noAutostartEnv)
	case func() bool { _, err := os.Lstat(filepath.Dir(sock)); return err == nil }() && autostartProblem(sock) != nil:
		fmt.Fprintf(w, "warn  server: no hook can start one on %s: %v; every hook call compiles in-process\n", sock, autostartProblem(sock))
	default:
		fmt.Fprintf(w, "-     server: none on %s yet; the next hook call starts one (unless its flags say --no-autostart or --socket none)\n", sock)
	}
}

func hookDoctor(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("hook doctor", stdio)
	project, user, dir := hookScope(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	names := fs.Args()
	agents := hook.Agents
	if len(names) > 0 {
		agents = nil
		for _, a := range names {
			ag, err := hook.ParseAgent(a)
			if err != nil {
				return exitf(ExitError, "hook doctor: %v", err)
			}
			agents = append(agents, ag)
		}
	}
	if !*project && !*user {
		*project, *user = true, true
	}
	cwd, err := workDir(*dir)
	if err != nil {
		return exitf(ExitError, "hook doctor: %v", err)
	}
	self, _ := os.Executable()
	wired, problems := 0, 0
	fail := func(format string, a ...any) {
		problems++
		fmt.Fprintf(stdio.Out, "FAIL  "+format+"\n", a...)
	}
	ok := func(format string, a ...any) { fmt.Fprintf(stdio.Out, "ok    "+format+"\n", a...) }
	note := func(format string, a ...any) { fmt.Fprintf(stdio.Out, "-     "+format+"\n", a...) }
	home, _ := os.UserHomeDir()
	root, err := grant.ProjectRoot(cwd)
	if err != nil {
		return exitf(ExitError, "hook doctor: %v", err)
	}
	for _, agent := range agents {
		files, err := settingsFiles(agent, *project, *user, *dir)
		if err != nil {
			return exitf(ExitError, "hook doctor: %v", err)
		}
		before := wired
		for _, f := range files {
			entries, err := hook.FindInstalled(f, agent)
			if err != nil {
				fail("%s: %v", agent, err)
				continue
			}
			if len(entries) == 0 {
				fmt.Fprintf(stdio.Out, "-     %s: not wired in %s\n", agent, f)
				continue
			}
			for _, e := range entries {
				wired++
				ok("%s: wired in %s (matcher %q): %s", agent, f, e.Matcher, e.Command)
				if p := hook.TimeoutProblem(agent, e); p != "" {
					fail("%s: %s in %s; run `rivumi hook install %s` again", agent, p, f, agent)
				}
				if agent == hook.Codex {
					// A group without a matcher selects every tool.
					if miss := hook.CodexMatcherMisses(e.Matcher); len(miss) > 0 {
						fail("codex: the matcher %q in %s misses %s: Codex runs those tools unguarded; run `rivumi hook install codex` again (matcher %q)", e.Matcher, f, strings.Join(miss, ", "), hook.CodexMatcher)
					}
					doctorCodexTrust(e, home, root, ok, fail)
				}
				doctorEntry(ctx, agent, e, cwd, self, ok, fail, note)
			}
		}
		if wired == before {
			continue
		}
		var fs []hook.Finding
		switch agent {
		case hook.ClaudeCode:
			fs = hook.ClaudeHooksOff(home, root, hook.ClaudeManagedSettings())
			fmt.Fprintf(stdio.Out, "warn  claude-code: `claude --bare` runs no hook at all: rivumi does not guard such sessions\n")
		case hook.Gemini:
			fs = hook.GeminiHooksOff(home, cwd, os.Getenv)
		case hook.Codex:
			if off, err := hook.CodexFeatureOff(hook.CodexConfigFile(home, os.Getenv)); err != nil {
				fs = append(fs, hook.Finding{Fail: true, Text: "codex: " + err.Error()})
			} else if off != "" {
				fs = append(fs, hook.Finding{Fail: true, Text: fmt.Sprintf("codex: [features] %s = false in %s: Codex runs no hook; remove that line", off, hook.CodexConfigFile(home, os.Getenv))})
			}
		default:
			fs = hook.HooksOff(agent, home, root, os.Getenv)
		}
		for _, f := range fs {
			if f.Fail {
				fail("%s", f.Text)
			} else {
				ok("%s", f.Text)
			}
		}
	}
	doctorServer(stdio.Out)
	if wired == 0 {
		return exitf(ExitError, "hook doctor: no rivumi hook is wired; run `rivumi hook install AGENT`")
	}
	if problems > 0 {
		return exitf(ExitError, "hook doctor: %d problem(s)", problems)
	}
	return nil
}

// doctorEntry checks one wired entry: the binary, and that the floor
// command `rm -rf /` is blocked in-process and through the entry itself.
func doctorEntry(ctx context.Context, agent hook.Agent, e hook.Installed, cwd, self string, ok, fail, note func(string, ...any)) {
	const floor = "rm -rf /"
	bin := hook.CommandPath(e.Command)
	switch fi, err := os.Stat(bin); {
	case !filepath.IsAbs(bin):
		fail("%s: %q is not an absolute path: the agent may not find it (and skips the hook silently)", agent, bin)
		return
	case err != nil:
		if fb := pluginFallback(e); fb != "" {
			// rivumi's plugin runs the full binary when the thin client
			// cannot start.
			fail("%s: %v: the plugin runs its fallback %s instead (the full binary: each call starts the whole engine); run `rivumi hook install %s` again", agent, err, fb, agent)
			return
		}
		if agent == hook.Gemini {
			fail("%s: %v: Gemini CLI blocks every matched tool (a missing hook command fails with output)", agent, err)
		} else if blocked, _ := hook.Blocks(agent, nil, []byte(bin+": not found"), 127); blocked {
			fail("%s: %v: every matched tool is blocked (the agent, or rivumi's plugin, fails closed on a hook that cannot start)", agent, err)
		} else {
			fail("%s: %v: the agent runs every tool unguarded (a hook that cannot start does not block)", agent, err)
		}
		return
	case fi.Mode()&0o111 == 0 || fi.IsDir():
		fail("%s: %s is not an executable file", agent, bin)
		return
	default:
		same := ""
		if sfi, err := os.Stat(self); err == nil && os.SameFile(fi, sfi) {
			same = " (this binary)"
		}
		ok("%s: %s is executable%s", agent, bin, same)
	}
	// The form: the thin client, which falls back to the full binary
	// beside it (without it, every call no server answers is blocked), or
	// the full binary.
	if strings.HasPrefix(filepath.Base(bin), "rivumi-hook") {
		full := thinFallback(bin)
		if fi, err := os.Stat(full); err != nil || fi.IsDir() || (runtime.GOOS != "windows" && fi.Mode()&0o111 == 0) {
			fail("%s: the thin client %s has no full binary beside it (%s): every call the server does not answer is blocked; reinstall rivumi there, or `rivumi hook install %s --full`", agent, bin, full, agent)
		} else {
			ok("%s: form: the thin client %s; its fallback %s is executable", agent, bin, full)
		}
	} else {
		note("%s: form: the full binary %s: each call starts the whole engine; the thin client rivumi-hook answers a warm call in about a third of the time: `rivumi hook install %s` installs it when rivumi-hook sits beside rivumi", agent, bin, agent)
	}
	// In-process, with the default configuration.
	var h hookFlags
	h.register(pflag.NewFlagSet("defaults", pflag.ContinueOnError)) // sets the defaults
	h.auditFile = "off"
	cfg, closeAudit, err := h.config(agent)
	if err != nil {
		fail("%s: %v", agent, err)
		return
	}
	var out, errb bytes.Buffer
	code := hook.Run(ctx, cfg, bytes.NewReader(hook.SamplePayload(agent, floor, cwd)), &out, &errb)
	closeAudit()
	if blocked, why := hook.Blocks(agent, out.Bytes(), errb.Bytes(), code); blocked {
		ok("%s: `%s` is denied in-process: %s", agent, floor, firstLine(why))
	} else {
		fail("%s: `%s` is not denied in-process: %s", agent, floor, why)
	}
	// End to end: the entry's own command line, as the agent runs it.
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, "/bin/sh", "-c", e.Command)
	cmd.Dir = cwd
	// The probe starts no server of its own (a later `rivumi serve
	// --socket` would find the socket taken); one already running answers.
	// Its audit entry is marked as doctor's (hook.ProbeSource), not the
	// agent's.
	cmd.Env = append(os.Environ(), noAutostartEnv+"=1", doctorProbeEnv+"=1")
	cmd.Stdin = bytes.NewReader(hook.SamplePayload(agent, floor, cwd))
	var cout, cerr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &cout, &cerr
	err = cmd.Run()
	code = 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
		// Killed by a signal: -1, or 128+N through the shell (rivumi
		// itself exits 0, 1 or 2).
		if code < 0 || code > 128 {
			fail("%s: the entry died (%v%s): a hook that dies by a signal fails open: the agent runs the tool (Gemini CLI too, measured)", agent, ee, map[bool]string{true: ", " + firstLine(cerr.String()), false: ""}[cerr.Len() > 0])
			return
		}
	} else if err != nil {
		fail("%s: running the entry: %v", agent, err)
		return
	}
	blocked, why := hook.Blocks(agent, cout.Bytes(), cerr.Bytes(), code)
	switch {
	case entryShadows(e.Command, agent) && !blocked && code == 0 && cout.Len() == 0:
		// --shadow, the rollout's first step: graded and logged, no answer.
		note("%s: shadow mode (--shadow): the entry grades and logs every call but answers nothing, so `%s` would run; its audit entry says what rivumi would have done (rivumi audit report); remove --shadow to enforce", agent, floor)
	case blocked:
		ok("%s: `%s` is denied end to end: %s", agent, floor, firstLine(why))
	default:
		fail("%s: `%s` is not denied by the entry: %s (stderr: %s)", agent, floor, why, firstLine(cerr.String()))
	}
	doctorLatency(ctx, agent, e, cwd, note)
}

// doctorProbeEnv, set to 1 in the environment of the calls doctor makes
// through an entry, marks their audit entries as doctor's
// (hook.Config.Probe).
const doctorProbeEnv = "RIVUMI_DOCTOR_PROBE"

// entryShadows reports an installed entry whose hook flags include
// --shadow (true).
func entryShadows(command string, agent hook.Agent) bool {
	args, err := hook.CommandArgs(command, agent)
	if err != nil {
		return false
	}
	fs := newFlags("shadow", Stdio{Err: io.Discard})
	var h hookFlags
	h.register(fs.FlagSet)
	if parseArgs(fs, args) != nil {
		return false
	}
	return h.shadow
}

// latencyRuns is how many timed calls doctor makes through an entry
// (after one untimed call that warms the page cache).
const latencyRuns = 5

// doctorLatency times the entry's own command line, as the agent runs it
// (through /bin/sh, starting no server), on a harmless call (`ls` in cwd)
// and reports the median, labelled honestly: warm when a server answered
// on the socket the entry uses (before and after the calls), cold when
// each call graded in-process, remote when the entry asks a remote server.
func doctorLatency(ctx context.Context, agent hook.Agent, e hook.Installed, cwd string, note func(string, ...any)) {
	route := entryRoute(e.Command, agent)
	before := route.answers()
	var times []time.Duration
	for i := 0; i <= latencyRuns; i++ {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		cmd := exec.CommandContext(cctx, "/bin/sh", "-c", e.Command)
		cmd.Dir = cwd
		cmd.Env = append(os.Environ(), noAutostartEnv+"=1", doctorProbeEnv+"=1")
		cmd.Stdin = bytes.NewReader(hook.SamplePayload(agent, "ls", cwd))
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		cancel()
		var ee *exec.ExitError
		if err != nil && (!errors.As(err, &ee) || ee.ExitCode() < 0 || ee.ExitCode() > 128) {
			note("%s: latency: not measured: running the entry on `ls`: %v", agent, err)
			return
		}
		if i > 0 {
			times = append(times, d)
		}
	}
	after := route.answers()
	slices.Sort(times)
	fig := fmt.Sprintf("median %s (min %s, max %s) over %d calls of `ls` through the entry", ms(times[len(times)/2]), ms(times[0]), ms(times[len(times)-1]), len(times))
	switch {
	case route.unknown != "":
		note("%s: latency: %s (warm or cold unknown: %s)", agent, fig, route.unknown)
	case route.remote != "":
		note("%s: latency: remote, %s (each call asks %s)", agent, fig, route.remote)
	case route.socket == "":
		note("%s: latency: cold, %s (%s: every call grades in-process)", agent, fig, route.why)
	case before && after:
		note("%s: latency: warm, %s (the server on %s answered)", agent, fig, route.socket)
	case before || after:
		note("%s: latency: mixed, %s (the server on %s came or went during the calls)", agent, fig, route.socket)
	default:
		note("%s: latency: cold, %s (no server answers on %s: each call graded in-process; the agent's next call starts one, and the calls after it are warm)", agent, fig, route.socket)
	}
}

// ms formats d in milliseconds with one decimal.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// hookRoute is where an installed entry's calls are graded.
type hookRoute struct {
	socket string // the per-user server's socket the calls try first ("" for none)
	remote string // the remote server every call asks
	why    string // why no socket is used
	// unknown says why the route cannot be read from the command line.
	unknown string
}

// answers reports whether a trusted server answers on the route's socket.
func (r hookRoute) answers() bool {
	if r.socket == "" || usersock.Trusted(r.socket) != nil {
		return false
	}
	c, err := net.DialTimeout("unix", r.socket, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// entryRoute reads from an installed command line where its calls are
// graded, as the hook (and the thin client) decide it from their flags.
func entryRoute(command string, agent hook.Agent) hookRoute {
	args, err := hook.CommandArgs(command, agent)
	if err != nil {
		return hookRoute{unknown: err.Error()}
	}
	var h hookFlags
	fs := newFlags("hook", Stdio{Err: io.Discard})
	h.register(fs.FlagSet)
	if err := parseArgs(fs, args); err != nil {
		return hookRoute{unknown: "its hook flags do not parse"}
	}
	switch {
	case h.remote.url != "":
		return hookRoute{remote: h.remote.url}
	case h.socket == "none":
		return hookRoute{why: "the entry says --socket none"}
	case h.socket == "" && len(h.pf.policyDirs) > 0:
		return hookRoute{why: "the entry names --policy dirs and no --socket"}
	case h.socket == "":
		return hookRoute{socket: usersock.Default(os.Getenv)}
	}
	return hookRoute{socket: h.socket}
}

// pluginFallback returns the fallback program of a plugin entry when it
// is an executable file ("" otherwise).
func pluginFallback(e hook.Installed) string {
	fb, _ := e.Hook["fallback"].([]string)
	if len(fb) == 0 || !filepath.IsAbs(fb[0]) {
		return ""
	}
	if fi, err := os.Stat(fb[0]); err != nil || !fi.Mode().IsRegular() || (runtime.GOOS != "windows" && fi.Mode()&0o111 == 0) {
		return ""
	}
	return fb[0]
}

// doctorCodexTrust checks that Codex trusts the entry as it is now (and,
// for a project's hooks.json, the project).
func doctorCodexTrust(e hook.Installed, home, root string, ok, fail func(string, ...any)) {
	cfg := hook.CodexConfigFile(home, os.Getenv)
	t, err := hook.CodexTrustOf(cfg, e)
	switch {
	case err != nil:
		fail("codex: %v", err)
	case !t.Trusted():
		fail("codex: %s (key %q in %s); run `rivumi hook install codex` again (it records the trust of exactly this entry) or trust it under /hooks in codex", t.Problem(), t.Key, cfg)
	default:
		ok("codex: the hook is trusted in %s (%s)", cfg, t.Hash)
	}
	if userHooks := hook.SettingsFile(hook.Codex, hook.ScopeUser, root, home, os.Getenv); e.File != userHooks {
		if trusted, err := hook.CodexProjectTrusted(cfg, root); err == nil && !trusted {
			fail("codex: %s is not a trusted project in %s: Codex ignores its .codex/hooks.json; trust the project when codex asks", root, cfg)
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
