package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/internal/strictjson"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/bundle"
	"github.com/rivumi/rivumi/workspace/tools"
)

func init() {
	register("workspace prepare", "make a disposable clone pinned to a commit, with its run bundle", workspacePrepare)
	describe("workspace prepare", "-source DIR -commit SHA -run-root DIR -name NAME [flags]", prepareHelp)
	register("workspace tool", "call one workspace tool (list_files, read_file, …, shell) with JSON arguments", workspaceTool)
	describe("workspace tool", "-run DIR [flags] TOOL [ARGS]", toolHelp)
	register("workspace finish", "write the patch and result.json of a workspace run", workspaceFinish)
	describe("workspace finish", "-run DIR [flags]", finishHelp)
	register("workspace tools", "list the workspace tools and their arguments", workspaceTools)
}

func workspaceTools(_ context.Context, stdio Stdio, args []string) error {
	fs := newFlags("workspace tools", stdio)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for _, s := range tools.Specs() {
		var fields []string
		t := reflect.TypeOf(s.Args)
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			fields = append(fields, name+":"+t.Field(i).Type.String())
		}
		fmt.Fprintf(stdio.Out, "%-13s {%s}\n  %s\n", s.Name, strings.Join(fields, ", "), s.Summary)
	}
	return nil
}

const prepareHelp = `Clones the repository at -source into RUNROOT/NAME/workspace, pinned to the
full 40-character SHA (the source is never written), and starts the run
bundle in RUNROOT/NAME/bundle. Prints the run directory. See
docs/workspace.md.`

func workspacePrepare(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("workspace prepare", stdio)
	source := fs.String("source", ".", "the repository to clone (`DIR`)")
	commit := fs.String("commit", "", "the full 40-character `SHA` to pin")
	runRoot := fs.String("run-root", "", "existing `DIR` outside the source that holds run directories")
	name := fs.String("name", "", "the run's `NAME` (one path segment; must not exist yet)")
	task := fs.String("task", "", "what the agent is asked to do (recorded in request.json)")
	config := fs.String("config", "", "JSON `FILE` with allowed_paths and checks")
	timeout := fs.Duration("timeout", workspace.DefaultPrepareTimeout, "deadline of the preparation")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return exitf(ExitError, "workspace prepare: unexpected argument %q", fs.Arg(0))
	}
	var cfg workspace.Config
	if *config != "" {
		var err error
		if cfg, err = loadWorkspaceConfig(*config); err != nil {
			return exitf(ExitError, "workspace prepare: %v", err)
		}
	}
	w, err := workspace.Prepare(ctx, workspace.PrepareOptions{
		Source: *source, Commit: *commit, RunRoot: *runRoot, Name: *name, Task: *task, Config: cfg, Timeout: *timeout,
	})
	if err != nil {
		return exitf(ExitError, "%v", err)
	}
	defer w.Close()
	fmt.Fprintln(stdio.Out, w.RunDir())
	return nil
}

// loadWorkspaceConfig reads a workspace configuration file strictly:
// unknown fields are errors, and so are invalid patterns and checks.
func loadWorkspaceConfig(path string) (workspace.Config, error) {
	var cfg workspace.Config
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, err
	}
	if err := strictjson.Decode(b, &cfg); err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

const toolHelp = `Calls one tool of the workspace in the run directory DIR and prints its
result as one JSON line: {"tool", "ok", "error", "output"}. ARGS is a JSON
object (default {}), - to read it from standard input; -file-arg sets a
string field from a file's content. A refused call (a path out of policy, a
stale read, a denied command, a failing check) exits 5 with the reason in
"error". A shell command the policy grades ask is put to you on the
terminal; without a terminal (an agent calling this) or with -headless it
is refused. Each call resumes from the bundle's checkpoint.json (a file
read by an earlier call and unchanged since can be edited) and is a session
in session.json; a corrupt checkpoint, or one of another run, is refused.

Tools: list_files, read_file, search_text, replace_text, apply_patch,
run_check, git_diff, shell.`

// fileArgs is a repeatable KEY=FILE flag.
type fileArgs map[string]string

func (f fileArgs) String() string { return "" }
func (f fileArgs) Type() string   { return "string" }
func (f fileArgs) Set(v string) error {
	k, file, ok := strings.Cut(v, "=")
	if !ok || k == "" || file == "" {
		return errors.New("want KEY=FILE")
	}
	f[k] = file
	return nil
}

