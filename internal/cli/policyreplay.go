package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rivumi/rivumi/replay"
)

func init() {
	register("policy replay", "re-grade past decision logs with a candidate policy and report the verdicts it would change (text, JSON or HTML)", runReplay)
	describe("policy replay", "[flags] --candidate DIR LOG...", replayHelp)
}

const replayHelp = `Reads decision logs — rivumi's audit log (the hooks', serve's and run's
grade entries) and OPA decision logs of rivumi-opa — and grades every
recorded request twice: with the policy in force (the built-in packs,
--policy and the configuration, as policy eval) and with the candidate
(the same plus the packs in --candidate). It reports what would change:
counts by old → new verdict (those that became allow first), the commands
behind each (redacted), the rules gained and lost, and the lines it could
not replay and why (a redacted command is never guessed). It streams:
memory holds counts and a few examples, never the log.

Text or JSON on stdout; --format html writes one self-contained HTML page
instead (no script, nothing loaded from elsewhere: a CI artifact or a mail
attachment), and --html FILE writes that page besides the text or JSON.

Exit: 0, or 3 when --fail-on holds (for CI); 1 on a usage or read error,
4 when a policy does not load.`

func runReplay(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("policy replay", stdio)
	var pf policyFlags
	fs.Var(&pf.policyDirs, "policy", "directory of user Rego packs in force now (package rivumi.user…); repeatable")
	pf.registerTimeout(fs.FlagSet)
	var candidate stringList
	fs.Var(&candidate, "candidate", "directory of user Rego packs the candidate adds to the policy in force; repeatable")
	format := fs.String("format", "text", "output format: text, json or html")
	htmlOut := fs.String("html", "", "also write the report as one HTML page to `FILE`")
	title := fs.String("title", "rivumi policy replay", "the HTML page's `TITLE`")
	failOn := fs.String("fail-on", "none", "exit 3 when the candidate would: allow-increase (allow what is now asked or denied), loosen (make any verdict more lenient), any-change, or none")
	samples := fs.Int("samples", 5, "commands kept per change and per reason a line was skipped")
	noConfig := fs.Bool("no-config", false, "ignore the user's and the project's configuration files (both policies)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "text" && *format != "json" && *format != "html" {
		return exitf(ExitError, "policy replay: unknown --format %q (want text, json or html)", *format)
	}
	on, err := replay.ParseFailOn(*failOn)
	if err != nil {
		return exitf(ExitError, "policy replay: --fail-on: %v", err)
	}
	if len(candidate) == 0 {
		return exitf(ExitError, "policy replay: name the candidate's packs with --candidate DIR")
	}
	if fs.NArg() == 0 {
		return exitf(ExitError, "policy replay: name one or more decision logs (- for stdin)")
	}
	configOpts := pf.configOptions(ctx)
	if *noConfig {
		configOpts = nil
	}
	current, err := pf.newEngineWith(ctx, configOpts)
	if err != nil {
		return err
	}
	cf := pf
	cf.policyDirs = append(append(stringList(nil), pf.policyDirs...), candidate...)
	next, err := cf.newEngineWith(ctx, configOpts)
	if err != nil {
		return err
	}
	var logs []replay.Log
	for _, name := range fs.Args() {
		if name == "-" {
			logs = append(logs, replay.Log{Name: "-", R: stdio.In})
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return exitf(ExitError, "policy replay: %v", err)
		}
		defer f.Close()
		logs = append(logs, replay.Log{Name: name, R: f})
	}
	// The candidate's rules are the current ones and its own.
	meta := next.Rules()
	o := replay.Options{Samples: *samples, Title: func(id string) string { return ruleTitle(meta, id) }}
	if f, ok := stdio.Err.(*os.File); ok && isTerminal(f) {
		o.Progress = func(lines int, elapsed time.Duration) {
			fmt.Fprintf(stdio.Err, "\rrivumi: replayed %d lines in %s", lines, elapsed.Round(time.Second))
		}
	}
	s, err := replay.Replay(ctx, logs, replay.EngineGrader(current), replay.EngineGrader(next), o)
	if o.Progress != nil {
		fmt.Fprintln(stdio.Err)
	}
	if err != nil {
		return exitf(ExitError, "policy replay: %v", err)
	}
	switch *format {
	case "json":
		err = replay.WriteJSON(stdio.Out, s)
	case "html":
		err = replay.WriteHTML(stdio.Out, s, *title)
	default:
		err = replay.WriteText(stdio.Out, s)
	}
	if err != nil {
		return exitf(ExitError, "policy replay: %v", err)
	}
	if *htmlOut != "" {
		if err := writeFileAtomic(*htmlOut, func(w io.Writer) error { return replay.WriteHTML(w, s, *title) }); err != nil {
			return exitf(ExitError, "policy replay: %v", err)
		}
		fmt.Fprintf(stdio.Err, "wrote %s\n", *htmlOut)
	}
	if s.Fails(on) {
		return exitf(ExitTestFailed, "policy replay: --fail-on %s holds: the candidate changes verdicts that way", on)
	}
	return nil
}
