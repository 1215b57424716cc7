package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rivumi/rivumi/audit"
)

// Bounds of every git process rivumi runs itself.
const (
	// GitTimeout bounds one git call when the caller's context has no
	// earlier deadline.
	GitTimeout = 2 * time.Minute
	// MaxGitOutput bounds what one git call may print; past it the call
	// fails (a truncated diff would be a wrong one). The buffer never
	// grows past it.
	MaxGitOutput = 32 << 20
	maxGitStderr = 16 << 10
)

// GitDirName is the clone's git directory inside the run directory. It is
// kept outside the work tree, so that no command sandboxed to the work
// tree can write it; the work tree's .git is a file pointing at it, and
// rivumi's own git never reads that file (it sets GIT_DIR and
// GIT_WORK_TREE itself).
const GitDirName = "git"

// gitEnv is the environment of every git process: no system or global
// config, no prompts, nothing from the caller's environment but PATH, and
// for a clone its git directory and work tree given explicitly (a .git
// planted in the work tree is never followed).
func gitEnv(gitDir, workTree string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	env := []string{
		"PATH=" + path, "LC_ALL=C", "HOME=/nonexistent",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=/bin/false", "GIT_OPTIONAL_LOCKS=0",
		"GIT_ATTR_NOSYSTEM=1", "GIT_NO_REPLACE_OBJECTS=1", "GIT_PROTOCOL_FROM_USER=0",
	}
	if gitDir != "" {
		env = append(env, "GIT_DIR="+gitDir, "GIT_COMMON_DIR="+gitDir, "GIT_WORK_TREE="+workTree, "GIT_CEILING_DIRECTORIES="+filepath.Dir(workTree))
	}
	return env
}

// hardening overrides settings a hostile repository config could use to
// run code or read elsewhere.
var hardening = []string{
	"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.attributesFile=/dev/null",
	"-c", "core.sshCommand=/bin/false", "-c", "diff.external=", "-c", "core.pager=cat",
	"-c", "protocol.allow=never",
	"-c", "core.symlinks=true", "-c", "advice.detachedHead=false", "-c", "core.untrackedCache=false",
	"-c", "core.splitIndex=false", "-c", "credential.helper=", "-c", "core.gitProxy=",
}

// GitError is a git command that failed: its arguments and its (bounded,
// redacted) standard error.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// errGitOutput is a git call that printed more than [MaxGitOutput].
var errGitOutput = errors.New("git printed more than MaxGitOutput: the change is too large to record")

// maxGitOutput is [MaxGitOutput], lowered by tests.
var maxGitOutput = MaxGitOutput

// git runs git in dir: hardened, in a process group of its own that is
// killed whole at the deadline, with bounded output. gitDir and workTree
// are set for a clone's calls ("" for the source's).
func git(ctx context.Context, dir, gitDir, workTree, stdin string, args ...string) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, GitTimeout)
		defer cancel()
	}
	argv := slices.Clone(hardening)
	if len(args) > 0 && args[0] == "clone" {
		// The source is a local path: only the clone needs the file
		// protocol, and it fetches no submodule. Every other call keeps
		// all protocols off (a command gated at its exec then reads as
		// no code at all).
		argv = append(argv, "-c", "protocol.file.allow=always")
	}
	cmd := exec.CommandContext(ctx, "git", append(argv, args...)...)
	cmd.Dir = dir
	cmd.Env = gitEnv(gitDir, workTree)
	ownGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	out := &limitedBuffer{buf: &stdout, max: maxGitOutput, fail: true}
	cmd.Stdout, cmd.Stderr = out, &limitedBuffer{buf: &stderr, max: maxGitStderr}
	err := cmd.Run()
	if out.over {
		err = errGitOutput
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, ctx.Err())
		}
		return stdout.Bytes(), &GitError{Args: args, Stderr: audit.Redact(stderr.String()), Err: err}
	}
	return stdout.Bytes(), nil
}

// limitedBuffer keeps at most max bytes. With fail, a write past max
// fails (so the writer, git, stops) and over is set.
type limitedBuffer struct {
	buf  *bytes.Buffer
	max  int
	fail bool
	over bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	room := l.max - l.buf.Len()
	if room > 0 {
		n := min(len(p), room)
		if l.buf.Available() < n {
			// Grow by doubling, but never past max (bytes.Buffer alone
			// would reach twice it).
			b := make([]byte, l.buf.Len(), min(max(2*l.buf.Cap(), l.buf.Len()+n, 4096), l.max))
			copy(b, l.buf.Bytes())
			*l.buf = *bytes.NewBuffer(b)
		}
		l.buf.Write(p[:n])
	}
	if len(p) > room && l.fail {
		l.over = true
		return max(room, 0), errGitOutput
	}
	return len(p), nil
}

// checkGitDir refuses a clone's git directory that holds anything through
// which git would read configuration, objects or attributes from elsewhere,
// or run code, or hide files: a config other than [CloneConfig], commondir,
// config.worktree, info/attributes, a pattern in info/exclude,
// objects/info/alternates (and http-alternates), grafts, a hook, or a
// worktrees directory.
func checkGitDir(gitDir string) error {
	b, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil || string(b) != CloneConfig {
		return errors.New("the clone's git config was changed (by a command run in it): not running git")
	}
	for _, name := range []string{"commondir", "config.worktree", "info/attributes", "objects/info/alternates",
		"objects/info/http-alternates", "worktrees", "gitdir", "info/grafts"} {
		if _, err := os.Lstat(filepath.Join(gitDir, name)); err == nil {
			return fmt.Errorf("the clone's git directory holds %s (planted by a command run in it?): not running git", name)
		}
	}
	// info/exclude could hide untracked files from finish: only the
	// template's comments are accepted.
	if b, err := os.ReadFile(filepath.Join(gitDir, "info", "exclude")); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				return errors.New("the clone's git directory has patterns in info/exclude (planted by a command run in it?): not running git")
			}
		}
	}
	hooks, _ := os.ReadDir(filepath.Join(gitDir, "hooks"))
	for _, h := range hooks {
		if !strings.HasSuffix(h.Name(), ".sample") {
			return fmt.Errorf("the clone's git directory holds hooks/%s: not running git", h.Name())
		}
	}
	return nil
}
