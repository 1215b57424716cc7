package verdict

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rivumi/rivumi/parser"
)

// Context is where a command runs, as callers (CLI, server, hooks, tests)
// know it. Empty fields are left to the defaults. FollowSymlinks says the
// command runs on this machine: paths are graded where they point on its
// disk (lstat only).
type Context struct {
	Cwd, Workspace, Home, Shell string
	Grants                      []Grant
	FollowSymlinks              bool
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

// Request asks for one verdict: the one request type of every grading
// path (the CLI, `rivumi serve`'s API, the hooks, the harness, the
// workspace tools, MCP). Exactly one of Command and Argv is set. Paths
// must be absolute; without Cwd and Workspace, relative paths in the
// command count as inside an unknown workspace. A server fills the fields
// a request leaves empty from its defaults, but for a request that names
// its Cwd and no Workspace the workspace is that cwd's project (the
// nearest directory holding .git when FollowSymlinks, else the cwd), never
// the server's. FollowSymlinks grades paths where they point on the disk
// of the machine that grades; ask for it only when the command runs there
// (the hooks do).
type Request struct {
	Command   *string  `json:"command,omitempty"`
	Argv      []string `json:"argv,omitempty"`
	Cwd       string   `json:"cwd,omitempty"`
	Workspace string   `json:"workspace,omitempty"`
	Home      string   `json:"home,omitempty"`
	Shell     string   `json:"shell,omitempty"`
	Grants    []Grant  `json:"grants,omitempty"`
	// FollowSymlinks: resolve operands, redirect and cd targets through
	// the symlinks on this machine's disk (lstat only).
	FollowSymlinks bool `json:"follow_symlinks,omitempty"`
}

// Text returns a request for grading command text.
func Text(command string) Request { return Request{Command: &command} }

// Validate reports what is wrong with r, or nil: exactly one of command
// and argv, a non-empty argv, and a usable context ([Context.Validate]).
func (r *Request) Validate() error {
	switch {
	case r.Command == nil && r.Argv == nil:
		return errors.New(`missing "command" or "argv"`)
	case r.Command != nil && r.Argv != nil:
		return errors.New(`give "command" or "argv", not both`)
	case r.Argv != nil && len(r.Argv) == 0:
		return errors.New(`empty "argv"`)
	}
	return r.Context().Validate()
}

// Context is the request's context: everything but the command.
func (r *Request) Context() Context {
	return Context{Cwd: r.Cwd, Workspace: r.Workspace, Home: r.Home, Shell: r.Shell, Grants: r.Grants,
		FollowSymlinks: r.FollowSymlinks}
}

// Grader grades requests: the engine in-process, a client of a running
// `rivumi serve`, a remote OPA, or a test double. An invalid request is an
// error (and no verdict); so is a grader that cannot answer. Callers treat
// an error, and any verdict whose decision is not a decision, as deny.
type Grader interface {
	Grade(ctx context.Context, r Request) (Verdict, error)
}

// GraderFunc adapts a function to [Grader].
type GraderFunc func(ctx context.Context, r Request) (Verdict, error)

// Grade calls f.
func (f GraderFunc) Grade(ctx context.Context, r Request) (Verdict, error) { return f(ctx, r) }
