package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/execgate"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/verdict"
)

// Defaults for the zero values of [Config].
const (
	DefaultTimeout         = 2 * time.Minute
	DefaultMaxTimeout      = 10 * time.Minute
	DefaultApprovalTimeout = 5 * time.Minute
	DefaultKillGrace       = 2 * time.Second
)

// LayerHarness marks the reasons the harness itself adds to a refusal
// (timeouts above the maximum, failed approvals, changed programs, grading
// errors). Their rule ids start with "harness.".
const LayerHarness verdict.Layer = "harness"

// Config configures a [Harness]. Only Grader is required.
type Config struct {
	// Grader grades every argv before it runs. Required. It gets an argv
	// request in the run's directory and workspace with the grants in
	// force and FollowSymlinks set (the argv runs here); it must answer
	// Allow, Ask or Deny and honour the grants: an error or anything else
	// denies the command.
	Grader verdict.Grader
	// Approver decides asks. Nil means [Headless]{} : every ask is denied.
	Approver Approver
	// Audit receives one entry per grading and one per run. Nil: no audit.
	// If writing the grading entry fails, the command does not run.
	Audit audit.Sink
	// AuditSource labels the entries (default "harness").
	AuditSource string
	// Grants persists "always" answers and supplies the project's grants
	// to every grading. Nil: grants live only as long as the Harness.
	Grants *grant.Store

	// Workspace is the project root: what the command may write under a
	// sandbox, and the grading request's Workspace. Default: each request's Dir.
	Workspace string

	// DefaultTimeout applies to requests with a zero Timeout (default 2m,
	// or MaxTimeout if lower).
	DefaultTimeout time.Duration
	// MaxTimeout is the longest timeout a request may ask for (default
	// 10m). A request above it is denied, never clamped.
	MaxTimeout time.Duration
	// ApprovalTimeout bounds each ask (default 5m); no answer is a deny.
	ApprovalTimeout time.Duration
	// KillGrace is the time between SIGTERM and SIGKILL (default 2s). It
	// also bounds how long output pipes held open by escaped processes
	// are waited for.
	KillGrace time.Duration

	// OutputHead and OutputTail bound the bytes kept per stream (default
	// 64 KiB each; negative keeps none).
	OutputHead, OutputTail int

	// BaseEnv is the environment the child's is filtered from (default
	// os.Environ()).
	BaseEnv []string
	// EnvAllow replaces [DefaultEnvAllow]: names of variables passed to the
	// child ("LC_*" matches a prefix). Names for which [SecretEnvName] is
	// true never pass.
	EnvAllow []string
	// KeepHome passes the caller's HOME instead of a fresh one in the run
	// directory.
	KeepHome bool
	// ExtraEnv are NAME=VALUE pairs set in the child's environment as they
	// are, even names [SecretEnvName] refuses for their words (API, TOKEN,
	// …): only what a caller names explicitly (an external agent's model
	// credentials). Variables that carry code (LD_*, BASH_ENV, …) are
	// refused by New; the run's own directories and git's hardening win.
	ExtraEnv []string

	// RunRoot is where per-run directories are created (default
	// os.TempDir()). Each run gets a fresh 0700 directory holding its
	// TMPDIR, HOME and caches, removed afterwards unless KeepRunDir.
	RunRoot    string
	KeepRunDir bool

	// Sandbox selects the OS sandbox (zero: none). See [Sandbox].
	Sandbox Sandbox
	// AllowNetwork lets sandboxed commands use the network.
	AllowNetwork bool
	// Gate turns on the exec gate (Linux, the Landlock backend): every
	// program the command starts is graded at its execve with its real
	// argv, and refused as the mode says. See [GateMode].
	Gate GateMode
	// GateGrader grades the gate's execs (default: Grader). A caller whose
	// Grader only clears commands it already approved (the workspace
	// tools) gives the engine here.
	GateGrader verdict.Grader
	// ReadOnly are directories a sandboxed command may read but never
	// write, even where they lie in a hidden directory (the workspace's
	// git directory, kept outside the workspace).
	ReadOnly []string
	// Writable are more directories a sandboxed command may read and
	// write besides the workspace and its run directory, even where they
	// lie in a hidden directory (an external agent's throwaway home in
	// the workspace's run directory). Absolute paths.
	Writable []string
	// CacheDir, when set, holds the command's caches instead of the run
	// directory: XDG_CACHE_HOME, GOCACHE, PIP_CACHE_DIR and
	// npm_config_cache point into it, and a sandboxed command may write
	// it. It outlives the run, so a later run builds warm. A command
	// writes it, so it must belong to one trust domain (a caller gives one
	// per project, never a cache the host's own tools read). A clean
	// absolute path; created 0700 when missing; a run fails when it is a
	// symbolic link, not a directory, or not owned by this user.
	CacheDir string
}

