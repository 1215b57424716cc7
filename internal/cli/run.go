package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/harness"
)

// newGrader builds the grader for `run` and `grant add` ([engineGrader];
// tests substitute a fake).
var newGrader = engineGrader

// isTerminal reports whether r is a terminal; a variable so tests can
// pretend.
var isTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

func init() {
	register("run", "grade, approve, run and audit one command given as argv (no shell)", runRun)
	describe("run", "[flags] -- PROGRAM [ARG...]", runHelp)
}

const runHelp = `Grades the argv with the policy, asks for approval when the verdict is ask
(on the terminal; with --headless or without a terminal, ask is deny), runs
it without a shell in a clean environment, and appends the grading and the
run to the audit log. The exit code is the command's own (128+N when signal
N ended it), or 124 (timed out), 125 (denied), 126 (sandbox unavailable).

When the command is over (at exit or timeout), processes of the run that
left its process group (setsid) are found by the run's RIVUMI_RUN_ID in
their environment, killed, and reported on stderr and in the audit entry
("escaped"). Under --sandbox bwrap (auto's first choice) none can outlive
the command: its PID namespace dies with it; under landlock rivumi's helper,
their subreaper, kills them. Without a sandbox, a process that also drops
RIVUMI_RUN_ID from its environment is not found.

With --gate deny (or ask), every program the command starts is graded at
its exec with its real argv (Linux, seccomp user notification; the landlock
sandbox): an approved "make test" whose recipe runs "rm -rf ~" is stopped
at that exec. The exec tree is in the audit entry ("execs").

The command's caches (XDG_CACHE_HOME, GOCACHE, pip's and npm's) are kept
per project (--cache project, the default), so a second "go test" builds
warm; the project's own sandboxed commands are the only ones that write or
read them. HOME and TMPDIR are fresh for every run. Go's module cache lies
under your home, which the sandbox hides: share it read-only with
  GOMODCACHE=$(go env GOMODCACHE) rivumi run --env GOMODCACHE \
    --read-only "$(go env GOMODCACHE)" -- go test ./...`

