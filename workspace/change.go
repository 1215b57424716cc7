package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// change is the work tree's difference from the pinned commit.
type change struct {
	// paths are every path that differs: tracked changes without rename
	// detection (both sides of a rename, deletions, mode and type
	// changes) and untracked files git does not ignore.
	paths []string
	// planted are entries named .git in the work tree other than the
	// link rivumi made at its root: git does not look inside them (an
	// untracked directory holding one is skipped whole), so whatever
	// they hide is not in changes.patch.
	planted []string
}

// change lists the work tree's difference from the pinned commit. When a
// .gitignore differs from the pinned commit (new, changed or deleted —
// a new one may ignore itself and everything beside it), no ignore rule
// is trusted and every untracked file counts.
func (w *Workspace) change(ctx context.Context) (change, error) {
	var c change
	raw, err := w.Git(ctx, "", "diff", "--raw", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none", w.req.Commit, "--")
	if err != nil {
		return c, err
	}
	tracked, err := parseRaw(raw)
	if err != nil {
		return c, err
	}
	newIgnores, err := w.Git(ctx, "", "ls-files", "-z", "--others", "--", ":(glob)**/.gitignore")
	if err != nil {
		return c, err
	}
	ignoresChanged := len(newIgnores) > 0 || slices.ContainsFunc(tracked, func(p string) bool { return path.Base(p) == ".gitignore" })
	var untracked []string
	if ignoresChanged {
		out, err := w.Git(ctx, "", "ls-files", "-z", "--others")
		if err != nil {
			return c, err
		}
		untracked = splitZ(out)
	} else {
		out, err := w.Git(ctx, "", "status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=none")
		if err != nil {
			return c, err
		}
		if untracked, err = parseStatusUntracked(out); err != nil {
			return c, err
		}
	}
	for _, p := range append(tracked, untracked...) {
		p = strings.TrimSuffix(p, "/") // a directory git did not enter
		if p != "" && !slices.Contains(c.paths, p) {
			c.paths = append(c.paths, p)
		}
	}
	slices.Sort(c.paths)
	c.planted, err = plantedGit(w.dir)
	return c, err
}

// parseRaw returns the paths of git diff --raw -z output.
func parseRaw(out []byte) ([]string, error) {
	f := splitZ(out)
	var paths []string
	for i := 0; i < len(f); {
		meta := f[i]
		if !strings.HasPrefix(meta, ":") {
			return nil, fmt.Errorf("unexpected git diff --raw output near %q", meta)
		}
		n := 1
		if s := strings.Fields(meta); len(s) == 5 && (strings.HasPrefix(s[4], "R") || strings.HasPrefix(s[4], "C")) {
			n = 2
		}
		if i+n >= len(f) {
			return nil, fmt.Errorf("truncated git diff --raw output")
		}
		paths = append(paths, f[i+1:i+1+n]...)
		i += 1 + n
	}
	return paths, nil
}

// parseStatusUntracked returns the untracked paths ("? ") of git status
// --porcelain=v2 -z output.
func parseStatusUntracked(out []byte) ([]string, error) {
	f := splitZ(out)
	var paths []string
	for i := 0; i < len(f); i++ {
		switch {
		case strings.HasPrefix(f[i], "? "):
			paths = append(paths, f[i][2:])
		case strings.HasPrefix(f[i], "2 "):
			i++ // the rename's original path follows
		case strings.HasPrefix(f[i], "1 "), strings.HasPrefix(f[i], "u "), strings.HasPrefix(f[i], "! "):
		default:
			return nil, fmt.Errorf("unexpected git status output %q", f[i])
		}
	}
	return paths, nil
}

func splitZ(b []byte) []string {
	s := strings.Split(string(b), "\x00")
	if len(s) > 0 && s[len(s)-1] == "" {
		s = s[:len(s)-1]
	}
	return s
}

// plantedGit lists the entries named .git (any case) below dir, except
// dir's own .git; it does not look inside them.
func plantedGit(dir string) ([]string, error) {
	var planted []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if p == dir || !strings.EqualFold(d.Name(), ".git") {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return nil
		}
		planted = append(planted, filepath.ToSlash(rel))
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	return planted, err
}

// TreeDigest returns a digest of the work tree's difference from the
// pinned commit: each differing path (see the package documentation of
// finish) with its type, mode and content, and every planted .git. Two
// equal digests mean the same change; a check whose digest differs before
// and after it ran changed the work tree.
func (w *Workspace) TreeDigest(ctx context.Context) (string, error) {
	c, err := w.change(ctx)
	if err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	}
	root, err := os.OpenRoot(w.dir)
	if err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	}
	defer root.Close()
	h := sha256.New()
	for _, p := range c.paths {
		fmt.Fprintf(h, "%s\x00%s\n", p, entryDigest(root, p))
	}
	for _, p := range c.planted {
		fmt.Fprintf(h, "planted %s\n", p)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// entryDigest describes what rel is now: absent, a symlink and its
// target, a directory, or a file's mode and content hash. Reads go
// through root and never block on a FIFO or device.
func entryDigest(root *os.Root, rel string) string {
	fi, err := root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "absent"
	case err != nil:
		return "error " + err.Error()
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := root.Readlink(rel)
		if err != nil {
			return "error " + err.Error()
		}
		return "symlink " + t
	case fi.IsDir():
		return "dir"
	case !fi.Mode().IsRegular():
		return "special " + fi.Mode().String()
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|readFlags, 0)
	if err != nil {
		return "error " + err.Error()
	}
	defer f.Close()
	if fi2, err := f.Stat(); err != nil || !fi2.Mode().IsRegular() {
		return "special"
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "error " + err.Error()
	}
	return fmt.Sprintf("file %s %x", fi.Mode().Perm(), h.Sum(nil))
}
