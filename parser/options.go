package parser

import (
	"github.com/rivumi/rivumi/internal/winpath"
	"github.com/rivumi/rivumi/programs"
	"github.com/rivumi/rivumi/rules"
)

// Option configures Parse and FromArgv.
type Option func(*config)

type config struct {
	shell        string
	workspace    string // absolute, or "" (unknown: relative paths are taken as inside it)
	cwd          string // absolute, or "" (the workspace)
	home         string // absolute home directory, or "" (only ~ and $HOME denote it)
	follow       bool   // resolve paths through the symlinks on disk
	maxBytes     int
	maxDepth     int
	maxRecursion int
	maxSegments  int
	team         *rules.TeamPrograms // a configuration's programs (nil: none)
}

// Default limits. A limit hit is recorded in [Shape.Limit]; the engine
// denies such commands.
const (
	DefaultMaxBytes     = 256 << 10
	DefaultMaxDepth     = 100
	DefaultMaxRecursion = 8
	DefaultMaxSegments  = 1000
)

// setConfig sets *c to the defaults changed by opts. (It fills a config
// in place, in the walker that holds it: a config passed to the options
// would escape to the heap.)
func setConfig(c *config, opts []Option) {
	*c = config{
		shell:        "bash",
		maxBytes:     DefaultMaxBytes,
		maxDepth:     DefaultMaxDepth,
		maxRecursion: DefaultMaxRecursion,
		maxSegments:  DefaultMaxSegments,
	}
	for _, o := range opts {
		o(c)
	}
}

// Shell sets the dialect: "bash" (the default), "sh" (POSIX) or "zsh".
// Unknown names parse as bash. In zsh, expansions the parser cannot know
// (glob qualifiers, parameter flags) make the command dynamic.
func Shell(name string) Option { return func(c *config) { c.shell = dialectName(name) } }

// Workspace sets the absolute path of the workspace (the project root).
// Paths inside it are classed "workspace". This and [Cwd] and [Home] take
// Windows drive paths too (C:\Users\x is /c/Users/x, as in Git Bash).
func Workspace(dir string) Option { return func(c *config) { c.workspace = cleanAbs(dir) } }

// Cwd sets the absolute directory the command starts in (default: the
// workspace).
func Cwd(dir string) Option { return func(c *config) { c.cwd = cleanAbs(dir) } }

// Home sets the absolute home directory, so that /home/me/x is classed like
// ~/x. Without it only ~ and $HOME denote home.
func Home(dir string) Option { return func(c *config) { c.home = cleanAbs(dir) } }

// FollowSymlinks grades paths where they point: operands, redirect
// targets, write and read targets and cd targets are resolved through the
// symlinks that exist on disk now ([realpath.Graded]: lstat and readlink,
// no file is read), and each is classed by the stricter of the path as
// written and its target ([Operand.Class], with the other class in
// [Operand.LinkClass]). A path that cannot be resolved (a loop, a
// permission error) is classed [ClassDynamic] through LinkClass. A cd
// whose logical and physical meanings differ (a link followed by ..)
// leaves the cwd unknown. Use it only when the command runs on this
// machine, in the workspace given: without it (the pure-text mode of the
// OPA bundle and `policy eval --no-fs`) nothing on disk is looked at.
// Resolution needs an absolute workspace; paths relative to an unknown
// workspace or home are not resolved. It does nothing on Windows.
func FollowSymlinks() Option { return func(c *config) { c.follow = true } }

// Programs adds a team's descriptions of programs rivumi does not know
// ([rules.TeamPrograms]): their option style, options and subcommands,
// code options and runs-anything. They are consulted only for names the
// built-in registry does not know (a team entry never names one). The
// value travels with the parse, so concurrent parses of different
// configurations each read their own.
func Programs(t *rules.TeamPrograms) Option { return func(c *config) { c.team = t } }

// MaxBytes limits the input size (default [DefaultMaxBytes]).
func MaxBytes(n int) Option { return func(c *config) { c.maxBytes = n } }

// MaxDepth limits the nesting depth of the syntax tree (default
// [DefaultMaxDepth]).
func MaxDepth(n int) Option { return func(c *config) { c.maxDepth = n } }

// MaxRecursion limits how deep inline scripts (bash -c 'bash -c …') are
// parsed again (default [DefaultMaxRecursion]).
func MaxRecursion(n int) Option { return func(c *config) { c.maxRecursion = n } }

// MaxSegments limits the number of segments (default [DefaultMaxSegments]).
func MaxSegments(n int) Option { return func(c *config) { c.maxSegments = n } }

// KnownShell reports whether [Shell] takes name (a dialect, or a path to a
// shell) as a dialect it knows, rather than as the bash fallback.
func KnownShell(name string) bool { return baseName(name) == "bash" || dialectName(name) != "bash" }

// dialectName maps a shell's name or path to a dialect: "posix", or the
// registry's dialect of the program (programs.Dialect).
func dialectName(s string) string {
	b := baseName(s)
	if b == "posix" {
		return "sh"
	}
	return programs.Dialect(b)
}

func cleanAbs(p string) string {
	if d, ok := winpath.Drive(p); ok {
		p = d // C:\Users\x (rivumi on Windows): /c/Users/x
	}
	if p == "" || p[0] != '/' {
		return ""
	}
	return cleanPath(p)
}
