package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rivumi/rivumi/engine"
)

func init() {
	register("policy eval", "grade a command (or JSON Lines with --batch)", runEval)
	register("policy explain", "show segments, facts and every rule hit for a command", runExplain)
}

func runEval(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("policy eval", stdio)
	var pf policyFlags
	pf.register(fs)
	format := fs.String("format", "text", "output format: text or json")
	batch := fs.String("batch", "", "read JSON Lines commands from FILE (- for stdin); writes one JSON verdict per line")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return exitf(ExitError, "unknown --format %q (want text or json)", *format)
	}
	if *batch == "" && fs.NArg() != 1 {
		return exitf(ExitError, "usage: rivumi policy eval [flags] COMMAND (quote the command as one argument)")
	}
	e, err := pf.newEngine(ctx)
	if err != nil {
		return err
	}
	if *batch != "" {
		return evalBatch(ctx, e, &pf, *batch, stdio)
	}
	v := e.EvaluateText(ctx, fs.Arg(0), pf.evalOptions("", "", "")...)
	if *format == "json" {
		if err := writeJSONLine(stdio.Out, batchOut{Command: fs.Arg(0), Verdict: v}); err != nil {
			return err
		}
	} else {
		printVerdict(stdio.Out, fs.Arg(0), v)
	}
	return decisionExit(v.Decision)
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

// batchIn is one line of --batch input.
type batchIn struct {
	Command   *string        `json:"command"`
	Cwd       string         `json:"cwd"`
	Workspace string         `json:"workspace"`
	Shell     string         `json:"shell"`
	Grants    []engine.Grant `json:"grants"`
}

// batchOut is one line of --batch output (and of eval --format json).
type batchOut struct {
	Command string `json:"command"`
	engine.Verdict
	Error string `json:"error,omitempty"`
}

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
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	w := bufio.NewWriter(stdio.Out)
	defer w.Flush()
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var in batchIn
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		err := dec.Decode(&in)
		if err == nil && in.Command == nil {
			err = fmt.Errorf("missing field \"command\"")
		}
		if err != nil {
			// Bad input loses nothing: one deny line per input line, saying why.
			msg := fmt.Sprintf("%s:%d: %s", name, line, jsonFieldError(err))
			fmt.Fprintf(stdio.Err, "rivumi: %s\n", msg)
			out := batchOut{Verdict: engine.Verdict{Decision: engine.Deny, Policy: e.PolicyHash(), Reasons: []engine.Reason{{
				Rule: "engine.bad-input", Layer: engine.LayerEngine, Decision: engine.Deny, Segment: -1, Justification: msg,
			}}}, Error: msg}
			if err := writeJSONLine(w, out); err != nil {
				return err
			}
			continue
		}
		v := e.EvaluateText(ctx, *in.Command, append(pf.evalOptions(in.Cwd, in.Workspace, in.Shell), engine.Grants(in.Grants))...)
		if err := writeJSONLine(w, batchOut{Command: *in.Command, Verdict: v}); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return exitf(ExitError, "%s:%d: %v", name, line+1, err)
	}
	return nil
}

// jsonFieldError names the offending field of a JSON decoding error.
func jsonFieldError(err error) string {
	var te *json.UnmarshalTypeError
	if ok := asType(err, &te); ok {
		return fmt.Sprintf("field %q: expected %s, got %s", te.Field, te.Type, te.Value)
	}
	return err.Error()
}

func asType[T error](err error, target *T) bool {
	t, ok := err.(T)
	if ok {
		*target = t
	}
	return ok
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
	pf.register(fs)
	format := fs.String("format", "text", "output format: text or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return exitf(ExitError, "usage: rivumi policy explain [flags] COMMAND")
	}
	e, err := pf.newEngine(ctx)
	if err != nil {
		return err
	}
	x := e.Explain(ctx, fs.Arg(0), pf.evalOptions("", "", "")...)
	if *format == "json" {
		enc := json.NewEncoder(stdio.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(x); err != nil {
			return err
		}
	} else {
		printExplanation(stdio.Out, x)
	}
	return decisionExit(x.Verdict.Decision)
}
