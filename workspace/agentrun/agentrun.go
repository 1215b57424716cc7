// Package agentrun is the external agent lane: an agent CLI (Claude Code,
// Codex, Gemini CLI) works on a task with its own tools, inside a prepared
// disposable workspace, and what it leaves is audited as the native tools'
// changes are.
//
// [Run] gives the agent a throwaway home in the run directory (the user's
// own agent settings are never read or written), installs rivumi's hook
// there, and runs the agent through the harness: in the OS sandbox (the
// clone and the home writable, nothing else), with the exec gate where the
// kernel has it, a clean environment plus exactly the variables the caller
// names, and a wall-clock budget the agent cannot change (past it the
// whole process tree is killed). When the agent is done it runs the
// workspace's checks, finishes the run (changes.patch, allowed paths,
// secrets, result.json) and compares the source repository with its state
// before the run: any difference is a problem that fails the run.
package agentrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/hook"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/bundle"
)

// Files of the lane in the run directory.
const (
	// AgentDir holds the agent's home and the hook's audit log.
	AgentDir = "agent"
	// HookAudit is the hook's audit log, relative to AgentDir: one entry
	// per tool call the agent made, as rivumi's hook saw and answered it.
	HookAudit = "hook-audit.jsonl"
)

// DefaultBudget is the wall-clock budget when Options.Budget is zero.
const DefaultBudget = 30 * time.Minute

// Options configure [Run].
type Options struct {
	// Workspace is the prepared run. Required.
	Workspace *workspace.Workspace
	// Agent names the agent, for its hook and settings. Required.
	Agent hook.Agent
	// Argv is the agent CLI and its arguments (headless, with its task).
	Argv []string
	// Budget is the agent's wall-clock budget (default DefaultBudget).
	Budget time.Duration
	// Env are NAME=VALUE pairs given to the agent as they are, secret
	// names included: what the caller named for the model's endpoint and
	// credentials. Nothing else of the caller's environment passes but
	// harness.DefaultEnvAllow.
	Env []string
	// HomeFiles are copied into the agent's home before it starts: the key
	// is the path relative to the home (".codex/config.toml"), the value
	// the file to copy.
	HomeFiles map[string]string
	// Install writes rivumi's hook for the agent into home, logging to
	// auditPath (the CLI runs `rivumi hook install AGENT --user` with
	// HOME=home). Required: an agent without the hook is not run.
	Install func(ctx context.Context, home, auditPath string) error
	// Harness is the template of the agent's run: Grader (required),
	// Sandbox, Gate, GateGrader, ReadOnly, Audit. Workspace, Writable,
	// KeepHome, BaseEnv, EnvAllow, AllowNetwork, RunRoot and the timeouts
	// are set by Run. The agent's own argv is approved (the caller asked
	// for it); a deny still refuses it.
	Harness harness.Config
	// RunChecks runs the workspace's configured checks after the agent
	// (nil: none run, and a run with checks cannot pass).
	RunChecks func(ctx context.Context) error
	// Stdout and Stderr receive the agent's output as it comes.
	Stdout, Stderr io.Writer
}

// Outcome is what [Run] did.
type Outcome struct {
	// Result is result.json as written.
	Result bundle.Result
	// Run is the harness's result of the agent's run.
	Run harness.Result
	// HookCalls counts the agent's tool calls rivumi's hook answered.
	HookCalls int
}

