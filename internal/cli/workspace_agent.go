package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/execgate"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/hook"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/agentrun"
	"github.com/rivumi/rivumi/workspace/bundle"
)

func init() {
	register("workspace agent", "run an agent CLI on the task inside the disposable clone, then audit its change", workspaceAgent)
	describe("workspace agent", "-run DIR [flags] AGENT -- PROGRAM [ARG...]", agentHelp)
}

const agentHelp = `Runs an agent CLI (AGENT: claude-code, codex or gemini) with its own tools
inside the prepared workspace DIR, then audits what it left as the workspace
tools' changes are audited. The agent gets a throwaway home in the run
directory with rivumi's hook installed (your own ~/.claude, ~/.codex and
~/.gemini are never read or written), runs in the OS sandbox (the clone and
its home writable, network for the model), with every program it starts
graded at its exec where the kernel has the exec gate, in a clean
environment plus exactly the variables you name (-env), for at most -budget
(past it the whole process tree is killed).

Afterwards the configured checks run, the run is finished (changes.patch,
allowed paths, secrets, result.json) and the source repository is compared
with its state before: any change there fails the run. The agent's tool
calls, as rivumi's hook answered them, are in events.jsonl. Prints
result.json; exits 3 when the status is failed.

The model's credentials are given to the agent (and so to every command it
runs) only when you name them: -env ANTHROPIC_API_KEY, or copy a config file
into its home with -home-file .codex/config.toml=$HOME/.codex/config.toml.`

func workspaceAgent(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("workspace agent", stdio)
	runDir := fs.String("run", "", "the run directory printed by prepare (`DIR`)")
	budget := fs.Duration("budget", agentrun.DefaultBudget, "the agent's wall-clock budget; past it its whole process tree is killed")
	sandbox := fs.String("sandbox", string(harness.SandboxAuto), "OS sandbox of the agent: auto, bwrap, landlock or none")
	gateFlag := fs.String("gate", "auto", "the exec gate around the agent: auto (deny where the kernel has it), off, floor, deny or ask")
	var envs, homeFiles, readOnly stringList
	fs.Var(&envs, "env", "give the agent the variable `NAME` (from this environment) or NAME=VALUE, secret names included; repeatable")
	fs.Var(&homeFiles, "home-file", "copy a file into the agent's home: `REL=FILE` (REL relative to the home); repeatable")
	fs.Var(&readOnly, "read-only", "let the agent read `DIR` although the sandbox hides it; repeatable")
	var pf policyFlags
	fs.Var(&pf.policyDirs, "policy", "directory of user Rego packs; repeatable")
	fs.SetInterspersed(false) // the operands are an argv: its flags are its own
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *runDir == "" || fs.NArg() < 2 {
		return exitf(ExitError, "workspace agent: want -run DIR, the agent's name and its command after --")
	}
	agent, err := hook.ParseAgent(fs.Arg(0))
	if err != nil {
		return exitf(ExitError, "workspace agent: %v", err)
	}
	argv := fs.Args()[1:]
	if argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return exitf(ExitError, "workspace agent: no agent command given")
	}
	mode, err := harness.ParseSandbox(*sandbox)
	if err != nil {
		return exitf(ExitError, "workspace agent: %v", err)
	}
	gate := harness.GateOff
	switch *gateFlag {
	case "auto":
		if execgate.Available() == nil && (mode == harness.SandboxAuto || mode == harness.SandboxLandlock) {
			gate = harness.GateDeny
		}
	default:
		if gate, err = harness.ParseGateMode(*gateFlag); err != nil {
			return exitf(ExitError, "workspace agent: %v", err)
		}
	}
	var env []string
	for _, e := range envs {
		if name, _, ok := strings.Cut(e, "="); ok {
			if name == "" {
				return exitf(ExitError, "workspace agent: -env %q: no name", e)
			}
			env = append(env, e)
			continue
		}
		v, ok := os.LookupEnv(e)
		if !ok {
			return exitf(ExitError, "workspace agent: -env %s: not set in this environment", e)
		}
		env = append(env, e+"="+v)
	}
	files := map[string]string{}
	for _, hf := range homeFiles {
		rel, src, ok := strings.Cut(hf, "=")
		if !ok || rel == "" || src == "" {
			return exitf(ExitError, "workspace agent: -home-file %q: want REL=FILE", hf)
		}
		files[rel] = src
	}
	self, err := os.Executable()
	if err != nil {
		return exitf(ExitError, "workspace agent: %v", err)
	}
	w, err := workspace.Open(*runDir)
	if err != nil {
		return exitf(ExitError, "%v", err)
	}
	defer w.Close()
	if newGrader == nil {
		return exitf(ExitError, "workspace agent: engine not available")
	}
	pf.cwd = w.Dir()
	grader, err := newGrader(ctx, &pf)
	if err != nil {
		return exitf(ExitPolicyError, "workspace agent: %v", err)
	}
	log, err := audit.Open(filepath.Join(w.RunDir(), agentrun.AgentDir, "run-audit.jsonl"))
	if err != nil {
		return exitf(ExitError, "workspace agent: %v", err)
	}
	defer log.Close()
	var roDirs []string
	for _, d := range readOnly {
		a, err := filepath.Abs(d)
		if err != nil {
			return exitf(ExitError, "workspace agent: -read-only %s: %v", d, err)
		}
		roDirs = append(roDirs, a)
	}
	checks := func(ctx context.Context) error { return runChecks(ctx, w, mode, stdio.Err) }
	install := func(ctx context.Context, home, auditPath string) error {
		cmd := exec.CommandContext(ctx, self, "hook", "install", string(agent), "--user", "--binary", self, "--",
			"--audit", auditPath, "--socket", "none", "--workspace", w.Dir())
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "CODEX_HOME=" + filepath.Join(home, ".codex"),
			"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state")}
		if v := os.Getenv(noAutostartEnv); v != "" {
			cmd.Env = append(cmd.Env, noAutostartEnv+"="+v)
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.WaitDelay = 5 * time.Second
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%v: %s", err, strings.TrimSpace(out.String()))
		}
		return nil
	}
	o, err := agentrun.Run(ctx, agentrun.Options{
		Workspace: w, Agent: agent, Argv: argv, Budget: *budget, Env: env, HomeFiles: files, Install: install,
		Harness:   harness.Config{Grader: grader, Sandbox: mode, Gate: gate, ReadOnly: roDirs, Audit: log},
		RunChecks: checks, Stdout: stdio.Err, Stderr: stdio.Err,
	})
	var unavailable *harness.SandboxUnavailableError
	if errors.As(err, &unavailable) {
		return exitf(ExitNoSandbox, "workspace agent: %v (pass -sandbox none to run it unsandboxed)", err)
	}
	ev := bundle.Event{Tool: "agent", Args: mustJSON(map[string]any{"agent": agent, "argv": audit.RedactArgv(argv)}), OK: err == nil,
		Summary: fmt.Sprintf("%d tool calls answered by rivumi's hook; status %s", o.HookCalls, o.Result.Status)}
	if err != nil {
		ev.Error = err.Error()
	}
	if o.Run.Ran {
		ev.Sandbox = string(o.Run.Sandbox)
		if gate != harness.GateOff {
			ev.Sandbox += "+gate:" + string(gate)
		}
	}
	if _, aerr := w.Bundle().Append(ev); aerr != nil {
		err = errors.Join(err, aerr)
	}
	if err != nil {
		return exitf(ExitError, "%v", err)
	}
	return printResult(stdio, w, o.Result.Status)
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
