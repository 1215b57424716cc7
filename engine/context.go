package engine

import "github.com/rivumi/rivumi/rules"

// Context is where a command runs, as callers (CLI, server, hooks, tests)
// know it. Empty fields are left to the defaults. FollowSymlinks says the
// command runs on this machine: paths are graded where they point
// ([FollowSymlinks]).
type Context struct {
	Cwd, Workspace, Home, Shell string
	Grants                      []Grant
	FollowSymlinks              bool
}

// Options returns the evaluation options for the context's non-empty fields.
func (c Context) Options() []EvalOption {
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
