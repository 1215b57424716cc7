package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/pathpolicy"
)

// ApplyPatchArgs are apply_patch's arguments.
type ApplyPatchArgs struct {
	// Patch is a unified diff with paths relative to the workspace root
	// and one leading component ("a/", "b/") as git writes them.
	Patch string `json:"patch"`
}

// ApplyPatchOutput is apply_patch's output.
type ApplyPatchOutput struct {
	// Files are the paths the patch changed; Added those it created (added
	// with git add --intent-to-add), Deleted those it removed.
	Files   []string `json:"files"`
	Added   []string `json:"added"`
	Deleted []string `json:"deleted"`
	// Findings are secrets the added lines appear to contain.
	Findings []audit.Finding `json:"findings,omitempty"`
}

// patchFile is what a patch's headers say about one file.
type patchFile struct {
	old, new string // "" for /dev/null
	created  bool
	deleted  bool
}

// parsePatch reads a unified diff's headers and refuses what apply_patch
// never applies. It does not judge paths; see applyPatch.
//
// Between a "diff --git" line and its first hunk git reads extended
// header lines (git-diff(1), "generating patches"); every one it knows
// is listed here, and only "index", the ---/+++ pair and a regular file's
// "new file mode 100644" / "deleted file mode 100644|100755" pass. Any
// other line there — renames and copies in either spelling ("rename
// from/to" and git's older "rename old/new"), similarity, mode changes,
// executable, symlink or submodule modes, binary patches, or a line git
// may read in a later version — refuses the whole patch: a header this
// reader does not judge must never reach git apply.
func parsePatch(p string) ([]patchFile, error) {
	var files []patchFile
	var cur *patchFile
	headers := false  // cur's ---/+++ lines were read
	inHeader := false // between "diff --git" and the first hunk
	lines := strings.Split(p, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		at := func(format string, args ...any) error {
			return refusef("patch line %d: %s", i+1, fmt.Sprintf(format, args...))
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			p := workspace.DiffGitPath(line)
			if p == "" {
				return nil, at("cannot read the paths of %q", line)
			}
			files = append(files, patchFile{old: p, new: p})
			cur, headers, inHeader = &files[len(files)-1], false, true
			continue
		case strings.HasPrefix(line, "GIT binary patch"), strings.HasPrefix(line, "Binary files "):
			return nil, at("binary patches are not applied")
		case strings.HasPrefix(line, "@@"):
			inHeader = false
			continue
		}
		if inHeader {
			switch {
			case strings.HasPrefix(line, "index "):
				f := strings.Fields(line)
				switch {
				case (len(f) != 2 && len(f) != 3) || !indexHashes(f[1]):
					return nil, at("malformed index line %q", truncate(line, 60))
				case len(f) == 3 && f[2] != "100644" && f[2] != "100755":
					return nil, at("file mode %s (symlinks and submodules are not applied)", f[2])
				}
				continue
			case strings.HasPrefix(line, "new file mode "), strings.HasPrefix(line, "deleted file mode "):
				mode := line[strings.LastIndexByte(line, ' ')+1:]
				created := strings.HasPrefix(line, "new")
				switch {
				case created && mode == "100755":
					return nil, at("new executable file (mode 100755): mode changes are not applied")
				case mode != "100644" && mode != "100755":
					return nil, at("file mode %s (symlinks and submodules are not applied)", mode)
				case headers:
					return nil, at("mode line after the ---/+++ header")
				}
				if created {
					cur.created = true
				} else {
					cur.deleted = true
				}
				continue
			case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "):
				// read below
			case strings.HasPrefix(line, "rename "), strings.HasPrefix(line, "copy "),
				strings.HasPrefix(line, "similarity index"), strings.HasPrefix(line, "dissimilarity index"):
				return nil, at("renames and copies are not applied (delete and add instead): %s", headerPaths(lines, i))
			case strings.HasPrefix(line, "old mode "), strings.HasPrefix(line, "new mode "):
				return nil, at("mode changes are not applied")
			default:
				return nil, at("unknown line in a diff --git header: %q", truncate(line, 60))
			}
		}
		if strings.HasPrefix(line, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") {
			if cur == nil || headers {
				files = append(files, patchFile{})
				cur = &files[len(files)-1]
			}
			headers = true
			var err error
			if cur.old, err = patchPath(strings.TrimPrefix(line, "--- ")); err != nil {
				return nil, at("%v", err)
			}
			if cur.new, err = patchPath(strings.TrimPrefix(lines[i+1], "+++ ")); err != nil {
				return nil, at("%v", err)
			}
			if cur.old == "" {
				cur.created = true
			}
			if cur.new == "" {
				cur.deleted = true
			}
			if cur.old != "" && cur.new != "" && cur.old != cur.new {
				return nil, at("the old and new paths differ (renames are not applied)")
			}
			i++
		} else if inHeader {
			return nil, at("a ---/+++ pair is expected here")
		}
	}
	if len(files) == 0 {
		return nil, refusef("patch: no file headers (--- a/PATH, +++ b/PATH) found")
	}
	return files, nil
}