// Request is one command to run.
type Request struct {
	// Argv is the program and its arguments. It is never passed to a
	// shell. argv[0] without a slash is looked up in the child's PATH;
	// with a slash it is relative to Dir.
	Argv []string
	// Dir is where the command runs (default: Config.Workspace, else the
	// current directory).
	Dir string
	// Timeout of the command once started; zero means Config.DefaultTimeout.
	// A Timeout above Config.MaxTimeout is denied.
	Timeout time.Duration
	// Stdin is the child's standard input (default /dev/null).
	Stdin io.Reader
	// Stdout and Stderr, if set, receive the child's output as it comes,
	// in full, besides the bounded copy in the Result. A slow writer slows
	// the child.
	Stdout, Stderr io.Writer
	// ReadOnly are more paths (files or directories, clean and absolute)
	// the command may read but not write, even inside the workspace: each
	// is bind-mounted read-only over itself, on top of the writable
	// directories (so it can be neither written, nor replaced, renamed or
	// removed). Only the bwrap backend can make a path inside a writable
	// directory read-only: under any other a request with ReadOnly is an
	// error, never run without it. A path missing when the command starts
	// is skipped.
	ReadOnly []string
}

// Result describes one [Harness.Run]. When Run also returns an error,
// Result still holds everything known up to that point.
type Result struct {
	RunID string
	Argv  []string
	Dir   string
	// Path is the resolved program (absolute; symlinks not resolved).
	Path string

	// Verdict is the grader's verdict (zero when the harness refused
	// before grading).
	Verdict verdict.Verdict
	// Decision is the outcome: Allow when the command was let through (by
	// the policy, a grant or an approval), Deny otherwise.
	Decision verdict.Decision
	// Refusal explains, for humans, why the command did not run; Reasons
	// carries the harness's own reasons (layer "harness") besides the
	// verdict's.
	Refusal string
	Reasons []verdict.Reason

	// Asked reports whether the approver was consulted; Approver names it
	// and Answer is its answer as recorded ("once", "always", "deny",
	// "timeout", "cancelled", "error: …").
	Asked    bool
	Approver string
	Answer   string
	// GrantsUsed are the grants that cancelled an ask of the argv, as the
	// grader names them ([verdict.Verdict.Grants]);
	// GrantsAdded the grants an "always" answer recorded; GrantError why
	// an "always" answer recorded nothing (the command still ran once).
	GrantsUsed  []verdict.Grant
	GrantsAdded []verdict.Grant
	GrantError  error

	// Ran reports whether the process started.
	Ran bool
	// Sandbox is the backend the command ran under; SandboxNote explains
	// an automatic choice.
	Sandbox     Sandbox
	SandboxNote string
	// Execs are the execs the gate decided, in order (with [Config.Gate]).
	Execs []GatedExec
	// SandboxDetail names what enforced the backend: bwrap's path,
	// version and SHA-256 digest, or the Landlock ABI, and the contract
	// ([ContractVersion]) its probe verified.
	SandboxDetail string
	// ExitCode is the process's exit status, or -1 when it did not exit
	// normally (a signal) or did not run.
	ExitCode int
	// Signal is the signal that ended the process, if one did.
	Signal syscall.Signal
	// TimedOut and Cancelled report why the harness stopped the process;
	// KilledAfterGrace that SIGTERM was not enough and SIGKILL followed.
	TimedOut, Cancelled, KilledAfterGrace bool
	// Stragglers reports that processes were left in the command's group
	// after it exited (they were terminated the same way).
	Stragglers bool
	// Escaped lists the processes of the run that were still alive outside
	// its group once it was over (they called setsid or setpgid), found by
	// the run's marker ([RunMarkerEnv]) in their environment, and stopped
	// like the group (SIGTERM, the grace period, SIGKILL). Under bwrap the
	// PID namespace dies with the command, so none are left. Not found: a
	// process that replaced its environment, and any on systems without
	// /proc (only Linux is scanned).
	Escaped []EscapedProcess
	// OutputIncomplete reports that a process outside the group kept the
	// output pipes open; they were closed after the grace period.
	OutputIncomplete bool
	Duration         time.Duration
	Stdout, Stderr   Output
	// RunDir is the per-run directory (already removed unless KeepRunDir).
	RunDir string

	graded bool
}

