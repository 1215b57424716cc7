package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/report"
)

func init() {
	register("audit report", "summarise a decision log: asks and denies by rule with examples, sources, uncovered commands, decisions over time (text or HTML)", runAuditReport)
	helps["audit report"] = help{
		synopsis: "[flags] [LOG...]",
		description: `Reads decision logs — rivumi's audit log (the hooks, 'rivumi serve',
'rivumi run'; default $XDG_STATE_HOME/rivumi/audit.jsonl) or OPA's decision
logs of rivumi-opa — and summarises what rivumi decided and, for calls
graded in shadow mode, what it would have decided: the verdicts, the asks
and denies by rule (each with its title and its most frequent commands,
as logged: the writers redact secrets), the verdicts by source (hooks,
serve, run, workspace, OPA), the most frequent commands no rule covers
with the rule to paste (titles and rules from the policy in force here:
--policy and the configuration files), and the decisions over time. Text
on stdout; with --html FILE, one self-contained HTML page with charts (no
script, nothing loaded from elsewhere), whose header links to the page
of a policy replay with --replay-page. Unreadable lines are listed, not
counted.`,
		examples: append(helps["audit report"].examples,
			`rivumi audit report --html report.html --replay-page replay.html decisions.jsonl`),
	}
}

func runAuditReport(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("audit report", stdio)
	var pf policyFlags
	pf.register(fs.FlagSet)
	htmlOut := fs.String("html", "", "also write the report as one HTML page to `FILE` (- for stdout, instead of the text)")
	top := fs.Int("top", 10, "list the `N` most frequent rules and uncovered commands")
	title := fs.String("title", "rivumi decisions", "the HTML page's `TITLE`")
	replayPage := fs.String("replay-page", "", "link the HTML page's header to a replay's page (rivumi policy replay --html) at `URL` (or a path relative to the page)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	logs := fs.Args()
	if len(logs) == 0 {
		p, err := defaultAuditPath()
		if err != nil {
			return exitf(ExitError, "audit report: %v", err)
		}
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			return exitf(ExitError, "audit report: no audit log yet at %s (the hooks, 'rivumi serve' and 'rivumi run' write it); name a log file", p)
		}
		logs = []string{p}
	}
	var events []report.Event
	var problems []report.Problem
	for _, name := range logs {
		var r io.Reader = stdio.In
		if name != "-" {
			f, err := os.Open(name)
			if err != nil {
				return exitf(ExitError, "audit report: %v", err)
			}
			defer f.Close()
			r = f
		}
		ev, ps, err := report.Read(r, name)
		if err != nil {
			return exitf(ExitError, "audit report: %s: %v", name, err)
		}
		events, problems = append(events, ev...), append(problems, ps...)
	}
	e, err := pf.newEngine(ctx)
	if err != nil {
		return err
	}
	meta := e.Rules()
	opts := pf.evalOptions("", "", "")
	s := report.Summarize(events, problems, report.Options{
		Top:   *top,
		Title: func(id string) string { return ruleTitle(meta, id) },
		Layer: func(id string) string {
			if m, ok := meta[id]; ok {
				return string(m.Layer)
			}
			switch {
			case id == engine.RuleFallback:
				return string(engine.LayerFallback)
			case strings.HasPrefix(id, "engine."):
				return string(engine.LayerEngine)
			}
			return ""
		},
		Suggest: func(command string) (string, string) { return suggestFor(ctx, e, opts, command) },
	})
	// Only rules that load are offered (auditsuggest.go).
	var base []engine.Option
	for _, d := range pf.policyDirs {
		base = append(base, engine.UserDir(d))
	}
	if n := checkSuggestions(ctx, append(base, pf.configOptions(ctx)...), s.Uncovered); n > 0 {
		fmt.Fprintf(stdio.Err, "rivumi: %d suggested rule(s) left out: they do not load with this policy (a prefix rule cannot cover them)\n", n)
	}
	if *replayPage != "" && *htmlOut == "" {
		return exitf(ExitError, "audit report: --replay-page links the HTML page: add --html FILE")
	}
	page := func(w io.Writer) error { return report.WriteHTML(w, s, *title, report.ReplayPage(*replayPage)) }
	if *htmlOut == "-" {
		return page(stdio.Out)
	}
	if err := report.WriteText(stdio.Out, s); err != nil {
		return err
	}
	if *htmlOut != "" {
		if err := writeFileAtomic(*htmlOut, page); err != nil {
			return exitf(ExitError, "audit report: %v", err)
		}
		fmt.Fprintf(stdio.Err, "wrote %s\n", *htmlOut)
	}
	return nil
}

// engineTitles are the titles of the reasons the engine makes itself
// (engine.go's fallbackReason and its parse and empty reasons), which are
// not rules of the policy's metadata.
var engineTitles = map[string]string{
	engine.RuleFallback:   "No rule covers this command",
	engine.RuleParseError: "The command does not parse",
	engine.RuleEmpty:      "Nothing to run",
}

// ruleTitle is a rule's title from the policy's metadata, or the engine's
// own for its reasons; "" when neither knows it.
func ruleTitle(meta map[string]engine.RuleMeta, id string) string {
	if m, ok := meta[id]; ok {
		return m.Title
	}
	return engineTitles[id]
}

// writeFileAtomic writes a file through a temporary file and a rename.
func writeFileAtomic(name string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
