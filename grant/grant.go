package grant

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rivumi/rivumi/internal/lockedfile"
	"github.com/rivumi/rivumi/internal/shquote"
	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/rules"
	"github.com/rivumi/rivumi/verdict"
)

// RefusedError reports a grant that must not be recorded: its prefix
// would let the agent run anything (a shell, an interpreter, a wrapper that
// runs its arguments), or it is malformed.
type RefusedError struct {
	Prefix []string
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("grant for %s refused: %s", shquote.Display(e.Prefix), e.Reason)
}

// Check returns a [*RefusedError] if g must not be recorded: an
// empty prefix or rule list, a program path that is relative (the agent
// can rewrite it) or not a plain file name, a program that can run
// anything (shells, interpreters, env, sudo, xargs, find, nohup, timeout,
// ssh, npx, … — see the package doc), `git` with no subcommand or with a
// global option, or a two-word runner such as `npm exec`. It returns nil
// otherwise.
func Check(g verdict.Grant) error {
	refuse := func(reason string) error { return &RefusedError{Prefix: g.Prefix, Reason: reason} }
	if len(g.Prefix) == 0 || g.Prefix[0] == "" {
		return refuse("empty prefix")
	}
	if len(g.Rules) == 0 {
		return refuse("no rules: a grant cancels only the ask rules it names")
	}
	for _, r := range g.Rules {
		if strings.TrimSpace(r) == "" {
			return refuse("empty rule id")
		}
	}
	for _, w := range g.Prefix {
		if strings.ContainsAny(w, "\x00\n") {
			return refuse("prefix word contains a NUL or newline")
		}
	}
	prog := g.Prefix[0]
	if strings.Contains(prog, "/") && !filepath.IsAbs(prog) {
		return refuse("a relative program path can be rewritten by the agent")
	}
	base := filepath.Base(prog)
	if rules.RunsAnything(base) {
		return refuse(base + " can run anything")
	}
	if base == "git" {
		if len(g.Prefix) < 2 {
			return refuse("git without a subcommand can run anything (aliases, -c core.*)")
		}
		if strings.HasPrefix(g.Prefix[1], "-") {
			return refuse("git global options can run anything")
		}
	}
	if subs := rules.RunnerSubcommands(base); len(subs) > 0 {
		if len(g.Prefix) >= 2 && slices.Contains(subs, g.Prefix[1]) {
			return refuse(base + " " + g.Prefix[1] + " can run anything")
		}
		if len(g.Prefix) == 1 {
			return refuse(base + " without a subcommand includes " + base + " " + subs[0])
		}
	}
	return nil
}

// Covers reports whether g covers argv run without a shell, with the
// engine's matcher ([Matches]): the rest of the prefix equals
// the next words, and the program is the one the grant names: a bare name
// matches that name or that name in a system bin directory (/usr/bin/npm
// for npm), never `./npm` nor /home/me/bin/npm; an absolute path only that
// path. A "./x" grant needs the cwd and workspace the argv runs in, which
// argv alone does not give: it is covered only through the engine. So a
// grant for `npm install` covers `npm install lodash` but not `npm
// publish` nor `npm`.
func Covers(g verdict.Grant, argv []string) bool {
	cmd, err := parser.FromArgv(argv)
	if err != nil || len(cmd.Segments) == 0 {
		return false
	}
	return Matches(g, cmd.Segments[0])
}

// Grantable reports whether a grant may name the segment's program at all:
// never one that runs whatever it is handed (tagged runs-anything by the
// parser from [rules.RunsAnything]), nor a subcommand of that kind.
func Grantable(s *parser.Segment) bool {
	return !s.HasTag(parser.TagRunsAnything)
}

