package engine

import (
	"context"

	"github.com/rivumi/rivumi/rules"
	"github.com/rivumi/rivumi/verdict"
)

// Context is where a command runs ([verdict.Context]).
type Context = verdict.Context

// ContextOptions returns the evaluation options for c's non-empty fields.
func ContextOptions(c Context) []EvalOption {
	var o []EvalOption
	if c.Cwd != "" {
		o = append(o, Cwd(c.Cwd))
	}
	if c.Workspace != "" {
		o = append(o, Workspace(c.Workspace))
	}
	if c.Home != "" {
		o = append(o, Home(c.Home))
	}
	if c.Shell != "" {
		o = append(o, Shell(c.Shell))
	}
	if len(c.Grants) > 0 {
		o = append(o, Grants(c.Grants))
	}
	if c.FollowSymlinks {
		o = append(o, FollowSymlinks(true))
	}
	return o
}

// TestcaseContext is the context a testcase states.
func TestcaseContext(tc rules.Testcase) Context {
	c := Context{Cwd: tc.Cwd, Workspace: tc.Workspace, Home: tc.Home, Shell: tc.Shell}
	for _, g := range tc.Grants {
		c.Grants = append(c.Grants, Grant{Prefix: g.Prefix, Rules: g.Rules})
	}
	return c
}

// KnownShell reports whether name ("" for the default, bash) is a dialect
// the parser grades ([verdict.KnownShell]).
func KnownShell(name string) bool { return verdict.KnownShell(name) }

// Grade validates r and grades it: the engine as a [verdict.Grader]. An
// invalid request is an error (and no verdict).
func (e *Engine) Grade(ctx context.Context, r verdict.Request) (Verdict, error) {
	if err := r.Validate(); err != nil {
		return Verdict{}, err
	}
	if r.Command != nil {
		return e.EvaluateText(ctx, *r.Command, ContextOptions(r.Context())...), nil
	}
	return e.EvaluateArgv(ctx, r.Argv, ContextOptions(r.Context())...), nil
}
