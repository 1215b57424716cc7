package pathpolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Error is a path the policy refuses. Path is the path as given (quoted
// when printed); Reason says why.
type Error struct {
	Path   string
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("path %q: %s", e.Path, e.Reason) }

func refuse(p, reason string) error { return &Error{Path: p, Reason: reason} }

// IsRefusal reports whether err is (or wraps) a policy refusal [*Error].
func IsRefusal(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Clean checks p syntactically and returns it in canonical form (no "."
// segments, no repeated or trailing slashes). It never touches the disk.
// The rejections are listed in the package documentation, plus a name
// longer than [MaxNameBytes] and a path longer than [MaxPathBytes]; "."
// (the root itself) is allowed.
func Clean(p string) (string, error) {
	if err := checkSyntax(p); err != nil {
		return "", err
	}
	c := path.Clean(p)
	// path.Clean only shortens (".." segments were refused), but it may
	// make a drive form of what was not one ("./C:" → "C:").
	if err := checkSyntax(c); err != nil {
		return "", refuse(p, err.(*Error).Reason)
	}
	return c, nil
}

func checkSyntax(p string) error {
	switch {
	case p == "":
		return refuse(p, "empty path")
	case strings.IndexByte(p, 0) >= 0:
		return refuse(p, "contains a NUL byte")
	case strings.Contains(p, `\`):
		return refuse(p, "contains a backslash (use forward slashes)")
	case strings.HasPrefix(p, "/"):
		return refuse(p, "absolute path (paths are relative to the workspace root)")
	case len(p) >= 2 && p[1] == ':' && isLetter(p[0]):
		return refuse(p, "absolute Windows path (paths are relative to the workspace root)")
	}
	if len(p) > MaxPathBytes {
		return refuse(short(p), fmt.Sprintf("longer than %d bytes", MaxPathBytes))
	}
	for _, seg := range strings.Split(p, "/") {
		switch {
		case len(seg) > MaxNameBytes:
			return refuse(short(p), fmt.Sprintf("a name longer than %d bytes", MaxNameBytes))
		case seg == "..":
			return refuse(p, `".." segment (paths stay inside the workspace)`)
		case strings.EqualFold(seg, ".git"):
			return refuse(p, `".git" segment (the repository's metadata is off limits)`)
		}
	}
	return nil
}

// MaxNameBytes and MaxPathBytes bound a path's names and its length
// (Linux's NAME_MAX, and PATH_MAX less room for the workspace's own
// location): a longer path is a refusal, never an I/O error that names
// the host's directories.
const (
	MaxNameBytes = 255
	MaxPathBytes = 3072
)

// short keeps a refused over-long path printable.
func short(p string) string {
	if len(p) <= 64 {
		return p
	}
	return p[:48] + "…" + p[len(p)-12:]
}

// hide rewrites an I/O error about the absolute path abs to name rel
// instead, so no error of the policy shows the host's directories.
func hide(err error, rel string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: rel, Err: pe.Err}
	}
	return err
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// Policy is the path policy of one workspace. The zero value is not
// usable; see [New]. A Policy is immutable and safe for concurrent use.
type Policy struct {
	root    string // absolute, symlinks resolved
	allowed []Pattern
}

// New returns the policy for the workspace at root (made absolute and
// resolved through symlinks; it must be an existing directory) with the
// given allowed-paths patterns. No patterns means every path that passes
// [Clean] may be written.
func New(root string, allowed []Pattern) (*Policy, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("pathpolicy: root: %w", err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("pathpolicy: root: %w", err)
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return nil, fmt.Errorf("pathpolicy: root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("pathpolicy: root %s is not a directory", resolved)
	}
	return &Policy{root: resolved, allowed: append([]Pattern(nil), allowed...)}, nil
}

// Root returns the resolved absolute root.
func (p *Policy) Root() string { return p.root }

// Patterns returns the allowed-paths patterns in normalised form.
func (p *Policy) Patterns() []Pattern { return append([]Pattern(nil), p.allowed...) }

// Writable reports whether the cleaned relative path rel may be written:
// true when the policy has no patterns or one of them matches.
func (p *Policy) Writable(rel string) bool {
	if len(p.allowed) == 0 {
		return true
	}
	for _, pat := range p.allowed {
		if pat.Match(rel) {
			return true
		}
	}
	return false
}

// MayHoldWritable reports whether some path beneath the cleaned relative
// directory dir ("." for the root) may be written: true when the policy
// has no patterns or a pattern could match a path dir/…. A directory
// for which it is false holds nothing a tool or command may write.
func (p *Policy) MayHoldWritable(dir string) bool {
	if len(p.allowed) == 0 || dir == "." || dir == "" {
		return true
	}
	if c, err := Clean(dir); err != nil || c != dir {
		return false
	}
	name := strings.Split(dir, "/")
	for _, pat := range p.allowed {
		if pat.holdsBeneath(name) {
			return true
		}
	}
	return false
}

// Access is what a tool means to do with a path.
type Access int

const (
	// Read: the path may be read (or listed).
	Read Access = iota
	// Write: the path may be created, replaced or deleted; it must be
	// [Policy.Writable] and must not itself be a symlink.
	Write
)

// Resolve checks rel for the given access and returns the cleaned relative
// path and the absolute path to use. Errors that are policy refusals are
// [*Error]s; others (an I/O error while resolving) are returned as they
// are.
//
// The deepest existing ancestor of the path is resolved through symlinks
// and must lie within the root. For reads an existing final component
// that is a symlink must resolve inside the root as well, and the
// resolved path must not enter .git; for writes no component may be a
// symlink at all (writers open with O_NOFOLLOW besides).
//
// Resolve is a check on names, made before the open: a concurrent process
// can change the tree between the two. It never contains a caller by
// itself; callers open through a handle the kernel keeps beneath the root
// (os.Root for reads, openat with O_NOFOLLOW at every component for
// writes, as the workspace tools do), and [Policy.Walk] walks through one.
func (p *Policy) Resolve(rel string, access Access) (clean, abs string, err error) {
	clean, err = Clean(rel)
	if err != nil {
		return "", "", err
	}
	if access == Write {
		if clean == "." {
			return "", "", refuse(rel, "the workspace root is not a file")
		}
		if !p.Writable(clean) {
			return "", "", refuse(rel, "not in the allowed paths")
		}
	}
	abs = filepath.Join(p.root, filepath.FromSlash(clean))
	// Find the deepest existing ancestor (the path itself included for
	// reads) and resolve it.
	probe := abs
	if access == Write {
		fi, err := os.Lstat(abs)
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			return "", "", refuse(rel, "is a symlink (written files must be regular files)")
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", "", hide(err, rel)
		}
		probe = filepath.Dir(abs)
	}
	for probe != p.root {
		if _, err := os.Lstat(probe); err == nil {
			break
		}
		probe = filepath.Dir(probe)
	}
	resolved, err := filepath.EvalSymlinks(probe)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// A dangling symlink on the way: refuse, its target is unknown.
			return "", "", refuse(rel, "passes through a dangling symlink")
		}
		return "", "", hide(err, rel)
	}
	inner, ok := within(p.root, resolved)
	if !ok {
		return "", "", refuse(rel, "a symlink takes it outside the workspace")
	}
	if err := checkSyntax(inner); inner != "." && err != nil {
		return "", "", refuse(rel, "a symlink takes it into .git")
	}
	// A write never passes through a symlink: the allowed paths are judged
	// on the path as written, so it must be the path that is written.
	if access == Write && filepath.Join(p.root, filepath.FromSlash(inner)) != probe {
		return "", "", refuse(rel, "passes through a symlink (writes never do)")
	}
	return clean, abs, nil
}

// within reports whether the absolute path p is root or below it, and
// returns p relative to root with forward slashes.
func within(root, p string) (string, bool) {
	r, err := filepath.Rel(root, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// Rel converts an absolute path (as an interpreter computes it) to a path
// relative to the root, for [Policy.Resolve]. Paths outside the root are
// refused. The comparison is textual after cleaning; Resolve does the
// on-disk check.
func (p *Policy) Rel(abs string) (string, error) {
	if !filepath.IsAbs(abs) {
		return "", refuse(abs, "not absolute")
	}
	r, ok := within(p.root, filepath.Clean(abs))
	if !ok {
		return "", refuse(abs, "outside the workspace")
	}
	return r, nil
}

// WalkFunc is called by [Policy.Walk] for every entry, with its path
// relative to the root. Returning [fs.SkipDir] skips a directory;
// [fs.SkipAll] stops the walk.
type WalkFunc func(rel string, d fs.DirEntry) error

// Walk visits the tree under rel (a directory, checked for [Read]) in
// lexical order. Symlinks are reported as entries and never followed; .git
// directories (any case) are never entered or reported.
func (p *Policy) Walk(rel string, fn WalkFunc) error {
	clean, _, err := p.Resolve(rel, Read)
	if err != nil {
		return err
	}
	// Every directory is opened through a root handle, beneath the
	// workspace: a directory swapped for a symlink to elsewhere while the
	// walk runs is refused by the kernel walk, not followed.
	root, err := os.OpenRoot(p.root)
	if err != nil {
		return err
	}
	defer root.Close()
	start := filepath.ToSlash(clean)
	fi, err := root.Lstat(clean)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return refuse(rel, "is a symlink (walks never follow symlinks)")
	}
	if !fi.IsDir() {
		return refuse(rel, "not a directory")
	}
	return fs.WalkDir(root.FS(), start, func(pth string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if pth == start {
			return nil
		}
		if strings.EqualFold(d.Name(), ".git") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		return fn(strings.TrimPrefix(pth, "./"), d)
	})
}