// Matches reports whether grant g applies to seg: the segment's program is
// the one the grant names ([parser.GrantWord]: a bare name only that name,
// "./x" only that file of the segment's workspace, an absolute path only
// that file), the rest of the prefix equals the next words of the argv,
// none of them dynamic, and the program does not run whatever it is handed
// (a shell, an interpreter, a wrapper, npm exec: the parser's runs-anything
// tag, [rules.RunsAnything]), however the grant got into the list. It is
// the one matcher of the engine and the harness.
func Matches(g verdict.Grant, seg *parser.Segment) bool {
	if len(g.Prefix) == 0 || len(g.Prefix) > len(seg.Argv) || !Grantable(seg) || rules.RunsAnything(g.Prefix[0]) {
		return false
	}
	for i, p := range g.Prefix {
		if seg.Dynamic[i] {
			return false
		}
		if i == 0 {
			if w := seg.GrantWord(); w == "" || w != parser.NormalGrantWord(p) {
				return false
			}
		} else if seg.Argv[i] != p {
			return false
		}
	}
	return true
}

// For returns the grants an "always" answer to v would record: for
// each distinct argv prefix among v's grantable ask reasons, one grant
// with those reasons' rule ids (sorted, unique). Reasons that are not
// grantable, not asks, or carry no prefix contribute nothing.
func For(v verdict.Verdict) []verdict.Grant {
	var out []verdict.Grant
	for _, r := range v.Reasons {
		if !r.Grantable || r.Decision != verdict.Ask || len(r.Prefix) == 0 || r.Rule == "" {
			continue
		}
		i := slices.IndexFunc(out, func(g verdict.Grant) bool { return slices.Equal(g.Prefix, r.Prefix) })
		if i < 0 {
			out = append(out, verdict.Grant{Prefix: slices.Clone(r.Prefix)})
			i = len(out) - 1
		}
		if !slices.Contains(out[i].Rules, r.Rule) {
			out[i].Rules = append(out[i].Rules, r.Rule)
		}
	}
	for i := range out {
		slices.Sort(out[i].Rules)
	}
	return out
}

// Store keeps a project's grants in a JSON file. Changes are written
// to a temporary file in the same directory, fsync'd and renamed over the
// file (mode 0600), under an exclusive flock of a sibling ".lock" file, so
// concurrent processes never lose each other's grants. A Store is
// safe for concurrent use.
type Store struct {
	path string
	mu   sync.Mutex
	list []verdict.Grant
}

// grantFile is the on-disk format.
type grantFile struct {
	Version int           `json:"version"`
	Grants  []storedGrant `json:"grants"`
}

type storedGrant struct {
	Prefix []string  `json:"prefix"`
	Rules  []string  `json:"rules"`
	Added  time.Time `json:"added,omitzero"`
}

// Load opens the grant store at path and reads it. A missing file is
// an empty store (created on the first Add); an unreadable or malformed
// one is an error: grants fail closed.
func Load(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("grants: empty path")
	}
	s := &Store{path: path}
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	s.list = f.grants()
	return s, nil
}

// Path returns the store's file name.
func (s *Store) Path() string { return s.path }

// List returns the grants as of the last Load, Add or Remove (a copy).
func (s *Store) List() []verdict.Grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]verdict.Grant, len(s.list))
	for i, g := range s.list {
		out[i] = verdict.Grant{Prefix: slices.Clone(g.Prefix), Rules: slices.Clone(g.Rules)}
	}
	return out
}

// Add validates g with [Check] and records it; a grant with the same
// prefix gains g's rules. It re-reads the file under the lock, so grants
// added meanwhile by other processes are kept.
func (s *Store) Add(g verdict.Grant) error {
	if err := Check(g); err != nil {
		return err
	}
	return s.update(func(f *grantFile) bool {
		for i := range f.Grants {
			if slices.Equal(f.Grants[i].Prefix, g.Prefix) {
				before := len(f.Grants[i].Rules)
				for _, r := range g.Rules {
					if !slices.Contains(f.Grants[i].Rules, r) {
						f.Grants[i].Rules = append(f.Grants[i].Rules, r)
					}
				}
				slices.Sort(f.Grants[i].Rules)
				return len(f.Grants[i].Rules) != before
			}
		}
		rules := slices.Clone(g.Rules)
		slices.Sort(rules)
		f.Grants = append(f.Grants, storedGrant{Prefix: slices.Clone(g.Prefix), Rules: slices.Compact(rules), Added: time.Now().UTC()})
		return true
	})
}