// Run runs the agent in the workspace and finishes the run; see the
// package documentation. The returned error is set when the lane could not
// do its work (the result then says failed, when it could be written).
func Run(ctx context.Context, o Options) (Outcome, error) {
	var out Outcome
	w := o.Workspace
	if w == nil || o.Agent == "" || len(o.Argv) == 0 || o.Install == nil || o.Harness.Grader == nil {
		return out, errors.New("agentrun: workspace, agent, argv, install and grader are required")
	}
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	agentDir := filepath.Join(w.RunDir(), AgentDir)
	home := filepath.Join(agentDir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return out, fmt.Errorf("agentrun: %w", err)
	}
	for rel, src := range o.HomeFiles {
		if err := copyIntoHome(home, rel, src); err != nil {
			return out, fmt.Errorf("agentrun: home file %s: %w", rel, err)
		}
	}
	hookLog := filepath.Join(agentDir, HookAudit)
	if err := o.Install(ctx, home, hookLog); err != nil {
		return out, fmt.Errorf("agentrun: installing rivumi's hook for %s: %w", o.Agent, err)
	}
	source := w.Request().Source
	before, err := workspace.Snapshot(ctx, source)
	if err != nil {
		return out, fmt.Errorf("agentrun: %w", err)
	}

	cfg := o.Harness
	cfg.Workspace = w.Dir()
	cfg.Writable = append(slices.Clone(cfg.Writable), agentDir)
	cfg.KeepHome = true
	cfg.AllowNetwork = true // the model's API
	cfg.MaxTimeout, cfg.DefaultTimeout = budget, budget
	cfg.RunRoot = w.TmpDir()
	cfg.Approver = harness.Headless{Fallback: harness.AnswerOnce}
	if cfg.AuditSource == "" {
		cfg.AuditSource = "agent/" + string(o.Agent)
	}
	base := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "CODEX_HOME=" + filepath.Join(home, ".codex")}
	for _, k := range []string{"LANG", "LC_ALL", "TERM", "TZ", "USER", "LOGNAME"} {
		if v, ok := os.LookupEnv(k); ok {
			base = append(base, k+"="+v)
		}
	}
	allow := append(slices.Clone(harness.DefaultEnvAllow), "CODEX_HOME")
	var extra []string
	for _, kv := range o.Env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return out, fmt.Errorf("agentrun: env %q: want NAME=VALUE", kv)
		}
		extra = append(extra, kv)
	}
	cfg.BaseEnv, cfg.EnvAllow, cfg.ExtraEnv = base, allow, extra
	// The agent's program and rivumi (its hook) must be readable inside the
	// sandbox even where they live in a hidden directory.
	self, _ := os.Executable()
	for _, p := range []string{o.Argv[0], self} {
		if d := installRoot(p); d != "" {
			cfg.ReadOnly = append(cfg.ReadOnly, d)
		}
	}
	h, err := harness.New(cfg)
	if err != nil {
		return out, fmt.Errorf("agentrun: %w", err)
	}
	res, err := h.Run(ctx, harness.Request{Argv: o.Argv, Dir: w.Dir(), Timeout: budget, Stdout: o.Stdout, Stderr: o.Stderr})
	out.Run = res
	if err != nil {
		return out, fmt.Errorf("agentrun: %w", err)
	}
	n, err := recordHookCalls(w, hookLog)
	out.HookCalls = n
	if err != nil {
		return out, fmt.Errorf("agentrun: %w", err)
	}
	var problems []string
	switch {
	case !res.Ran:
		problems = append(problems, "the agent did not run: "+res.Refusal)
	case res.TimedOut:
		problems = append(problems, fmt.Sprintf("the agent overran its budget of %v: its whole process tree was killed", budget))
	case res.ExitCode != 0 || res.Signal != 0:
		problems = append(problems, fmt.Sprintf("the agent exited with status %d%s", res.ExitCode, signalText(res)))
	}
	if res.Ran && !res.TimedOut && o.RunChecks != nil {
		if err := o.RunChecks(ctx); err != nil {
			problems = append(problems, "the checks could not run: "+err.Error())
		}
	}
	reason := "agent finished"
	if res.TimedOut {
		reason = "agent budget exceeded"
	}
	result, ferr := w.Finish(ctx, reason)
	after, serr := workspace.Snapshot(ctx, source)
	switch {
	case serr != nil:
		problems = append(problems, "the source repository could not be read after the run: "+serr.Error())
	default:
		for _, d := range before.Diff(after) {
			problems = append(problems, "source repository "+source+": "+d)
		}
	}
	if ferr != nil {
		return out, errors.Join(ferr, w.Bundle().WriteJSON(bundle.ResultFile, withProblems(result, problems)))
	}
	result = withProblems(result, problems)
	out.Result = result
	return out, w.Bundle().WriteJSON(bundle.ResultFile, result)
}

// withProblems adds problems to r; any problem fails the run.
func withProblems(r bundle.Result, problems []string) bundle.Result {
	if len(problems) > 0 {
		r.Problems = append(r.Problems, problems...)
		r.Status = bundle.StatusFailed
	}
	return r
}

func signalText(res harness.Result) string {
	if res.Signal != 0 {
		return " (signal " + res.Signal.String() + ")"
	}
	return ""
}

// installRoot is the directory a program's files live in: for a package
// installed by npm (node_modules/.bin/claude → …/node_modules/@scope/pkg),
// the node_modules directory's parent; else the program's directory.
func installRoot(prog string) string {
	p := prog
	if !filepath.IsAbs(p) {
		lp, err := exec.LookPath(p)
		if err != nil {
			return ""
		}
		p = lp
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	dir := filepath.Dir(p)
	if i := strings.LastIndex(dir, string(filepath.Separator)+"node_modules"); i > 0 {
		return dir[:i]
	}
	return dir
}

// copyIntoHome copies src to home/rel, refusing a rel that leaves home.
func copyIntoHome(home, rel, src string) error {
	if rel == "" || filepath.IsAbs(rel) || !filepath.IsLocal(rel) {
		return fmt.Errorf("%q is not a path inside the home", rel)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	dst := filepath.Join(home, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o600)
}

// recordHookCalls appends one event per hook call of the agent to the
// run's events.jsonl ("agent:" and the agent's tool name), and returns how
// many there were.
func recordHookCalls(w *workspace.Workspace, path string) (int, error) {
	entries, err := audit.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		tool, paths := noteFields(e.Note)
		args := map[string]any{}
		if e.Command != "" {
			args["command"] = e.Command
		}
		if len(paths) > 0 {
			args["paths"] = paths
		}
		raw, _ := json.Marshal(args)
		ok := e.Error == "" && (e.Answer == "allow" || e.Answer == "none" || e.Answer == "")
		ev := bundle.Event{Time: e.Time, Tool: "agent:" + tool, Args: raw, Decision: e.Verdict, Rules: e.Rules, OK: ok,
			Summary: "rivumi's hook answered " + e.Answer, Error: e.Error}
		if _, err := w.Bundle().Append(ev); err != nil {
			return 0, err
		}
	}
	return len(entries), nil
}

// noteFields reads the tool and paths from a hook entry's note ("tool
// Bash; paths a b").
func noteFields(note string) (tool string, paths []string) {
	for _, part := range strings.Split(note, "; ") {
		switch {
		case strings.HasPrefix(part, "tool "):
			tool = strings.TrimPrefix(part, "tool ")
		case strings.HasPrefix(part, "paths "):
			paths = strings.Fields(strings.TrimPrefix(part, "paths "))
		}
	}
	if tool == "" {
		tool = "unknown"
	}
	return tool, paths
}
