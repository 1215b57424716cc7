package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rivumi/rivumi/internal/lazyre"
	"github.com/rivumi/rivumi/workspace/bundle"
	"github.com/rivumi/rivumi/workspace/pathpolicy"
)

// DefaultPrepareTimeout bounds [Prepare] when [PrepareOptions.Timeout] is
// zero.
const DefaultPrepareTimeout = 2 * time.Minute

// Names of the entries of a run directory.
const (
	CloneDir  = "workspace"
	BundleDir = "bundle"
	TmpDir    = "tmp"
	lockName  = ".lock"
)

// Config is what a workspace's tools may do: the allowed-paths patterns
// for writes and the verification commands.
type Config struct {
	AllowedPaths []string       `json:"allowed_paths"`
	Checks       []bundle.Check `json:"checks"`
}

var checkName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Validate checks c: the patterns parse, check names are unique words,
// each argv is non-empty with a non-empty program and no NUL byte. Errors
// name the field (checks[1].argv[0]).
func (c Config) Validate() error {
	if _, err := pathpolicy.ParsePatterns(c.AllowedPaths); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, ch := range c.Checks {
		switch {
		case !checkName().MatchString(ch.Name):
			return fmt.Errorf("checks[%d].name: %q is not a name (letters, digits, '.', '_', '-')", i, ch.Name)
		case seen[ch.Name]:
			return fmt.Errorf("checks[%d].name: %q given twice", i, ch.Name)
		case len(ch.Argv) == 0:
			return fmt.Errorf("checks[%d].argv: empty", i)
		case ch.Argv[0] == "":
			return fmt.Errorf("checks[%d].argv[0]: empty program", i)
		}
		for j, a := range ch.Argv {
			if strings.IndexByte(a, 0) >= 0 {
				return fmt.Errorf("checks[%d].argv[%d]: contains a NUL byte", i, j)
			}
		}
		seen[ch.Name] = true
	}
	return nil
}

// PrepareOptions describes the workspace to make.
type PrepareOptions struct {
	// Source is a git repository (its work tree or any directory in it).
	Source string
	// Commit is the full 40-character hex SHA to pin.
	Commit string
	// RunRoot is an existing directory; the run directory is
	// RunRoot/Name.
	RunRoot string
	// Name is the run's name: one path segment.
	Name string
	// Task is what the agent is asked to do (recorded in request.json).
	Task   string
	Config Config
	// Timeout bounds the preparation (default [DefaultPrepareTimeout]).
	Timeout time.Duration
}

var fullSHA = lazyre.New(`^[0-9a-f]{40}$`)

// Workspace is a prepared run. Its methods are not safe for concurrent
// use; the tools serialise calls.
type Workspace struct {
	runDir string
	dir    string
	gitDir string // outside dir: see GitDirName
	req    bundle.Request
	policy *pathpolicy.Policy
	bundle *bundle.Dir
	lock   *os.File
}

