package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/verdict"
)

func init() {
	register("grant add", "record a per-project grant: an argv prefix and the ask rules it cancels", grantAdd)
	describe("grant add", "[flags] -- PROGRAM [SUBCOMMAND...]", grantAddHelp)
	register("grant list", "list the project's grants", grantList)
	register("grant rm", "remove the project's grant for an argv prefix", grantRm)
}

const grantAddHelp = `A grant cancels only the named ask rules, on commands whose argv starts
with the prefix; never deny or floor rules. Grants of programs that can
run anything (shells, interpreters, env, sudo, xargs, find, git alone, …)
are refused.`

// ruleList collects repeated --rule flags.
type ruleList []string

func (r *ruleList) String() string     { return strings.Join(*r, ",") }
func (r *ruleList) Set(s string) error { *r = append(*r, s); return nil }
func (r *ruleList) Type() string       { return "string" }

func grantAdd(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("grant add", stdio)
	grantsFile := fs.String("grants", "", "grants `FILE` (default: the project's, under $XDG_CONFIG_HOME/rivumi/grants)")
	dir := fs.String("C", "", "the project is the one containing `DIR` (default: the current directory)")
	var rules ruleList
	fs.Var(&rules, "rule", "ask rule `ID` the grant cancels (repeatable; default: the grantable asks the policy raises for the prefix)")
	fs.SetInterspersed(false) // the operands are an argv: its flags are its own
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	prefix := fs.Args()
	if len(prefix) == 0 {
		return exitf(ExitError, "grant add: no prefix given")
	}
	store, err := grantStore(*grantsFile, *dir)
	if err != nil {
		return exitf(ExitError, "grant add: %v", err)
	}
	cwd, err := workDir(*dir)
	if err != nil {
		return exitf(ExitError, "grant add: %v", err)
	}
	root, _ := grant.ProjectRoot(cwd)
	// The program is recorded as it will be matched: a bare name as it
	// is, a file of the workspace as ./path, any other path absolute.
	word := parser.GrantWord(prefix[0], cwd, root)
	if word == "" {
		return exitf(ExitError, "grant add: cannot tell which file %q is", prefix[0])
	}
	if len(rules) == 0 {
		grader, err := newGrader(ctx, &policyFlags{})
		if err != nil {
			return exitf(ExitPolicyError, "grant add: %v", err)
		}
		v, err := grader.Grade(ctx, verdict.Request{Argv: prefix, Cwd: cwd, Workspace: root, FollowSymlinks: true})
		if err != nil {
			return exitf(ExitError, "grant add: grading %s: %v", quoteWords(prefix), err)
		}
		rules = grantableRules(v)
		if len(rules) == 0 {
			return exitf(ExitError, "grant add: nothing to grant: %s raises no grantable ask (verdict %s); name rules with --rule", quoteWords(prefix), v.Decision)
		}
	}
	g := engine.Grant{Prefix: append([]string{word}, prefix[1:]...), Rules: slices.Compact(slices.Sorted(slices.Values(rules)))}
	if err := store.Add(g); err != nil {
		return exitf(ExitError, "grant add: %v", err)
	}
	fmt.Fprintf(stdio.Out, "granted %s for %s\n", quoteWords(g.Prefix), strings.Join(g.Rules, ", "))
	return nil
}

func grantList(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("grant list", stdio)
	grantsFile := fs.String("grants", "", "grants `FILE` (default: the project's)")
	dir := fs.String("C", "", "the project is the one containing `DIR`")
	asJSON := fs.Bool("json", false, "print a JSON array of {prefix, rules}")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return exitf(ExitError, "grant list: unexpected arguments %q", fs.Args())
	}
	store, err := grantStore(*grantsFile, *dir)
	if err != nil {
		return exitf(ExitError, "grant list: %v", err)
	}
	grants := store.List()
	if *asJSON {
		if grants == nil {
			grants = []engine.Grant{}
		}
		b, err := json.MarshalIndent(grants, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(stdio.Out, "%s\n", b)
		return nil
	}
	for _, g := range grants {
		fmt.Fprintf(stdio.Out, "%s\t%s\n", strings.Join(g.Prefix, " "), strings.Join(g.Rules, ","))
	}
	return nil
}

func grantRm(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("grant rm", stdio)
	grantsFile := fs.String("grants", "", "grants `FILE` (default: the project's)")
	dir := fs.String("C", "", "the project is the one containing `DIR`")
	fs.SetInterspersed(false) // the operands are an argv: its flags are its own
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	prefix := fs.Args()
	if len(prefix) == 0 {
		return exitf(ExitError, "grant rm: no prefix given; usage: rivumi grant rm [flags] -- PREFIX...")
	}
	store, err := grantStore(*grantsFile, *dir)
	if err != nil {
		return exitf(ExitError, "grant rm: %v", err)
	}
	ok, err := store.Remove(prefix)
	if err != nil {
		return exitf(ExitError, "grant rm: %v", err)
	}
	if !ok {
		return exitf(ExitError, "grant rm: no grant for %s", quoteWords(prefix))
	}
	fmt.Fprintf(stdio.Out, "removed %s\n", quoteWords(prefix))
	return nil
}

// grantStore opens the grants file, or the default one of the project
// containing dir.
func grantStore(file, dir string) (*grant.Store, error) {
	cwd, err := workDir(dir)
	if err != nil {
		return nil, err
	}
	root, err := grant.ProjectRoot(cwd)
	if err != nil {
		return nil, err
	}
	return openGrants(file, root)
}