func runRun(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("run", stdio)
	timeout := fs.Duration("timeout", 0, "stop the command after `D` (0: the harness default; above the harness maximum is denied)")
	sandbox := fs.String("sandbox", string(harness.SandboxAuto), "OS sandbox: auto, bwrap, landlock (Linux), seatbelt (macOS) or none")
	auditFile := fs.String("audit", "", "append audit entries to `FILE` (default $XDG_STATE_HOME/rivumi/audit.jsonl)")
	headless := fs.Bool("headless", false, "never prompt: an ask is denied")
	asksApproved := fs.Bool("asks-approved", false, "the command's asks were already approved by the caller (an agent whose user confirmed it; 'rivumi hook --gate' writes this): an ask runs without a prompt, a deny is still refused")
	grantsFile := fs.String("grants", "", "project grants `FILE` (default $XDG_CONFIG_HOME/rivumi/grants/<sha256 of the project root>.json)")
	allowNet := fs.Bool("allow-network", false, "let a sandboxed command use the network")
	gateFlag := fs.String("gate", "off", "grade every program the command starts at its exec (Linux, with landlock): off, floor (refuse what the critical floor denies), deny (refuse what the policy denies) or ask (refuse all but what it allows)")
	dir := fs.String("C", "", "run in `DIR` instead of the current directory")
	cache := fs.String("cache", "project", "where the command's caches (XDG_CACHE_HOME, GOCACHE, pip's, npm's) live: project (kept per project in $XDG_CACHE_HOME/rivumi/projects/<sha256 of the project root>, so the next run builds warm), fresh (a new empty one, removed after the run) or an absolute `DIR` of your own")
	var passEnv, readOnly stringList
	fs.Var(&passEnv, "env", "also pass the variable `NAME` from this environment (repeatable; names that hold secrets or code, *TOKEN*, LD_*, GIT_*, …, are refused)")
	fs.Var(&readOnly, "read-only", "let a sandboxed command read `DIR` although the sandbox hides it (under a home or /tmp: a module cache, say); repeatable")
	var pf policyFlags
	fs.Var(&pf.policyDirs, "policy", "directory of user Rego packs (package rivumi.user…); repeatable")
	pf.registerTimeout(fs.FlagSet)
	fs.SetInterspersed(false) // the operands are an argv: its flags are its own
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return exitf(ExitError, "run: no command given")
	}
	mode, err := harness.ParseSandbox(*sandbox)
	if err != nil {
		return exitf(ExitError, "run: %v", err)
	}
	gateMode, err := harness.ParseGateMode(*gateFlag)
	if err != nil {
		return exitf(ExitError, "run: %v", err)
	}
	cwd, err := workDir(*dir)
	if err != nil {
		return exitf(ExitError, "run: %v", err)
	}
	envAllow := slices.Clone(harness.DefaultEnvAllow)
	for _, name := range passEnv {
		if name == "" || strings.ContainsAny(name, "=*") {
			return exitf(ExitError, "run: --env %q: want a variable name", name)
		}
		if harness.SecretEnvName(name) {
			return exitf(ExitError, "run: --env %s: a variable whose name says it holds a secret or code never passes", name)
		}
		envAllow = append(envAllow, name)
	}
	var roDirs []string
	for _, d := range readOnly {
		a, err := filepath.Abs(d)
		if err != nil {
			return exitf(ExitError, "run: --read-only %s: %v", d, err)
		}
		roDirs = append(roDirs, a)
	}
	root, err := grant.ProjectRoot(cwd)
	if err != nil {
		return exitf(ExitError, "run: %v", err)
	}
	var cacheDir string
	switch *cache {
	case "project":
		if cacheDir, err = harness.DefaultCacheDir(root); err != nil {
			return exitf(ExitError, "run: --cache: %v", err)
		}
	case "fresh":
	default:
		if !filepath.IsAbs(*cache) {
			return exitf(ExitError, "run: --cache %q: want project, fresh or an absolute directory", *cache)
		}
		cacheDir = filepath.Clean(*cache)
	}
	store, err := openGrants(*grantsFile, root)
	if err != nil {
		return exitf(ExitError, "run: %v", err)
	}
	logPath := *auditFile
	if logPath == "" {
		if logPath, err = defaultAuditPath(); err != nil {
			return exitf(ExitError, "run: %v", err)
		}
	}
	log, err := audit.Open(logPath)
	if err != nil {
		return exitf(ExitError, "run: %v", err)
	}
	defer log.Close()
	grader, err := newGrader(ctx, &pf)
	if err != nil {
		return exitf(ExitPolicyError, "run: %v", err)
	}
	var approver harness.Approver = harness.Headless{}
	switch {
	case *asksApproved:
		approver = harness.Headless{Fallback: harness.AnswerOnce}
	case !*headless && isTerminal(stdio.In):
		approver = harness.NewInteractive(stdio.In, stdio.Err)
	}
	h, err := harness.New(harness.Config{
		Grader: grader, Approver: approver, Audit: log, AuditSource: "cli", Grants: store,
		Workspace: root, Sandbox: mode, AllowNetwork: *allowNet, Gate: gateMode,
		EnvAllow: envAllow, ReadOnly: roDirs, CacheDir: cacheDir,
	})
	var unavailable *harness.SandboxUnavailableError
	if errors.As(err, &unavailable) {
		return exitf(ExitNoSandbox, "run: %v; not running without it (pass --sandbox none to run unsandboxed)", err)
	}
	if err != nil {
		return exitf(ExitError, "run: %v", err)
	}
	res, err := h.Run(ctx, harness.Request{Argv: argv, Dir: cwd, Timeout: *timeout, Stdout: stdio.Out, Stderr: stdio.Err})
	for _, g := range res.GrantsAdded {
		fmt.Fprintf(stdio.Err, "rivumi: granted %s for %s in %s\n", quoteWords(g.Prefix), strings.Join(g.Rules, ", "), store.Path())
	}
	if res.GrantError != nil {
		fmt.Fprintf(stdio.Err, "rivumi: no grant recorded: %v\n", res.GrantError)
	}
	if res.SandboxNote != "" && res.Ran {
		fmt.Fprintf(stdio.Err, "rivumi: %s\n", res.SandboxNote)
	}
	if msg := harness.DescribeEscaped(res.Escaped); msg != "" {
		fmt.Fprintf(stdio.Err, "rivumi: %s (--sandbox bwrap keeps them in the run's PID namespace)\n", msg)
	}
	switch {
	case errors.As(err, &unavailable):
		return exitf(ExitNoSandbox, "run: %v", err)
	case err != nil && !res.Ran:
		return exitf(ExitError, "run: %v", err)
	case err != nil:
		fmt.Fprintf(stdio.Err, "rivumi: run: %v\n", err)
	}
	if !res.Ran {
		return exitf(ExitDenied, "denied: %s", res.Refusal)
	}
	if res.ExitCode != 0 && !res.TimedOut && !*allowNet && res.Sandbox != harness.SandboxNone && res.Sandbox != "" {
		// A DNS error from npm or curl says nothing of the sandbox.
		fmt.Fprintf(stdio.Err, "rivumi: the command failed; note that the %s sandbox gave it no network (--allow-network lets it reach one)\n", res.Sandbox)
	}
	return runExit(res)
}

// runExit maps a finished run to the CLI's exit.
func runExit(res harness.Result) error {
	switch {
	case res.TimedOut:
		how := "SIGTERM"
		if res.KilledAfterGrace {
			how = "SIGKILL after the grace period"
		}
		return exitf(ExitTimeout, "timed out after %v (stopped with %s)", res.Duration.Round(time.Millisecond), how)
	case res.Signal != 0:
		return exitCode(128 + int(res.Signal))
	case res.ExitCode == 0:
		return nil
	case res.ExitCode > 0:
		return exitCode(res.ExitCode)
	}
	return exitCode(128 + int(syscall.SIGKILL))
}

func workDir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	return filepath.Abs(dir)
}

// openGrants loads the grant store at file, or the project's default one.
func openGrants(file, root string) (*grant.Store, error) {
	if file == "" {
		var err error
		if file, err = grant.DefaultPath(root); err != nil {
			return nil, err
		}
	}
	return grant.Load(file)
}

// defaultAuditPath is $XDG_STATE_HOME/rivumi/audit.jsonl, with
// ~/.local/state when XDG_STATE_HOME is unset or relative.
func defaultAuditPath() (string, error) { return auditPathIn(os.Getenv, os.UserHomeDir) }

// auditPathIn is [defaultAuditPath] in the environment getenv names.
func auditPathIn(getenv func(string) string, homeDir func() (string, error)) (string, error) {
	base := getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := homeDir()
		if err != nil {
			return "", fmt.Errorf("no state directory for the audit log (pass --audit): %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "rivumi", "audit.jsonl"), nil
}

func quoteWords(ws []string) string { return "`" + strings.Join(ws, " ") + "`" }

// grantableRules returns the rule ids of v's grantable asks.
func grantableRules(v engine.Verdict) []string {
	var rules []string
	for _, g := range grant.For(v) {
		rules = append(rules, g.Rules...)
	}
	return rules
}