func workspaceTool(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("workspace tool", stdio)
	runDir := fs.String("run", "", "the run directory printed by prepare (`DIR`)")
	sandbox := fs.String("sandbox", string(harness.SandboxAuto), "OS sandbox of commands: auto, bwrap, landlock or none")
	allowNet := fs.Bool("allow-network", false, "let sandboxed commands use the network")
	auditFile := fs.String("audit", "", "also append the harness's audit entries to `FILE`")
	headless := fs.Bool("headless", false, "never prompt: a shell command graded ask is refused")
	files := fileArgs{}
	fs.Var(files, "file-arg", "set the string argument `KEY=FILE` from FILE's content (repeatable)")
	var pf policyFlags
	fs.Var(&pf.policyDirs, "policy", "directory of user Rego packs for the shell tool; repeatable")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 || *runDir == "" {
		return exitf(ExitError, "workspace tool: want -run DIR, a tool and at most one JSON argument")
	}
	name := fs.Arg(0)
	raw, err := toolArgs(fs.Arg(1), files, stdio.In)
	if err != nil {
		return exitf(ExitError, "workspace tool: %v", err)
	}
	mode, err := harness.ParseSandbox(*sandbox)
	if err != nil {
		return exitf(ExitError, "workspace tool: %v", err)
	}
	w, err := workspace.Open(*runDir)
	if err != nil {
		return exitf(ExitError, "%v", err)
	}
	defer w.Close()
	cfg := tools.Config{Workspace: w, Harness: harness.Config{Sandbox: mode, AllowNetwork: *allowNet}, SessionKind: tools.SessionCLI}
	if *auditFile != "" {
		log, err := audit.Open(*auditFile)
		if err != nil {
			return exitf(ExitError, "workspace tool: %v", err)
		}
		defer log.Close()
		cfg.Harness.Audit = log
	}
	if !*headless && fs.Arg(1) != "-" && isTerminal(stdio.In) {
		cfg.Approver = harness.NewInteractive(stdio.In, stdio.Err)
	}
	if name == tools.ToolShell {
		pf.cwd = w.Dir()
		if cfg.Engine, err = pf.newEngine(ctx); err != nil {
			return err
		}
	}
	ts, err := tools.New(cfg)
	var unavailable *harness.SandboxUnavailableError
	if errors.As(err, &unavailable) {
		return exitf(ExitNoSandbox, "workspace tool: %v (pass -sandbox none to run unsandboxed)", err)
	}
	if err != nil {
		return exitf(ExitError, "%v", err)
	}
	res, err := ts.Call(ctx, name, raw)
	if cerr := ts.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return exitf(ExitError, "workspace tool %s: %v", name, err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdio.Out, "%s\n", b)
	if !res.OK {
		return exitCode(ExitRefused)
	}
	return nil
}

// toolArgs builds the JSON arguments: arg (a JSON object, "-" for stdin,
// "" for {}) plus the -file-arg strings.
func toolArgs(arg string, files fileArgs, stdin io.Reader) (json.RawMessage, error) {
	raw := []byte(arg)
	switch arg {
	case "":
		raw = []byte("{}")
	case "-":
		b, err := io.ReadAll(io.LimitReader(stdin, 64<<20))
		if err != nil {
			return nil, err
		}
		raw = b
	}
	if len(files) == 0 {
		return raw, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("arguments are not a JSON object")
	}
	for k, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		obj[k] = string(b)
	}
	return json.Marshal(obj)
}

const finishHelp = `Writes changes.patch (the change against the pinned commit), scans it for
secrets and writes result.json, which it prints. With -verify every
configured check runs first. Exits 3 when the status is failed (a check
failed, or did not run after the last change).`

func workspaceFinish(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("workspace finish", stdio)
	runDir := fs.String("run", "", "the run directory printed by prepare (`DIR`)")
	reason := fs.String("reason", "finished", "the terminal reason recorded in result.json")
	verify := fs.Bool("verify", false, "run every configured check before finishing")
	sandbox := fs.String("sandbox", string(harness.SandboxAuto), "OS sandbox of the checks (with -verify)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *runDir == "" || fs.NArg() > 0 {
		return exitf(ExitError, "workspace finish: want -run DIR and no arguments")
	}
	w, err := workspace.Open(*runDir)
	if err != nil {
		return exitf(ExitError, "%v", err)
	}
	defer w.Close()
	if *verify {
		mode, err := harness.ParseSandbox(*sandbox)
		if err != nil {
			return exitf(ExitError, "workspace finish: %v", err)
		}
		if err := runChecks(ctx, w, mode, stdio.Err); err != nil {
			return exitf(ExitError, "workspace finish: %v", err)
		}
	}
	res, err := w.Finish(ctx, *reason)
	// Recorded as the MCP finish tool records its call.
	finishArgs, _ := json.Marshal(map[string]string{"reason": *reason})
	if _, aerr := w.Bundle().Append(workspace.FinishEvent(finishArgs, res, err)); aerr != nil {
		err = errors.Join(err, aerr)
	}
	if err != nil {
		return exitf(ExitError, "%v", err)
	}
	return printResult(stdio, w, res.Status)
}

// runChecks runs every configured check of w through the workspace tools
// (one CLI session), saying on errOut how each ended.
func runChecks(ctx context.Context, w *workspace.Workspace, mode harness.Sandbox, errOut io.Writer) error {
	ts, err := tools.New(tools.Config{Workspace: w, Harness: harness.Config{Sandbox: mode}, SessionKind: tools.SessionCLI})
	if err != nil {
		return err
	}
	defer ts.Close()
	for _, c := range w.Request().Checks {
		res, err := ts.Call(ctx, tools.ToolRunCheck, json.RawMessage(fmt.Sprintf(`{"name":%q}`, c.Name)))
		if err != nil {
			return err
		}
		status := "passed"
		if !res.OK {
			status = res.Error
		}
		fmt.Fprintf(errOut, "rivumi: check %s: %s\n", c.Name, status)
	}
	return nil
}

// printResult prints result.json and exits 3 when the status is failed.
func printResult(stdio Stdio, w *workspace.Workspace, status string) error {
	b, err := os.ReadFile(w.Bundle().File(bundle.ResultFile))
	if err != nil {
		return err
	}
	stdio.Out.Write(b)
	if status == bundle.StatusFailed {
		return exitCode(ExitTestFailed)
	}
	return nil
}
