package engine

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/rules"
)

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

// Validate reports the first field of c that cannot be used, naming it:
// cwd, workspace and home must be absolute (or empty), the shell one the
// parser knows (bash, sh, zsh and their kin: dash, ash, ksh, mksh, posix;
// a path to one counts by its base name), each grant a non-empty prefix
// and rule list. Nothing is silently dropped or replaced.
func (c Context) Validate() error {
	for _, f := range []struct{ name, v string }{{"cwd", c.Cwd}, {"workspace", c.Workspace}, {"home", c.Home}} {
		if f.v != "" && !filepath.IsAbs(f.v) {
			return fmt.Errorf("%q must be an absolute path, not %q", f.name, f.v)
		}
		if strings.ContainsRune(f.v, 0) {
			return fmt.Errorf("%q contains a NUL byte", f.name)
		}
	}
	if !KnownShell(c.Shell) {
		return fmt.Errorf(`"shell" must be bash, sh or zsh, not %q`, c.Shell)
	}
	for i, g := range c.Grants {
		if len(g.Prefix) == 0 || len(g.Rules) == 0 {
			return fmt.Errorf("grant %d: needs a non-empty \"prefix\" and \"rules\"", i)
		}
	}
	return nil
}

// KnownShell reports whether name ("" for the default, bash) is a dialect
// the parser grades ([parser.KnownShell]).
func KnownShell(name string) bool { return name == "" || parser.KnownShell(name) }