// Harness grades, approves, runs and audits commands. It is safe for
// concurrent use.
type Harness struct {
	cfg     Config
	sandbox sandboxPlan
	pathEnv string // the child's PATH
	// noSeccomp: tests only, see landlockSpec.NoSeccomp.
	noSeccomp bool

	mu      sync.Mutex
	session []verdict.Grant // "always" answers when no grant.Store is configured
}

// New returns a Harness for cfg. It fails if cfg.Grader is nil, and with a
// [*SandboxUnavailableError] if cfg.Sandbox names a backend that is not
// available here (never falling back to no sandbox).
func New(cfg Config) (*Harness, error) {
	if cfg.Grader == nil {
		return nil, errors.New("harness: no grader")
	}
	if cfg.Approver == nil {
		cfg.Approver = Headless{}
	}
	if cfg.AuditSource == "" {
		cfg.AuditSource = "harness"
	}
	setDefault(&cfg.MaxTimeout, DefaultMaxTimeout)
	setDefault(&cfg.DefaultTimeout, min(DefaultTimeout, cfg.MaxTimeout))
	setDefault(&cfg.ApprovalTimeout, DefaultApprovalTimeout)
	setDefault(&cfg.KillGrace, DefaultKillGrace)
	if cfg.DefaultTimeout > cfg.MaxTimeout {
		return nil, fmt.Errorf("harness: default timeout %v above the maximum %v", cfg.DefaultTimeout, cfg.MaxTimeout)
	}
	if cfg.OutputHead == 0 {
		cfg.OutputHead = DefaultOutputHead
	}
	if cfg.OutputTail == 0 {
		cfg.OutputTail = DefaultOutputTail
	}
	cfg.OutputHead, cfg.OutputTail = max(cfg.OutputHead, 0), max(cfg.OutputTail, 0)
	if cfg.BaseEnv == nil {
		cfg.BaseEnv = os.Environ()
	}
	if cfg.EnvAllow == nil {
		cfg.EnvAllow = DefaultEnvAllow
	}
	if cfg.RunRoot == "" {
		cfg.RunRoot = os.TempDir()
	}
	if cfg.Workspace != "" {
		ws, err := filepath.Abs(cfg.Workspace)
		if err != nil {
			return nil, fmt.Errorf("harness: workspace: %w", err)
		}
		cfg.Workspace = ws
	}
	for _, kv := range cfg.ExtraEnv {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || strings.ContainsAny(name, "\x00") || matchAny(neverPass, envKey(name)) {
			return nil, fmt.Errorf("harness: extra environment %q: want NAME=VALUE, and never a variable that carries code", name)
		}
	}
	if cfg.CacheDir != "" {
		cfg.Writable = append(slices.Clone(cfg.Writable), cfg.CacheDir)
	}
	for _, d := range cfg.Writable {
		if !filepath.IsAbs(d) || filepath.Clean(d) != d || d == string(filepath.Separator) {
			return nil, fmt.Errorf("harness: writable directory %q: want a clean absolute path other than the root", d)
		}
	}
	// The child's PATH: the caller's, cleaned, if allowed; else the default.
	pathEnv := defaultPATH
	if matchAny(cfg.EnvAllow, "PATH") {
		pathEnv = cleanPATH(envValue(cfg.BaseEnv, "PATH"))
	}
	if _, err := ParseGateMode(string(cfg.Gate)); err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	mode := cfg.Sandbox
	if cfg.Gate != GateOff {
		// The gate's filter is installed by the Landlock helper.
		if err := execgate.Available(); err != nil {
			return nil, &SandboxUnavailableError{Backend: "gate", Reason: err.Error()}
		}
		switch mode {
		case SandboxAuto:
			mode = SandboxLandlock
		case SandboxLandlock:
		default:
			return nil, &SandboxUnavailableError{Backend: "gate", Reason: fmt.Sprintf("the exec gate runs with the landlock sandbox, not %q", mode)}
		}
	}
	sb, err := resolveSandbox(mode, cfg.AllowNetwork)
	if err != nil {
		return nil, err
	}
	return &Harness{cfg: cfg, sandbox: sb, pathEnv: pathEnv}, nil
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// Sandbox returns the backend commands run under and, for auto, a note on
// the choice.
func (h *Harness) Sandbox() (Sandbox, string) { return h.sandbox.backend, h.sandbox.note }

// Grants returns the grants the next grading receives: the store's (if
// any) and the session's.
func (h *Harness) Grants() []verdict.Grant {
	h.mu.Lock()
	out := slices.Clone(h.session)
	h.mu.Unlock()
	if h.cfg.Grants != nil {
		out = append(h.cfg.Grants.List(), out...)
	}
	return out
}

// Run grades req.Argv, asks the approver when the verdict is ask, runs the
// command if it is let through, and audits the grading and the run.
//
// A command that is not let through is not an error: Run returns a Result
// with Decision Deny, Ran false and a Refusal. Errors are reserved for
// requests that cannot be handled (empty argv, a program that is not
// found, an unusable directory), audit failures (a failed grading entry
// prevents the run), a sandbox that fails ([*SandboxUnavailableError]) and
// start failures. The command never runs through a shell, with an
// environment built from an allowlist, in a new process group; see the
// package documentation for the exact guarantees.
func (h *Harness) Run(ctx context.Context, req Request) (Result, error) {
	res := Result{RunID: newRunID(), Argv: slices.Clone(req.Argv), ExitCode: -1, Decision: verdict.Deny,
		Sandbox: h.sandbox.backend, SandboxNote: h.sandbox.note, SandboxDetail: h.sandbox.detail}
	if len(req.Argv) == 0 || req.Argv[0] == "" {
		return res, errors.New("harness: empty argv")
	}
	for _, a := range req.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return res, errors.New("harness: argv contains a NUL byte")
		}
	}
	if len(req.ReadOnly) > 0 && h.sandbox.backend != SandboxBwrap {
		return res, fmt.Errorf("harness: read-only paths inside the workspace need the bwrap sandbox, not %q", h.sandbox.backend)
	}
	for _, p := range req.ReadOnly {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p || p == string(filepath.Separator) {
			return res, fmt.Errorf("harness: read-only path %q: want a clean absolute path other than the root", p)
		}
	}
	dir, err := h.dir(req.Dir)
	if err != nil {
		return res, err
	}
	res.Dir = dir
	workspace := h.cfg.Workspace
	if workspace == "" {
		workspace = dir
	}

	timeout := req.Timeout
	switch {
	case timeout < 0:
		return res, fmt.Errorf("harness: negative timeout %v", timeout)
	case timeout == 0:
		timeout = h.cfg.DefaultTimeout
	case timeout > h.cfg.MaxTimeout:
		h.refuse(&res, "harness.timeout-above-max",
			fmt.Sprintf("timeout %v is above the maximum %v", timeout, h.cfg.MaxTimeout),
			"the harness owns the timeout: ask for at most the maximum")
		return res, h.auditGrade(ctx, &res, workspace)
	}

	// Resolve argv[0] against the child's PATH and remember the file
	// before anyone looks at the command.
	pathEnv := h.pathEnv
	prog, err := resolveProgram(req.Argv[0], dir, pathEnv)
	if err != nil {
		res.Refusal = err.Error()
		return res, errors.Join(err, h.auditGrade(ctx, &res, workspace))
	}
	res.Path = prog.path

	// Grants are matched by the engine, which names the ones it applied;
	// bare-name grants are checked against what PATH finds now.
	grants := execGrants(h.Grants(), workspace, dir, pathEnv)
	v, gerr := grade(ctx, h.cfg.Grader, slices.Clone(req.Argv), dir, workspace, grants)
	res.Verdict, res.graded = v, true
	res.GrantsUsed = slices.Clone(v.Grants)
	switch {
	case gerr != nil:
		h.refuse(&res, "harness.grade-error", "grading failed: "+gerr.Error(), "errors fail closed")
	case ctx.Err() != nil:
		h.refuse(&res, "harness.cancelled", "cancelled while grading", "cancellation denies")
	case v.Decision == verdict.Allow:
		res.Decision = verdict.Allow
	case v.Decision == verdict.Ask:
		h.approve(ctx, &res, req, dir)
	case v.Decision == verdict.Deny:
		res.Refusal = "denied by policy: " + describeReasons(v.Reasons)
	default:
		h.refuse(&res, "harness.unknown-decision", fmt.Sprintf("unknown decision %v", v.Decision), "errors fail closed")
	}
	if err := h.auditGrade(ctx, &res, workspace); err != nil {
		if res.Decision == verdict.Allow {
			res.Decision = verdict.Deny
			res.Refusal = "audit failed: " + err.Error()
		}
		return res, err
	}
	if res.Decision != verdict.Allow {
		return res, nil
	}

	err = h.execute(ctx, &res, req, prog, pathEnv, workspace, timeout)
	if aerr := h.auditRun(ctx, &res, workspace, err); aerr != nil {
		err = errors.Join(err, aerr)
	}
	return res, err
}