// headerPaths names both paths of the diff --git header above line i, and
// those of its rename/copy lines: a refusal says what the patch would
// have moved where.
func headerPaths(lines []string, i int) string {
	var names []string
	for j := i; j >= 0; j-- {
		l := lines[j]
		for _, p := range []string{"rename from ", "rename to ", "rename old ", "rename new ", "copy from ", "copy to "} {
			if rest, ok := strings.CutPrefix(l, p); ok && j >= i {
				names = append(names, rest)
			}
		}
		if rest, ok := strings.CutPrefix(l, "diff --git "); ok {
			if f := strings.Fields(rest); len(f) == 2 {
				names = append(names, strings.TrimPrefix(f[0], "a/"), strings.TrimPrefix(f[1], "b/"))
			} else {
				names = append(names, rest)
			}
			break
		}
	}
	for k := i + 1; k < len(lines) && !strings.HasPrefix(lines[k], "diff --git ") && !strings.HasPrefix(lines[k], "@@"); k++ {
		for _, p := range []string{"rename to ", "rename new ", "copy to "} {
			if rest, ok := strings.CutPrefix(lines[k], p); ok {
				names = append(names, rest)
			}
		}
	}
	var uniq []string
	for _, n := range names {
		if !slices.Contains(uniq, n) {
			uniq = append(uniq, n)
		}
	}
	return strings.Join(uniq, ", ")
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// checkSummary reads `git apply --summary` and refuses anything but the
// creation of a regular, non-executable file and the deletion of a
// regular one: what git would do beyond the hunks must be what the
// headers said.
func checkSummary(s string) error {
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "":
		case strings.HasPrefix(l, "create mode 100644 "), strings.HasPrefix(l, "delete mode 100644 "),
			strings.HasPrefix(l, "delete mode 100755 "),
			// A patch without a diff --git header carries no mode: git
			// creates a regular 0644 file.
			strings.HasPrefix(l, "create ") && !strings.HasPrefix(l, "create mode "),
			strings.HasPrefix(l, "delete ") && !strings.HasPrefix(l, "delete mode "):
		default:
			return refusef("patch: git apply would %s", truncate(l, 120))
		}
	}
	return nil
}

// patchPath strips a header path's timestamp and its first component.
func patchPath(s string) (string, error) {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	if s == "/dev/null" {
		return "", nil
	}
	if strings.HasPrefix(s, `"`) {
		return "", errors.New("quoted paths are not applied")
	}
	_, rest, ok := strings.Cut(s, "/")
	if !ok || rest == "" {
		return "", fmt.Errorf("path %q has no leading component (write a/PATH and b/PATH)", s)
	}
	return rest, nil
}

