package cli

import (
	"context"
	"fmt"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/rules"
)

func init() {
	register("policy check", "check policies: strict compile, METADATA, YAML rules and their examples", runPolicyCheck)
	describe("policy check", "[flags] [PATH...]", policyCheckHelp)
}

const policyCheckHelp = `Loads the built-in packs with the user packs and YAML prefix rules named by
PATHs (directories searched recursively, .rego and .yaml files), --policy
and the configuration files, and reports every problem at once, each with
its location: Rego that does not parse or compile strictly, layer rules
without METADATA (title, custom.id, custom.justification), duplicate ids,
YAML rules that are invalid or whose examples fail, testcase files that do
not parse.

Exit codes: 0 no problem, 4 problems.`

func runPolicyCheck(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("policy check", stdio)
	var pf policyFlags
	pf.register(fs.FlagSet)
	format := fs.String("format", "text", "output `format`: text or github (workflow annotations)")
	noConfig := fs.Bool("no-config", false, "ignore the user's and the project's configuration files")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "text" && *format != "github" {
		return exitf(ExitError, "unknown --format %q (want text or github)", *format)
	}
	ctx = withWarnings(ctx, stdio.Err)
	s := collectSources(fs.Args())
	opts, _, problems := policyOptions(ctx, &pf, s, !*noConfig)
	e, err := engine.New(ctx, opts...)
	if err != nil {
		problems = append(problems, policyErrorProblems(err)...)
	}
	for _, f := range s.caseFiles {
		if _, err := rules.LoadTestcases(f); err != nil {
			problems = append(problems, err.Error())
		}
	}
	problems = uniqueStrings(problems)
	if len(problems) > 0 {
		r := &testReport{Problems: problems, FailUnder: -1}
		if *format == "github" {
			_ = githubReporter{}.Report(stdio.Out, r)
		} else {
			for _, p := range problems {
				fmt.Fprintln(stdio.Out, p)
			}
		}
		return exitf(ExitPolicyError, "policy check: %s", plural(len(problems), "problem"))
	}
	count := map[bool]int{}
	for _, m := range e.Rules() {
		count[m.User]++
	}
	fmt.Fprintf(stdio.Out, "ok: %s (%d built-in, %d user), %s\n",
		plural(count[false]+count[true], "rule"), count[false], count[true], plural(len(s.caseFiles), "testcase file"))
	return nil
}

// uniqueStrings drops repeated strings, keeping the first of each.
func uniqueStrings(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