func (h *Harness) dir(d string) (string, error) {
	if d == "" {
		d = h.cfg.Workspace
	}
	if d == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("harness: %w", err)
		}
		d = wd
	}
	d, err := filepath.Abs(d)
	if err != nil {
		return "", fmt.Errorf("harness: dir: %w", err)
	}
	fi, err := os.Stat(d)
	if err != nil {
		return "", fmt.Errorf("harness: dir: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("harness: dir %s is not a directory", d)
	}
	return d, nil
}

// refuse marks res as denied by the harness itself.
func (h *Harness) refuse(res *Result, rule, text, why string) {
	res.Decision = verdict.Deny
	res.Refusal = text
	res.Reasons = append(res.Reasons, verdict.Reason{Rule: rule, Layer: LayerHarness, Decision: verdict.Deny,
		Segment: -1, Title: text, Justification: why})
}

// approve consults the approver for an ask and records the answer.
func (h *Harness) approve(ctx context.Context, res *Result, req Request, dir string) {
	res.Asked = true
	res.Approver = approverName(h.cfg.Approver)
	actx, cancel := context.WithTimeout(ctx, h.cfg.ApprovalTimeout)
	defer cancel()
	deadline, _ := actx.Deadline()
	offered := grant.For(res.Verdict)
	ans, err := h.cfg.Approver.Approve(actx, ApprovalRequest{
		Argv: slices.Clone(req.Argv), Dir: dir, Verdict: res.Verdict, Grants: offered, Deadline: deadline,
	})
	switch {
	case ctx.Err() != nil:
		res.Answer = "cancelled"
		h.refuse(res, "harness.approval-cancelled", "cancelled while waiting for approval", "cancellation denies")
	case actx.Err() != nil:
		res.Answer = "timeout"
		h.refuse(res, "harness.approval-timeout", fmt.Sprintf("no approval within %v", h.cfg.ApprovalTimeout), "an unanswered ask is a deny")
	case err != nil:
		res.Answer = "error: " + err.Error()
		h.refuse(res, "harness.approval-error", "approval failed: "+err.Error(), "errors fail closed")
	case ans == AnswerOnce:
		res.Answer = "once"
		res.Decision = verdict.Allow
	case ans == AnswerAlways:
		res.Answer = "always"
		res.Decision = verdict.Allow
		h.addGrants(res, offered)
	default:
		res.Answer = "deny"
		res.Refusal = "denied by " + res.Approver + " approver: " + describeReasons(res.Verdict.Reasons)
	}
}