func (t *Tools) applyPatch(ctx context.Context, a ApplyPatchArgs, n *note) (ApplyPatchOutput, error) {
	out := ApplyPatchOutput{Files: []string{}, Added: []string{}, Deleted: []string{}}
	if strings.TrimSpace(a.Patch) == "" {
		return out, refusef("patch: empty")
	}
	if strings.IndexByte(a.Patch, 0) >= 0 {
		return out, refusef("patch: contains a NUL byte")
	}
	patch := a.Patch
	if !strings.HasSuffix(patch, "\n") {
		patch += "\n"
	}
	files, err := parsePatch(patch)
	if err != nil {
		return out, err
	}
	// What git apply itself reads from the patch must pass too: its paths
	// (numstat) and what it would do beyond the hunks (summary).
	stat, err := t.w.Git(ctx, patch, "apply", "--numstat", "-z", "-")
	if err != nil {
		return out, refusef("%v", gitMessage(err))
	}
	summary, err := t.w.Git(ctx, patch, "apply", "--summary", "-")
	if err != nil {
		return out, refusef("%v", gitMessage(err))
	}
	if err := checkSummary(string(summary)); err != nil {
		return out, err
	}
	gitPaths, err := numstatPaths(string(stat))
	if err != nil {
		return out, err
	}
	pol := t.w.Policy()
	seen := map[string]bool{}
	for _, p := range gitPaths {
		if _, _, err := pol.Resolve(p, pathpolicy.Write); err != nil {
			return out, boundary(err)
		}
		seen[p] = true
	}
	for _, f := range files {
		p := f.new
		if p == "" {
			p = f.old
		}
		clean, abs, err := pol.Resolve(p, pathpolicy.Write)
		if err != nil {
			return out, boundary(err)
		}
		if !seen[clean] {
			return out, refusef("patch: git apply does not read %s as the headers do", clean)
		}
		_, statErr := os.Lstat(abs)
		switch {
		case f.created && statErr == nil:
			return out, refusef("%s already exists", clean)
		case f.created && !errors.Is(statErr, fs.ErrNotExist):
			return out, statErr
		case !f.created:
			tracked, err := t.w.Tracked(ctx, clean)
			if err != nil {
				return out, err
			}
			if !tracked {
				return out, refusef("%s is not tracked by git", clean)
			}
		}
		if f.created {
			out.Added = append(out.Added, clean)
		}
		if f.deleted {
			out.Deleted = append(out.Deleted, clean)
		}
		if !slices.Contains(out.Files, clean) {
			out.Files = append(out.Files, clean)
		}
	}
	if len(out.Files) != len(seen) {
		return out, refusef("patch: git apply reads %d files, the headers name %d", len(seen), len(out.Files))
	}
	if _, err := t.w.Git(ctx, patch, "apply", "--check", "-"); err != nil {
		return out, refusef("%v", gitMessage(err))
	}
	if _, err := t.w.Git(ctx, patch, "apply", "-"); err != nil {
		return out, refusef("%v", gitMessage(err))
	}
	if len(out.Added) > 0 {
		args := []string{"add", "--intent-to-add", "--"}
		for _, p := range out.Added {
			args = append(args, ":(literal)"+p)
		}
		if _, err := t.w.Git(ctx, "", args...); err != nil {
			return out, fmt.Errorf("tools: %w", err)
		}
	}
	for _, f := range out.Files {
		delete(t.version, f) // the file changed: read it again before replacing
	}
	_, ff := workspace.ScanPatch(patch)
	for _, f := range ff {
		out.Findings = append(out.Findings, f.Finding)
	}
	n.findings = out.Findings
	n.summary = fmt.Sprintf("patched %d file(s), %d added, %d deleted", len(out.Files), len(out.Added), len(out.Deleted))
	return out, nil
}

// numstatPaths reads `git apply --numstat -z`: ADDED\tDELETED\tPATH\0 per
// file, "-" counts for binary files, and for a rename or copy an empty
// path followed by two NUL-terminated paths.
func numstatPaths(s string) ([]string, error) {
	var out []string
	fields := strings.Split(s, "\x00")
	for i := 0; i < len(fields); i++ {
		rec := fields[i]
		if rec == "" {
			continue
		}
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("tools: unexpected git apply --numstat record %q", rec)
		}
		if parts[0] == "-" || parts[1] == "-" {
			return nil, refusef("patch: binary changes are not applied")
		}
		if parts[2] == "" {
			return nil, refusef("patch: renames and copies are not applied")
		}
		out = append(out, parts[2])
	}
	return out, nil
}

// gitMessage returns a git failure's message without the git command
// line.
func gitMessage(err error) string {
	var ge *workspace.GitError
	if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) != "" {
		return strings.TrimSpace(ge.Stderr)
	}
	return err.Error()
}

// GitDiffArgs are git_diff's arguments.
type GitDiffArgs struct {
	// Paths limit the diff (relative paths; default the whole tree).
	Paths []string `json:"paths,omitempty"`
}

// GitDiffOutput is git_diff's output.
type GitDiffOutput struct {
	Diff      string `json:"diff"`
	Truncated bool   `json:"truncated,omitempty"`
}

func (t *Tools) gitDiff(ctx context.Context, a GitDiffArgs, n *note) (GitDiffOutput, error) {
	var paths []string
	for _, p := range a.Paths {
		c, err := pathpolicy.Clean(p)
		if err != nil {
			return GitDiffOutput{}, boundary(err)
		}
		paths = append(paths, c)
	}
	d, err := t.w.Diff(ctx, paths...)
	if err != nil {
		return GitDiffOutput{}, fmt.Errorf("tools: %w", err)
	}
	out := GitDiffOutput{}
	// A diff reads from its first file: keep the head (redacted as every
	// result is, after the cut at a line end).
	out.Diff, out.Truncated = keepHead(string(d), t.lim.MaxOutputBytes)
	n.summary = fmt.Sprintf("diff of %d bytes", len(d))
	return out, nil
}

// indexHashes reports an index line's OLD..NEW: two object names of 4 to
// 64 hex digits (git abbreviates to no fewer than 4).
func indexHashes(s string) bool {
	a, b, ok := strings.Cut(s, "..")
	return ok && hexName(a) && hexName(b)
}

func hexName(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
