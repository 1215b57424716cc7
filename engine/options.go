package engine

import (
	"io/fs"
	"time"
)

// Option configures New.
type Option func(*config)

type config struct {
	userDirs []string
	userFS   []namedFS
	extra    []Source
	// cacheSize overrides DefaultCacheSize when set.
	cacheSize *int
	// evalTimeout overrides DefaultEvalTimeout when set.
	evalTimeout *time.Duration
	// authoring holds YAML rules, switches and standing grants (engine/yaml.go, issue 4).
	authoring authoring
	// regoOnly grades every verdict with OPA, never the Go rules.
	regoOnly bool
}

type namedFS struct {
	name string
	fsys fs.FS
}

// DefaultCacheSize is how many segment results, and how many verdicts, an
// Engine remembers.
const DefaultCacheSize = 4096

// CacheSize sets how many segment results, and how many whole verdicts of
// EvaluateText, the engine remembers (0 turns both caches off). A segment's
// result depends only on its facts, the grants and the compiled policy; a
// verdict only on the text, the evaluation options and the policy: a hit
// is exact. Commands over 4 KiB are not remembered.
func CacheSize(n int) Option { return func(c *config) { c.cacheSize = &n } }

// RegoOnly makes the engine grade every command with OPA over the Rego
// packs, never with their Go mirror (policies/native), which it otherwise
// uses when the embedded packs run alone. Verdicts are the same
// (TestNativeMatchesRego, TestNativeVerdicts); the Rego path is slower.
func RegoOnly() Option { return func(c *config) { c.regoOnly = true } }

// DefaultEvalTimeout is the deadline of one evaluation on every surface
// (policy eval and --batch, run, the hooks, serve) unless the caller's
// context ends sooner. Past it the verdict is deny by [RuleTimeout].
const DefaultEvalTimeout = 5 * time.Second

// EvalTimeout sets the deadline of one evaluation (default
// DefaultEvalTimeout; 0 or less: only the caller's context bounds it).
func EvalTimeout(d time.Duration) Option { return func(c *config) { c.evalTimeout = &d } }

// Source is one policy file given directly (for tests and generated rules).
type Source struct {
	Name string // file name used in error positions
	Text string // Rego source (package rivumi.user or below) or JSON data
}

// UserDir adds the *.rego files of a directory (recursively; _test.rego
// files are skipped) as user packs. Their packages must be rivumi.user or
// below it.
func UserDir(dir string) Option { return func(c *config) { c.userDirs = append(c.userDirs, dir) } }

// UserFS is like UserDir for a file system; name prefixes file names in
// error positions.
func UserFS(name string, fsys fs.FS) Option {
	return func(c *config) { c.userFS = append(c.userFS, namedFS{name, fsys}) }
}

// UserModule adds one user Rego module.
func UserModule(name, text string) Option {
	return func(c *config) { c.extra = append(c.extra, Source{Name: name, Text: text}) }
}

// EvalOption configures one evaluation.
type EvalOption func(*evalConfig)

type evalConfig struct {
	cwd, workspace, home, shell string
	grants                      []Grant
	follow                      bool
}

// Cwd sets the directory the command starts in (absolute).
func Cwd(dir string) EvalOption { return func(c *evalConfig) { c.cwd = dir } }

// Workspace sets the project root (absolute); paths inside it are the
// workspace.
func Workspace(dir string) EvalOption { return func(c *evalConfig) { c.workspace = dir } }

// Home sets the user's home directory (absolute).
func Home(dir string) EvalOption { return func(c *evalConfig) { c.home = dir } }

// Shell sets the dialect the command is parsed in: bash (default), sh, zsh.
func Shell(name string) EvalOption { return func(c *evalConfig) { c.shell = name } }

// FollowSymlinks grades paths where they point on this machine's disk
// ([parser.FollowSymlinks]): for hooks, `rivumi run`, the workspace tools
// and serve answering for a local agent. Verdicts graded so are not kept
// in the verdict cache (a link may appear between two calls with the same
// text); segment results still are, their classes being part of the key.
func FollowSymlinks(on bool) EvalOption { return func(c *evalConfig) { c.follow = on } }

// Grants sets the session grants in force.
func Grants(g []Grant) EvalOption { return func(c *evalConfig) { c.grants = g } }