// addGrants records an "always" answer. A refused grant does not undo the
// approval of this run.
func (h *Harness) addGrants(res *Result, offered []verdict.Grant) {
	if len(offered) == 0 {
		res.GrantError = errors.New("nothing in the verdict is grantable: approved once")
		return
	}
	var errs []error
	for _, g := range offered {
		if err := grant.Check(g); err != nil {
			errs = append(errs, err)
			continue
		}
		if h.cfg.Grants != nil {
			if err := h.cfg.Grants.Add(g); err != nil {
				errs = append(errs, err)
				continue
			}
		} else {
			h.mu.Lock()
			h.session = append(h.session, g)
			h.mu.Unlock()
		}
		res.GrantsAdded = append(res.GrantsAdded, g)
	}
	res.GrantError = errors.Join(errs...)
}

func describeReasons(rs []verdict.Reason) string {
	if len(rs) == 0 {
		return "no reason given"
	}
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		s := r.Rule
		if r.Justification != "" {
			s += " (" + r.Justification + ")"
		} else if r.Title != "" {
			s += " (" + r.Title + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// execute runs an allowed command: run directory, environment, sandbox
// wrapping, the identity check right before start, supervision.
func (h *Harness) execute(ctx context.Context, res *Result, req Request, prog program, pathEnv, workspace string, timeout time.Duration) error {
	root, err := os.MkdirTemp(h.cfg.RunRoot, "rivumi-run-")
	if err != nil {
		return fmt.Errorf("harness: run directory: %w", err)
	}
	res.RunDir = root
	if !h.cfg.KeepRunDir {
		defer removeAll(root)
	}
	rd := newRunDirs(root)
	for _, d := range rd.all() {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("harness: run directory: %w", err)
		}
	}
	if h.cfg.CacheDir != "" {
		if err := ensureCacheDir(h.cfg.CacheDir); err != nil {
			return err
		}
		rd.cache = h.cfg.CacheDir
	}
	env := buildEnv(h.cfg.BaseEnv, h.cfg.EnvAllow, h.cfg.KeepHome, rd, h.cfg.ExtraEnv...)
	env = setEnv(env, "PATH", pathEnv)
	marker := RunMarkerEnv + "=" + res.RunID
	env = setEnv(env, RunMarkerEnv, res.RunID)

	cmd := &exec.Cmd{Path: prog.path, Args: slices.Clone(req.Argv), Dir: res.Dir, Env: env, Stdin: req.Stdin}
	var status *os.File
	sup := supervision{
		timeout: timeout,
		grace:   h.cfg.KillGrace,
		stdout:  newCapture(h.cfg.OutputHead, h.cfg.OutputTail, req.Stdout),
		stderr:  newCapture(h.cfg.OutputHead, h.cfg.OutputTail, req.Stderr),
		done:    ctx.Done(),
		reapEscaped: func(since uint64) []EscapedProcess {
			var settle time.Duration
			if h.sandbox.backend == SandboxBwrap {
				// The command's PID namespace dies with it, a moment after.
				settle = h.cfg.KillGrace
			}
			return reapEscaped(marker, since, h.cfg.KillGrace, settle)
		},
	}
	switch h.sandbox.backend {
	case SandboxBwrap:
		filter, err := seccompFilterFile(h.cfg.AllowNetwork)
		if err != nil {
			return &SandboxUnavailableError{Backend: SandboxBwrap, Reason: err.Error()}
		}
		defer filter.Close()
		cmd.Path = h.sandbox.bwrap
		cmd.Args = append([]string{"bwrap"}, bwrapArgs(prog.path, req.Argv, res.Dir, uniq(append([]string{workspace, root}, h.cfg.Writable...)...), append(slices.Clone(h.cfg.ReadOnly), req.ReadOnly...), hiddenPaths(), h.cfg.AllowNetwork)...)
		cmd.ExtraFiles = []*os.File{filter} // fd 3: --seccomp
		sup.parentClose = []*os.File{filter}
	case SandboxSeatbelt:
		spec, err := seatbeltSpecFor(prog.path, uniq(append([]string{workspace, root}, h.cfg.Writable...)...), h.cfg.AllowNetwork)
		if err != nil {
			res.Decision = verdict.Deny
			res.Refusal = "seatbelt sandbox failed: " + err.Error()
			return &SandboxUnavailableError{Backend: SandboxSeatbelt, Reason: err.Error()}
		}
		cmd.Path = h.sandbox.sbexec
		cmd.Args = append([]string{"sandbox-exec"}, seatbeltArgs(spec, prog.path, req.Argv)...)
	case SandboxLandlock:
		ls := specFor(prog, req.Argv, uniq(append([]string{workspace, root}, h.cfg.Writable...)...), h.cfg.AllowNetwork)
		ls.ReadOnly = h.cfg.ReadOnly
		ls.Gate = h.cfg.Gate != GateOff
		ls.NoSeccomp = h.noSeccomp
		ls.Reap, ls.Grace = true, h.cfg.KillGrace/2
		// The lifeline's descriptor follows the status pipe (3) and the
		// gate's socket (4, with the gate).
		ls.Lifeline = 4
		if ls.Gate {
			ls.Lifeline = 5
		}
		spec, err := json.Marshal(ls)
		if err != nil {
			return err
		}
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		defer r.Close()
		lifeR, lifeW, err := os.Pipe()
		if err != nil {
			return err
		}
		// rivumi holds the write end until the run is over; if rivumi dies,
		// the kernel closes it and the helper kills the tree.
		defer lifeW.Close()
		status = r
		cmd.Path = h.sandbox.self
		cmd.Args = []string{h.sandbox.self, landlockArg, string(spec)}
		cmd.Env = append(cmd.Env, landlockEnv+"="+landlockEnvValue)
		cmd.ExtraFiles = []*os.File{w} // fd 3
		sup.parentClose = []*os.File{w}
		if ls.Gate {
			g := &gate{h: h, mode: h.cfg.Gate, workspace: workspace, first: req.Argv, firstPath: prog.path,
				grants: execGrants(h.Grants(), workspace, res.Dir, pathEnv)}
			stop, err := g.start(ctx, cmd, &sup)
			if err != nil {
				return &SandboxUnavailableError{Backend: "gate", Reason: err.Error()}
			}
			defer func() { stop(); res.Execs = g.decisions() }()
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, lifeR) // fd ls.Lifeline
		sup.parentClose = append(sup.parentClose, lifeR)
		if 2+len(cmd.ExtraFiles) != ls.Lifeline {
			return fmt.Errorf("harness: the lifeline is fd %d, not %d", 2+len(cmd.ExtraFiles), ls.Lifeline)
		}
	}
	sup.beforeStart = func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return recheck(req.Argv[0], res.Dir, pathEnv, prog)
	}

	var statusMsg chan string
	if status != nil {
		statusMsg = make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(io.LimitReader(status, 4096))
			statusMsg <- string(b)
		}()
	}
	out, err := sup.run(cmd)
	res.Stdout, res.Stderr = sup.stdout.output(), sup.stderr.output()
	if err != nil {
		var ns *notStartedError
		if errors.As(err, &ns) {
			var changed *ProgramChangedError
			switch {
			case errors.As(err, &changed):
				res.Decision = verdict.Deny
				h.refuse(res, "harness.program-changed", changed.Error(), "the program that runs must be the one graded")
				return nil
			case ctx.Err() != nil:
				h.refuse(res, "harness.cancelled", "cancelled before start", "cancellation denies")
				return nil
			}
			return fmt.Errorf("harness: start %s: %w", prog.path, ns.err)
		}
		return fmt.Errorf("harness: %w", err)
	}
	res.Ran = true
	res.TimedOut, res.Cancelled, res.KilledAfterGrace = out.timedOut, out.cancelled, out.killedAfterGrace
	res.Stragglers, res.OutputIncomplete, res.Duration = out.stragglers, out.outputIncomplete, out.duration
	res.Escaped = out.escaped
	if ws, ok := out.state.Sys().(syscall.WaitStatus); ok {
		if ws.Signaled() {
			res.Signal = ws.Signal()
		} else if ws.Exited() {
			res.ExitCode = ws.ExitStatus()
		}
	}
	if statusMsg != nil {
		if msg := <-statusMsg; msg != statusReady {
			res.Ran = false
			reason := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(msg, statusReady), "error: "))
			if msg == "" {
				reason = "the helper did not start: main must call harness.MaybeRunSandboxChild first"
			}
			res.Decision = verdict.Deny
			res.Refusal = "landlock sandbox failed: " + reason
			return &SandboxUnavailableError{Backend: SandboxLandlock, Reason: reason}
		}
	}
	return nil
}