// Remove deletes the grant whose prefix equals prefix. It reports whether
// there was one.
func (s *Store) Remove(prefix []string) (bool, error) {
	var found bool
	err := s.update(func(f *grantFile) bool {
		n := len(f.Grants)
		f.Grants = slices.DeleteFunc(f.Grants, func(g storedGrant) bool { return slices.Equal(g.Prefix, prefix) })
		found = len(f.Grants) != n
		return found
	})
	return found, err
}

func (f *grantFile) grants() []verdict.Grant {
	out := make([]verdict.Grant, 0, len(f.Grants))
	for _, g := range f.Grants {
		out = append(out, verdict.Grant{Prefix: g.Prefix, Rules: g.Rules})
	}
	return out
}

func (s *Store) read() (*grantFile, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return s.decode(nil, false)
	}
	if err != nil {
		return nil, fmt.Errorf("grants: %w", err)
	}
	return s.decode(b, true)
}

// decode parses the file's contents (exists false: a missing file, an
// empty store).
func (s *Store) decode(b []byte, exists bool) (*grantFile, error) {
	if !exists {
		return &grantFile{Version: 1}, nil
	}
	var f grantFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("grants: %s: %w", s.path, err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("grants: %s: unsupported version %d", s.path, f.Version)
	}
	for _, g := range f.Grants {
		if len(g.Prefix) == 0 || len(g.Rules) == 0 {
			return nil, fmt.Errorf("grants: %s: malformed grant %q", s.path, g.Prefix)
		}
	}
	return &f, nil
}

// update applies change to the file's current contents under the lock and
// writes the result if change reports a modification (see
// internal/lockedfile).
func (s *Store) update(change func(*grantFile) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("grants: %w", err)
	}
	var cur *grantFile
	var bad error // a malformed file: its error names it already
	err := lockedfile.Update(s.path, 0o600, func(old []byte, exists bool) ([]byte, error) {
		f, err := s.decode(old, exists)
		if err != nil {
			bad = err
			return nil, err
		}
		cur = f
		if !change(f) {
			return old, nil
		}
		b, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return nil, err
		}
		return append(b, '\n'), nil
	})
	if err != nil && err == bad {
		return err
	}
	if err != nil {
		return fmt.Errorf("grants: %w", err)
	}
	s.list = cur.grants()
	return nil
}

// DefaultPath returns where the grants of the project rooted at
// projectRoot live: $XDG_CONFIG_HOME/rivumi/grants/<hex sha256 of the
// absolute, cleaned root>.json, with ~/.config when XDG_CONFIG_HOME is
// unset or relative.
func DefaultPath(projectRoot string) (string, error) {
	return PathIn(projectRoot, os.Getenv, os.UserHomeDir)
}

// PathIn is [DefaultPath] with the environment read through
// getenv and the home directory from home (for a hook call relayed from
// another process, graded with that process's environment).
func PathIn(projectRoot string, getenv func(string) string, home func() (string, error)) (string, error) {
	root, err := filepath.Abs(projectRoot)
	if err != nil {
		return "", err
	}
	base := getenv("XDG_CONFIG_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := home()
		if err != nil {
			return "", fmt.Errorf("grants: no config directory: %w", err)
		}
		base = filepath.Join(home, ".config")
	}
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(base, "rivumi", "grants", hex.EncodeToString(sum[:])+".json"), nil
}

// ProjectRoot returns the project root for dir: the nearest ancestor
// (dir included) holding a .git entry, or dir itself. The result is
// absolute.
func ProjectRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, nil
		}
		d = parent
	}
}
