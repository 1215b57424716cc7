package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// SourceState is what [Snapshot] records of a source repository: its HEAD,
// the symbolic ref it names, a digest of its index entries, its status
// (tracked changes and untracked paths, without ignored ones), and a
// SHA-256 of every tracked file's bytes in the work tree (a symlink's
// target, not what it points to).
type SourceState struct {
	Head, Ref string
	Index     string
	Status    string
	Files     map[string]string
}

// Snapshot records the state of the source repository at dir, with
// rivumi's hardened git (no hooks, no fsmonitor, no optional locks: it
// writes nothing to the repository). Compare two snapshots with
// [SourceState.Diff].
func Snapshot(ctx context.Context, dir string) (SourceState, error) {
	var s SourceState
	run := func(args ...string) ([]byte, error) { return git(ctx, dir, "", "", "", args...) }
	out, err := run("rev-parse", "--show-toplevel", "HEAD")
	if err != nil {
		return s, fmt.Errorf("workspace: source %s: %w", dir, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return s, fmt.Errorf("workspace: source %s: unexpected rev-parse output", dir)
	}
	top := lines[0]
	s.Head = lines[1]
	if out, err := run("symbolic-ref", "-q", "HEAD"); err == nil {
		s.Ref = strings.TrimSpace(string(out))
	}
	idx, err := run("ls-files", "-s", "-z")
	if err != nil {
		return s, err
	}
	sum := sha256.Sum256(idx)
	s.Index = hex.EncodeToString(sum[:])
	st, err := run("status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=no")
	if err != nil {
		return s, err
	}
	s.Status = string(st)
	s.Files = map[string]string{}
	names, err := run("ls-files", "-z")
	if err != nil {
		return s, err
	}
	for _, name := range strings.Split(string(names), "\x00") {
		if name == "" {
			continue
		}
		s.Files[name] = fileDigest(filepath.Join(top, filepath.FromSlash(name)))
	}
	return s, nil
}

// fileDigest hashes a file's bytes (a symlink's target path; a directory,
// a submodule's work tree, by its name only); a file that cannot be read
// is "missing" or "unreadable: …".
func fileDigest(path string) string {
	fi, err := os.Lstat(path)
	switch {
	case os.IsNotExist(err):
		return "missing"
	case err != nil:
		return "unreadable: " + err.Error()
	case fi.Mode()&os.ModeSymlink != 0:
		t, _ := os.Readlink(path)
		return "symlink:" + t
	case fi.IsDir():
		return "dir"
	case !fi.Mode().IsRegular():
		return "special:" + fi.Mode().Type().String()
	}
	f, err := os.Open(path)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable: " + err.Error()
	}
	return fmt.Sprintf("%o:%x", fi.Mode().Perm(), h.Sum(nil))
}

// Diff lists how after differs from s, one sentence per difference (none:
// the repository is as it was).
func (s SourceState) Diff(after SourceState) []string {
	var out []string
	if s.Head != after.Head {
		out = append(out, fmt.Sprintf("HEAD moved from %s to %s", s.Head, after.Head))
	}
	if s.Ref != after.Ref {
		out = append(out, fmt.Sprintf("HEAD's branch changed from %q to %q", s.Ref, after.Ref))
	}
	if s.Index != after.Index {
		out = append(out, "the index changed")
	}
	if s.Status != after.Status {
		out = append(out, "git status changed: "+abbrevStatus(after.Status))
	}
	var changed []string
	for name, d := range s.Files {
		if after.Files[name] != d {
			changed = append(changed, name)
		}
	}
	for name := range after.Files {
		if _, ok := s.Files[name]; !ok {
			changed = append(changed, name)
		}
	}
	sort.Strings(changed)
	for _, name := range changed {
		out = append(out, "tracked file changed: "+name)
	}
	return out
}

func abbrevStatus(st string) string {
	st = strings.TrimSuffix(strings.ReplaceAll(st, "\x00", "; "), "; ")
	if st == "" {
		return "(clean)"
	}
	if len(st) > 300 {
		st = st[:300] + "…"
	}
	return string(bytes.ToValidUTF8([]byte(st), []byte("?")))
}