func uniq(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func setEnv(env []string, name, val string) []string {
	for i, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			env[i] = name + "=" + val
			return env
		}
	}
	return append(env, name+"="+val)
}

// removeAll removes a run directory, making read-only directories (Go's
// module cache, for one) writable first if needed.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error { //nolint:errcheck
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700) //nolint:errcheck
		}
		return nil
	})
	os.RemoveAll(dir) //nolint:errcheck
}

func newRunID() string {
	var b [8]byte
	rand.Read(b[:]) //nolint:errcheck // never fails
	return hex.EncodeToString(b[:])
}

// auditGrade writes the grading entry.
func (h *Harness) auditGrade(ctx context.Context, res *Result, workspace string) error {
	if h.cfg.Audit == nil {
		return nil
	}
	e := h.entry(res, workspace)
	e.Kind = audit.KindGrade
	if res.Refusal != "" && res.Decision != verdict.Allow {
		e.Note = res.Refusal
	}
	if res.GrantError != nil {
		e.Error = res.GrantError.Error()
	}
	if err := h.cfg.Audit.Log(ctx, e); err != nil {
		return fmt.Errorf("harness: audit: %w", err)
	}
	return nil
}

// auditRun writes the run entry.
func (h *Harness) auditRun(ctx context.Context, res *Result, workspace string, runErr error) error {
	if h.cfg.Audit == nil {
		return nil
	}
	e := h.entry(res, workspace)
	e.Kind = audit.KindRun
	if res.Ran {
		if res.ExitCode >= 0 {
			code := res.ExitCode
			e.Exit = &code
		}
		if res.Signal != 0 {
			e.Signal = res.Signal.String()
		}
		e.TimedOut, e.Cancelled, e.KilledAfterGrace = res.TimedOut, res.Cancelled, res.KilledAfterGrace
		e.DurationMS = float64(res.Duration.Microseconds()) / 1000
		for _, p := range res.Escaped {
			e.Escaped = append(e.Escaped, audit.Process{PID: p.PID, Argv: p.Argv, Killed: p.Killed})
		}
		for _, x := range res.Execs {
			e.Execs = append(e.Execs, audit.Exec{PID: x.PID, PPID: x.PPID, Argv: x.Argv, Allowed: x.Allowed, Rule: x.Rule})
		}
		e.Stdout = &audit.Bytes{Total: res.Stdout.Total, Kept: res.Stdout.Kept(), Dropped: res.Stdout.Dropped}
		e.Stderr = &audit.Bytes{Total: res.Stderr.Total, Kept: res.Stderr.Kept(), Dropped: res.Stderr.Dropped}
	}
	if !res.Ran && res.Refusal != "" {
		e.Note = res.Refusal
	}
	if runErr != nil {
		e.Error = runErr.Error()
	}
	if err := h.cfg.Audit.Log(context.WithoutCancel(ctx), e); err != nil {
		return fmt.Errorf("harness: audit: %w", err)
	}
	return nil
}