// Prepare makes a new workspace; see the package documentation for the
// checks. The returned Workspace holds the run's lock: Close it.
func Prepare(ctx context.Context, o PrepareOptions) (_ *Workspace, err error) {
	commit := strings.ToLower(o.Commit)
	if !fullSHA().MatchString(commit) {
		return nil, fmt.Errorf("workspace: commit %q is not a full 40-character SHA", o.Commit)
	}
	if o.Name == "" || o.Name == "." || o.Name == ".." || strings.ContainsAny(o.Name, "/\\\x00") {
		return nil, fmt.Errorf("workspace: name %q is not one path segment", o.Name)
	}
	if err := o.Config.Validate(); err != nil {
		return nil, fmt.Errorf("workspace: config: %w", err)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultPrepareTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	root, err := resolveDir(o.RunRoot)
	if err != nil {
		return nil, fmt.Errorf("workspace: run root: %w", err)
	}
	source, err := resolveDir(o.Source)
	if err != nil {
		return nil, fmt.Errorf("workspace: source: %w", err)
	}
	runDir := filepath.Join(root, o.Name)
	// The source's work tree, git directory and common git directory (of
	// a linked worktree), as git sees them.
	out, err := git(ctx, source, "", "", "", "rev-parse", "--show-toplevel", "--absolute-git-dir", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return nil, fmt.Errorf("workspace: source %s is not a git work tree: %w", source, err)
	}
	for _, d := range append(strings.Split(strings.TrimSpace(string(out)), "\n"), source) {
		if d == "" {
			continue
		}
		if rd, err := filepath.EvalSymlinks(d); err == nil && inside(rd, runDir) {
			return nil, fmt.Errorf("workspace: run directory %s is inside the source repository %s", runDir, rd)
		}
	}
	out, err = git(ctx, source, "", "", "", "rev-parse", "--verify", "--quiet", commit+"^{commit}")
	if ctx.Err() != nil {
		return nil, fmt.Errorf("workspace: prepare: %w (looking up commit %s)", ctx.Err(), commit)
	}
	if err != nil || strings.TrimSpace(string(out)) != commit {
		return nil, fmt.Errorf("workspace: commit %s not found in %s", commit, source)
	}

	if err := os.Mkdir(runDir, 0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("workspace: %s already exists (a workspace is never reused)", runDir)
		}
		return nil, fmt.Errorf("workspace: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(runDir)
		}
	}()
	w := &Workspace{runDir: runDir, dir: filepath.Join(runDir, CloneDir), gitDir: filepath.Join(runDir, GitDirName)}
	if err := w.acquire(true); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			w.Close()
		}
	}()
	if err := os.Mkdir(filepath.Join(runDir, TmpDir), 0o700); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if _, err := git(ctx, runDir, "", "", "", "clone", "--no-hardlinks", "--no-checkout", "--quiet",
		"--separate-git-dir", w.gitDir, "--", source, w.dir); err != nil {
		return nil, prepareError(ctx, "clone", err)
	}
	if _, err := w.rawGit(ctx, "", "remote", "remove", "origin"); err != nil {
		return nil, prepareError(ctx, "remove the remote", err)
	}
	// A config of our own, checked before every later git command: a
	// filter, fsmonitor or include set by a command the agent ran must not
	// run code in rivumi's own git calls.
	if err := os.WriteFile(filepath.Join(w.gitDir, "config"), []byte(CloneConfig), 0o600); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if _, err := w.rawGit(ctx, "", "checkout", "--quiet", "--detach", commit); err != nil {
		return nil, prepareError(ctx, "checkout", err)
	}
	head, err := w.rawGit(ctx, "", "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil || strings.TrimSpace(string(head)) != commit {
		return nil, fmt.Errorf("workspace: HEAD is %q after checkout, want %s", strings.TrimSpace(string(head)), commit)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("workspace: prepare: %w", err)
	}
	if w.policy, err = policyFor(w.dir, o.Config.AllowedPaths); err != nil {
		return nil, err
	}
	if w.bundle, err = bundle.Create(filepath.Join(runDir, BundleDir)); err != nil {
		return nil, err
	}
	w.req = bundle.Request{
		Task: o.Task, Commit: commit, Source: source,
		AllowedPaths: nonNil(o.Config.AllowedPaths), Checks: nonNil(o.Config.Checks),
		Created: time.Now().UTC(),
	}
	if err := w.bundle.WriteJSON(bundle.RequestFile, w.req); err != nil {
		return nil, err
	}
	return w, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func policyFor(dir string, allowed []string) (*pathpolicy.Policy, error) {
	pats, err := pathpolicy.ParsePatterns(allowed)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	return pathpolicy.New(dir, pats)
}

// ErrBusy is [OpenNoWait]'s error when another process holds the run's
// lock.
var ErrBusy = errors.New("the run is in use by another process (it holds the run's lock)")

// Open reopens the prepared workspace in runDir and takes its lock
// (waiting for another process that holds it).
func Open(runDir string) (*Workspace, error) { return open(runDir, true) }

// OpenNoWait is [Open] without the wait: when another process holds the
// run's lock it returns an error wrapping [ErrBusy].
func OpenNoWait(runDir string) (*Workspace, error) { return open(runDir, false) }

