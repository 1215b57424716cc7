package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/mcpserver"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/tools"
)

func init() {
	register("mcp", "serve a prepared workspace's tools over MCP (stdio, or streamable HTTP on loopback or a unix socket)", runMCP)
	helps["mcp"] = help{
		synopsis: "(-run DIR | -prepare -source DIR -commit SHA -run-root DIR -name NAME) [flags]",
		description: `Serves the tools of a prepared workspace (list_files, read_file,
search_text, replace_text, apply_patch, run_check, git_diff, shell and
finish) to an MCP client: over stdio by default, or over streamable HTTP
with -http on a loopback address or -unix on a socket path. It refuses to
start without a prepared workspace: pass the run directory that
'rivumi workspace prepare' printed, or -prepare with prepare's flags (the
run directory is printed on stderr). A shell command the policy grades ask
is put to the client as an elicitation (once / always / deny); a client
without elicitation gets a refusal with the 'rivumi grant add' command
that would allow it. Every call is recorded in the bundle's events.jsonl.
See docs/mcp.md.`,
		examples: []string{
			`rivumi mcp -run runs/fix-typo`,
			`rivumi mcp -prepare -source . -commit $(git rev-parse HEAD) -run-root ~/runs -name fix-typo -config workspace.json`,
			`rivumi mcp -run runs/fix-typo -http 127.0.0.1:8383`,
		},
	}
}

