// The policy flags every grading command shares (--policy, --workspace,
// --shell, --cwd …) and the engine and evaluation options they make.

package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/spf13/pflag"
)

// policyFlags are the flags every command that grades takes.
type policyFlags struct {
	policyDirs stringList
	cwd        string
	workspace  string
	shell      string
	// evalTimeout is the deadline of one evaluation (0: the engine's default).
	evalTimeout time.Duration
	// noFS grades the text alone: no path is resolved through symlinks.
	noFS bool
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
func (s *stringList) Type() string       { return "string" }

func (p *policyFlags) register(fs *pflag.FlagSet) {
	fs.Var(&p.policyDirs, "policy", "directory of user Rego packs (package rivumi.user…); repeatable")
	fs.StringVar(&p.cwd, "cwd", "", "directory the command runs in (default: the current directory)")
	fs.StringVar(&p.workspace, "workspace", "", "project root (default: the cwd)")
	fs.StringVar(&p.shell, "shell", "bash", "shell dialect: bash, sh or zsh")
	fs.BoolVar(&p.noFS, "no-fs", false, "grade the text alone: do not resolve paths through the symlinks on disk (the OPA bundle's mode)")
	p.registerTimeout(fs)
}

// registerTimeout adds --eval-timeout (serve registers it alone).
func (p *policyFlags) registerTimeout(fs *pflag.FlagSet) {
	fs.DurationVar(&p.evalTimeout, "eval-timeout", engine.DefaultEvalTimeout, "deadline of one evaluation; past it the verdict is deny (engine.timeout)")
}

// newEngine compiles the embedded packs plus the user packs; a policy
// problem exits with ExitPolicyError.
func (p *policyFlags) newEngine(ctx context.Context) (*engine.Engine, error) {
	return p.newEngineWith(ctx, p.configOptions(ctx)) // user and project config files (trust.go)
}

// newEngineWith is newEngine with the configuration's options given.
func (p *policyFlags) newEngineWith(ctx context.Context, configOpts []engine.Option) (*engine.Engine, error) {
	var opts []engine.Option
	for _, d := range p.policyDirs {
		opts = append(opts, engine.UserDir(d))
	}
	opts = append(opts, configOpts...)
	if p.evalTimeout > 0 {
		opts = append(opts, engine.EvalTimeout(p.evalTimeout))
	}
	e, err := engine.New(ctx, opts...)
	if err != nil {
		var pe *engine.PolicyError
		if errors.As(err, &pe) {
			return nil, exitf(ExitPolicyError, "%s", strings.Join(pe.Problems, "\n"))
		}
		return nil, exitf(ExitPolicyError, "%v", err)
	}
	return e, nil
}

// evalOptions returns the evaluation options for a command run in cwd
// within workspace (each defaulting as documented on the flags).
func (p *policyFlags) evalOptions(cwd, workspace, shell string) []engine.EvalOption {
	return engine.ContextOptions(p.context(cwd, workspace, shell))
}

// context is where a command runs: the given values, else the flags', else
// the current directory (cwd and workspace) and the user's home.
func (p *policyFlags) context(cwd, workspace, shell string) engine.Context {
	if cwd == "" {
		cwd = p.cwd
	}
	if workspace == "" {
		workspace = p.workspace
	}
	if shell == "" {
		shell = p.shell
	}
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	if workspace == "" {
		workspace = cwd
	}
	c := engine.Context{Cwd: abs(cwd), Workspace: abs(workspace), Shell: shell, FollowSymlinks: !p.noFS}
	if home, err := os.UserHomeDir(); err == nil && home != "" && home != "/" {
		c.Home = home
	}
	return c
}

func abs(p string) string {
	if p == "" {
		return ""
	}
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}