func open(runDir string, wait bool) (_ *Workspace, err error) {
	abs, err := resolveDir(runDir)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	w := &Workspace{runDir: abs, dir: filepath.Join(abs, CloneDir), gitDir: filepath.Join(abs, GitDirName)}
	if fi, err := os.Lstat(w.gitDir); err != nil || !fi.IsDir() {
		// A workspace prepared before the git directory moved out.
		w.gitDir = filepath.Join(w.dir, ".git")
	}
	if err := w.acquire(wait); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			w.Close()
		}
	}()
	if w.bundle, err = bundle.Open(filepath.Join(abs, BundleDir)); err != nil {
		return nil, err
	}
	if err := w.bundle.ReadJSON(bundle.RequestFile, &w.req); err != nil {
		return nil, fmt.Errorf("workspace: %s is not a prepared workspace: %w", abs, err)
	}
	if !fullSHA().MatchString(w.req.Commit) {
		return nil, fmt.Errorf("workspace: request.json: commit %q is not a full SHA", w.req.Commit)
	}
	if err := (Config{AllowedPaths: w.req.AllowedPaths, Checks: w.req.Checks}).Validate(); err != nil {
		return nil, fmt.Errorf("workspace: request.json: %w", err)
	}
	if w.policy, err = policyFor(w.dir, w.req.AllowedPaths); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Workspace) acquire(wait bool) error {
	f, err := os.OpenFile(filepath.Join(w.runDir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("workspace: lock: %w", err)
	}
	if err := lockFile(f, wait); err != nil {
		f.Close()
		if errors.Is(err, ErrBusy) {
			return fmt.Errorf("workspace: %s: %w", w.runDir, err)
		}
		return fmt.Errorf("workspace: lock: %w", err)
	}
	w.lock = f
	return nil
}

// Close releases the run's lock. The run directory stays.
func (w *Workspace) Close() error {
	if w.lock == nil {
		return nil
	}
	err := w.lock.Close() // closing releases the flock
	w.lock = nil
	return err
}

// RunDir returns the run directory.
func (w *Workspace) RunDir() string { return w.runDir }

// Dir returns the clone's work tree.
func (w *Workspace) Dir() string { return w.dir }

// TmpDir returns the directory for the harness's per-command directories.
func (w *Workspace) TmpDir() string { return filepath.Join(w.runDir, TmpDir) }

// Commit returns the pinned SHA.
func (w *Workspace) Commit() string { return w.req.Commit }

// Request returns request.json's content.
func (w *Workspace) Request() bundle.Request { return w.req }

// Policy returns the path policy of the tools.
func (w *Workspace) Policy() *pathpolicy.Policy { return w.policy }

// Bundle returns the run bundle.
func (w *Workspace) Bundle() *bundle.Dir { return w.bundle }

// Check returns the verification command called name.
func (w *Workspace) Check(name string) (bundle.Check, bool) {
	i := slices.IndexFunc(w.req.Checks, func(c bundle.Check) bool { return c.Name == name })
	if i < 0 {
		return bundle.Check{}, false
	}
	return w.req.Checks[i], true
}

// CloneConfig is the clone's git config, written by [Prepare].
const CloneConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = false\n"

// GitDir returns the clone's git directory (outside [Workspace.Dir] for a
// workspace prepared by this version).
func (w *Workspace) GitDir() string { return w.gitDir }

// Git runs git with args in the clone (hardened; see the package
// documentation) and returns its standard output. stdin may be empty. It
// refuses to run when the clone's git directory holds anything it did not
// write (see checkGitDir) or the work tree's .git is not the link to it
// that [Prepare] made.
func (w *Workspace) Git(ctx context.Context, stdin string, args ...string) ([]byte, error) {
	if err := checkGitDir(w.gitDir); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if w.gitDir != filepath.Join(w.dir, ".git") {
		b, err := os.ReadFile(filepath.Join(w.dir, ".git"))
		if err != nil || string(b) != "gitdir: "+w.gitDir+"\n" {
			return nil, fmt.Errorf("workspace: the work tree's .git was replaced (by a command run in it): not running git")
		}
	}
	return w.rawGit(ctx, stdin, args...)
}

// rawGit is Git without the checks, for Prepare.
func (w *Workspace) rawGit(ctx context.Context, stdin string, args ...string) ([]byte, error) {
	return git(ctx, w.dir, w.gitDir, w.dir, stdin, args...)
}

// prepareError names a deadline as such, not as the step's failure.
func prepareError(ctx context.Context, step string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("workspace: prepare: %w (during %s)", ctx.Err(), step)
	}
	return fmt.Errorf("workspace: %s: %w", step, err)
}

// Tracked reports whether the cleaned relative path is tracked by git
// (in the index, an --intent-to-add entry included).
func (w *Workspace) Tracked(ctx context.Context, rel string) (bool, error) {
	out, err := w.Git(ctx, "", "ls-files", "-z", "--", ":(literal)"+rel)
	if err != nil {
		return false, err
	}
	return string(out) == rel+"\x00", nil
}

// Diff returns the change of the work tree against the pinned commit as a
// unified diff (binary changes as git binary patches), files added with
// --intent-to-add included, untracked files not.
func (w *Workspace) Diff(ctx context.Context, paths ...string) ([]byte, error) {
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "--binary", "--full-index", w.req.Commit, "--"}
	for _, p := range paths {
		args = append(args, ":(literal)"+p)
	}
	return w.Git(ctx, "", args...)
}

func resolveDir(d string) (string, error) {
	if d == "" {
		return "", errors.New("no directory given")
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", err
	}
	r, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(r)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", r)
	}
	return r, nil
}

// inside reports whether p is dir or below it (both absolute, cleaned).
func inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
