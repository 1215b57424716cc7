package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/server"
)

func init() {
	register("policy eval", "grade a command (or JSON Lines with --batch)", runEval)
	register("policy explain", "show segments, facts and every rule hit for a command (--trace: the Rego evaluation, rule by rule)", runExplain)
}

func runEval(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("policy eval", stdio)
	var pf policyFlags
	pf.register(fs.FlagSet)
	format := fs.String("format", "text", "output format: text or json")
	batch := fs.String("batch", "", "read JSON Lines requests from `FILE` (- for stdin), write one JSON verdict per line; the exit is 0 when every line was read, whatever the verdicts (read them from the output), 1 when a line could not be (answered by a deny line)")
	var sg standingGrants // evalgrants.go
	sg.register(fs.FlagSet)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return exitf(ExitError, "unknown --format %q (want text or json)", *format)
	}
	if *batch != "" && *format != "json" && fs.Changed("format") {
		return exitf(ExitError, "--batch answers JSON Lines; --format %s is not supported there", *format)
	}
	if *batch == "" && fs.NArg() != 1 {
		return exitf(ExitError, "%s", commandArgsProblem("policy eval", fs.Args()))
	}
	e, err := pf.newEngine(ctx)
	if err != nil {
		return err
	}
	if *batch != "" {
		return evalBatch(ctx, e, &pf, *batch, stdio)
	}
	grants, grantsFile, err := sg.load(&pf)
	if err != nil {
		return exitf(ExitError, "policy eval: %v", err)
	}
	v := e.EvaluateText(ctx, fs.Arg(0), append(pf.evalOptions("", "", ""), engine.Grants(grants))...)
	if *format == "json" {
		if err := writeJSONLine(stdio.Out, batchOut{Command: fs.Arg(0), Verdict: v}); err != nil {
			return err
		}
	} else {
		printVerdict(stdio.Out, fs.Arg(0), v)
		noteGrants(stdio.Out, v, grants, grantsFile)
	}
	return decisionExit(v.Decision)
}

// commandArgsProblem explains why a command that grades one COMMAND did
// not get exactly one argument.
func commandArgsProblem(name string, args []string) string {
	if len(args) == 0 {
		return fmt.Sprintf("usage: rivumi %s [flags] COMMAND (quote the command as one argument; --help for examples)", name)
	}
	return fmt.Sprintf("usage: rivumi %s [flags] COMMAND: got %d arguments %q; quote the whole command as one argument: rivumi %s %s",
		name, len(args), args, name, singleQuote(strings.Join(args, " ")))
}

func decisionExit(d engine.Decision) error {
	switch d {
	case engine.Allow:
		return nil
	case engine.Ask:
		return exitCode(ExitAsk)
	}
	return exitCode(ExitDeny)
}

// batchOut is one line of eval --format json (the shape of a batch line's
// answer, [server.Response]).
type batchOut struct {
	Command string `json:"command"`
	engine.Verdict
	Error string `json:"error,omitempty"`
}

// evalBatch grades JSON Lines exactly as `rivumi serve --stdio` does: each
// line is one request object of serve's API (command or argv, cwd,
// workspace, home, shell, grants) or an array of them, decoded strictly,
// answered by one line, in order, under serve's limits and evaluation
// deadline. Fields a request leaves empty come from the flags (and the
// current directory). A line that cannot be read is answered by a deny line,
// reported on stderr as FILE:LINE, and makes the exit status 1.
func evalBatch(ctx context.Context, e *engine.Engine, pf *policyFlags, name string, stdio Stdio) error {
	var r io.Reader = stdio.In
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return exitf(ExitError, "%v", err)
		}
		defer f.Close()
		r = f
	}
	c := pf.context("", "", "")
	def := server.Request{Cwd: c.Cwd, Workspace: c.Workspace, Home: c.Home, Shell: c.Shell, FollowSymlinks: c.FollowSymlinks}
	bad := 0
	// Each line is graded with the configuration found from its own cwd
	// (else workspace; else the defaults'), as serve does.
	s, err := server.New(ctx, func(context.Context) (*engine.Engine, error) { return e, nil },
		server.WithDefaults(def), server.WithConfigs(pf.configFor, 0),
		server.WithBadLine(func(line int, reason string) {
			bad++
			fmt.Fprintf(stdio.Err, "rivumi: %s:%d: %s\n", name, line, reason)
		}))
	if err != nil {
		return err
	}
	if err := s.ServeStdio(ctx, r, stdio.Out); err != nil {
		return exitf(ExitError, "%s: %v", name, err)
	}
	if bad > 0 {
		return exitf(ExitError, "%s: %d unreadable request(s), each answered by a deny line", name, bad)
	}
	return nil
}

func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

func runExplain(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("policy explain", stdio)
	var pf policyFlags
	pf.register(fs.FlagSet)
	format := fs.String("format", "text", "output format: text or json")
	var sg standingGrants // evalgrants.go
	sg.register(fs.FlagSet)
	var tf traceFlags // explaintrace.go
	tf.register(fs.FlagSet)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		if m := fs.Arg(0); tf.mode.set && fs.NArg() > 1 && (m == string(engine.TraceFails) || m == string(engine.TraceFull)) {
			return exitf(ExitError, "policy explain: the trace mode is joined to the flag: --trace=%s", m)
		}
		return exitf(ExitError, "%s", commandArgsProblem("policy explain", fs.Args()))
	}
	if *format != "text" && *format != "json" {
		return exitf(ExitError, "unknown --format %q (want text or json)", *format)
	}
	e, err := pf.newEngine(ctx)
	if err != nil {
		return err
	}
	grants, grantsFile, err := sg.load(&pf)
	if err != nil {
		return exitf(ExitError, "policy explain: %v", err)
	}
	evalOpts := append(pf.evalOptions("", "", ""), engine.Grants(grants))
	var x engine.Explanation
	var t *engine.Trace
	if tf.on() {
		if x, t, err = e.Trace(ctx, fs.Arg(0), tf.options(), evalOpts...); err != nil {
			var pe *engine.PolicyError
			if errors.As(err, &pe) {
				return exitf(ExitPolicyError, "policy explain --trace: %v", err)
			}
			return exitf(ExitError, "policy explain --trace: %v", err)
		}
	} else {
		x = e.Explain(ctx, fs.Arg(0), evalOpts...)
	}
	if *format == "json" {
		enc := json.NewEncoder(stdio.Out)
		enc.SetIndent("", "  ")
		var v any = x
		if t != nil {
			v = tracedExplanation{Explanation: x, Trace: t}
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
	} else {
		printExplanation(stdio.Out, x)
		noteGrants(stdio.Out, x.Verdict, grants, grantsFile)
		if t != nil {
			printTrace(stdio.Out, t)
		}
	}
	if t != nil && t.Mismatches > 0 {
		// Never silent: the trace does not explain this verdict.
		return exitf(ExitInternal, "policy explain --trace: on %d segment(s) the traced Rego evaluation differs from the engine's answer (a bug in rivumi: please report it with this command)", t.Mismatches)
	}
	return decisionExit(x.Verdict.Decision)
}