func runMCP(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("mcp", stdio)
	runDir := fs.String("run", "", "the run directory of a prepared workspace (`DIR`)")
	prepare := fs.Bool("prepare", false, "prepare a new workspace first (with -source, -commit, -run-root, -name, -task, -config)")
	source := fs.String("source", ".", "with -prepare: the repository to clone (`DIR`)")
	commit := fs.String("commit", "", "with -prepare: the full 40-character `SHA` to pin")
	runRoot := fs.String("run-root", "", "with -prepare: existing `DIR` outside the source that holds run directories")
	name := fs.String("name", "", "with -prepare: the run's `NAME`")
	task := fs.String("task", "", "with -prepare: what the agent is asked to do")
	config := fs.String("config", "", "with -prepare: JSON `FILE` with allowed_paths and checks")
	httpAddr := fs.String("http", "", "serve streamable HTTP on this loopback `ADDR` (127.0.0.1:PORT, [::1]:PORT, localhost:PORT)")
	unixPath := fs.String("unix", "", "serve streamable HTTP on a unix socket at `PATH` (must not exist)")
	tokenFile := fs.String("token-file", "", "with -http (or -unix): require the bearer token in `FILE` (made with a new token, mode 0600, when missing); default with -http: a new token, printed on stderr")
	sandbox := fs.String("sandbox", string(harness.SandboxAuto), "OS sandbox of commands: auto, bwrap, landlock or none")
	allowNet := fs.Bool("allow-network", false, "let sandboxed commands use the network")
	grantsFile := fs.String("grants", "", "grants `FILE` (default: the source project's, under $XDG_CONFIG_HOME/rivumi/grants)")
	auditFile := fs.String("audit", "", "also append the harness's audit entries to `FILE`")
	approvalTimeout := fs.Duration("approval-timeout", harness.DefaultApprovalTimeout, "how long an elicitation waits for the user; then deny")
	var pf policyFlags
	fs.Var(&pf.policyDirs, "policy", "directory of user Rego packs for the shell tool; repeatable")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return exitf(ExitError, "mcp: unexpected argument %q", fs.Arg(0))
	}
	if *httpAddr != "" && *unixPath != "" {
		return exitf(ExitError, "mcp: -http and -unix: choose one")
	}
	mode, err := harness.ParseSandbox(*sandbox)
	if err != nil {
		return exitf(ExitError, "mcp: %v", err)
	}

	var w *workspace.Workspace
	switch {
	case *prepare && *runDir != "":
		return exitf(ExitError, "mcp: -prepare makes a new run directory: do not pass -run")
	case *prepare:
		var cfg workspace.Config
		if *config != "" {
			if cfg, err = loadWorkspaceConfig(*config); err != nil {
				return exitf(ExitError, "mcp: %v", err)
			}
		}
		w, err = workspace.Prepare(ctx, workspace.PrepareOptions{
			Source: *source, Commit: *commit, RunRoot: *runRoot, Name: *name, Task: *task, Config: cfg,
		})
		if err != nil {
			return exitf(ExitError, "mcp: %v", err)
		}
		fmt.Fprintf(stdio.Err, "rivumi mcp: prepared %s\n", w.RunDir())
	case *runDir == "":
		return exitf(ExitError, "mcp: no workspace: pass -run DIR (from rivumi workspace prepare) or -prepare -source DIR -commit SHA -run-root DIR -name NAME")
	default:
		// A run another server holds is refused at once: a health check
		// (claude mcp list) must not hang on the agent's own server.
		if w, err = workspace.OpenNoWait(*runDir); err != nil {
			return exitf(ExitError, "mcp: %v", err)
		}
	}
	defer w.Close()

	project, err := grant.ProjectRoot(w.Request().Source)
	if err != nil {
		return exitf(ExitError, "mcp: %v", err)
	}
	grants, err := openGrants(*grantsFile, project)
	if err != nil {
		return exitf(ExitError, "mcp: %v", err)
	}
	tc := tools.Config{Workspace: w, Grants: grants, Harness: harness.Config{
		Sandbox: mode, AllowNetwork: *allowNet, ApprovalTimeout: *approvalTimeout,
	}}
	if *auditFile != "" {
		log, err := audit.Open(*auditFile)
		if err != nil {
			return exitf(ExitError, "mcp: %v", err)
		}
		defer log.Close()
		tc.Harness.Audit = log
	}
	pf.cwd = w.Dir()
	if tc.Engine, err = pf.newEngine(ctx); err != nil {
		return err
	}
	srv, err := mcpserver.New(mcpserver.Config{Tools: tc, ProjectDir: project, Version: moduleVersion()})
	var unavailable *harness.SandboxUnavailableError
	if errors.As(err, &unavailable) {
		return exitf(ExitNoSandbox, "mcp: %v (pass -sandbox none to run unsandboxed)", err)
	}
	if err != nil {
		return exitf(ExitError, "mcp: %v", err)
	}
	// The session's end, in session.json (a killed server leaves none).
	defer srv.Close()

	var l net.Listener
	switch {
	case *httpAddr != "":
		l, err = mcpserver.Listen("tcp", *httpAddr)
	case *unixPath != "":
		l, err = mcpserver.Listen("unix", *unixPath)
	default:
		fmt.Fprintf(stdio.Err, "rivumi mcp: serving %s over stdio\n", w.RunDir())
		err := srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdio.In), Writer: nopWriteCloser{stdio.Out}})
		if err != nil && ctx.Err() == nil && !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, io.EOF) {
			return exitf(ExitError, "mcp: %v", err)
		}
		return nil
	}
	if err != nil {
		return exitf(ExitError, "%v", err)
	}
	var sopts []mcpserver.ServeOption
	token, made, err := mcpToken(*tokenFile, *httpAddr != "")
	if err != nil {
		l.Close()
		return exitf(ExitError, "mcp: %v", err)
	}
	if token != "" {
		sopts = append(sopts, mcpserver.WithToken(token))
	}
	if *unixPath != "" {
		fmt.Fprintf(stdio.Err, "rivumi mcp: serving %s on unix socket %s (http://localhost/mcp)\n", w.RunDir(), *unixPath)
	} else {
		fmt.Fprintf(stdio.Err, "rivumi mcp: serving %s on http://%s/mcp\n", w.RunDir(), l.Addr())
	}
	switch {
	case made && *tokenFile == "":
		fmt.Fprintf(stdio.Err, "rivumi mcp: every request must send the header: Authorization: Bearer %s\n", token)
	case token != "":
		fmt.Fprintf(stdio.Err, "rivumi mcp: every request must send the header: Authorization: Bearer <the token in %s>\n", *tokenFile)
	}
	if err := srv.Serve(ctx, l, sopts...); err != nil && ctx.Err() == nil {
		return exitf(ExitError, "mcp: %v", err)
	}
	return nil
}

// mcpToken is the bearer token of an HTTP server: the one in file (a new
// one written there, mode 0600, when file does not exist); with no file,
// a new one when required, else none. made reports a new token.
func mcpToken(file string, required bool) (token string, made bool, err error) {
	if file == "" {
		if !required {
			return "", false, nil
		}
		t, err := mcpserver.NewToken()
		return t, true, err
	}
	b, err := os.ReadFile(file)
	if err == nil {
		t := strings.TrimSpace(string(b))
		if t == "" {
			return "", false, fmt.Errorf("token file %s is empty", file)
		}
		return t, false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", false, err
	}
	t, err := mcpserver.NewToken()
	if err != nil {
		return "", false, err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", false, err
	}
	if _, err := f.WriteString(t + "\n"); err != nil {
		f.Close()
		return "", false, err
	}
	return t, true, f.Close()
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