func (h *Harness) entry(res *Result, workspace string) audit.Entry {
	e := audit.Entry{
		Source: h.cfg.AuditSource, RunID: res.RunID, Cwd: res.Dir, Workspace: workspace,
		Argv: res.Argv, Decision: res.Decision.String(), Policy: res.Verdict.Policy,
		Approver: res.Approver, Answer: res.Answer,
		Grants: toAuditGrants(res.GrantsUsed), Added: toAuditGrants(res.GrantsAdded),
		// Every entry names the walls the command runs (or would run) behind.
		Sandbox: string(res.Sandbox), SandboxDetail: res.SandboxDetail,
	}
	if h.cfg.Gate != GateOff {
		e.SandboxDetail += "; exec gate " + string(h.cfg.Gate)
	}
	if res.graded {
		e.Verdict = res.Verdict.Decision.String()
	}
	for _, r := range append(slices.Clone(res.Verdict.Reasons), res.Reasons...) {
		if r.Rule != "" && !slices.Contains(e.Rules, r.Rule) {
			e.Rules = append(e.Rules, r.Rule)
		}
	}
	return e
}

func toAuditGrants(gs []verdict.Grant) []audit.Grant {
	if len(gs) == 0 {
		return nil
	}
	out := make([]audit.Grant, len(gs))
	for i, g := range gs {
		out[i] = audit.Grant{Prefix: g.Prefix, Rules: g.Rules}
	}
	return out
}
