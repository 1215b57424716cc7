package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/workspace/pathpolicy"
)

// ListFilesArgs are list_files' arguments.
type ListFilesArgs struct {
	// Path is the directory to list, relative to the workspace root
	// (default ".").
	Path string `json:"path,omitempty"`
}

// Entry is one listed entry.
type Entry struct {
	Path string `json:"path"`
	// Type is "file", "dir", "symlink" or "other".
	Type string `json:"type"`
	Size int64  `json:"size,omitempty"`
}

// ListFilesOutput is list_files' output.
type ListFilesOutput struct {
	Entries []Entry `json:"entries"`
	// Truncated reports that the listing stopped at the entry limit.
	Truncated bool `json:"truncated,omitempty"`
}

func (t *Tools) listFiles(_ context.Context, a ListFilesArgs, n *note) (ListFilesOutput, error) {
	if a.Path == "" {
		a.Path = "."
	}
	out := ListFilesOutput{Entries: []Entry{}}
	err := t.w.Policy().Walk(a.Path, func(rel string, d fs.DirEntry) error {
		if len(out.Entries) >= t.lim.MaxEntries {
			out.Truncated = true
			return fs.SkipAll
		}
		e := Entry{Path: rel, Type: "other"}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			e.Type = "symlink"
		case d.IsDir():
			e.Type = "dir"
		case d.Type().IsRegular():
			e.Type = "file"
			if fi, err := d.Info(); err == nil {
				e.Size = fi.Size()
			}
		}
		out.Entries = append(out.Entries, e)
		return nil
	})
	if err != nil {
		return out, boundary(err)
	}
	n.summary = fmt.Sprintf("%d entries under %s", len(out.Entries), a.Path)
	return out, nil
}

// boundary turns policy refusals and missing files into observations.
func boundary(err error) error {
	switch {
	case err == nil:
		return nil
	case pathpolicy.IsRefusal(err):
		return &Refusal{Reason: err.Error()}
	case errors.Is(err, fs.ErrNotExist):
		return refusef("%v", stripRoot(err))
	case errors.Is(err, errLoop):
		return refusef("is a symlink: %v", stripRoot(err))
	case errors.Is(err, errIsDir), errors.Is(err, errNotDir):
		return refusef("%v", stripRoot(err))
	}
	return err
}

// stripRoot reports a path error without the absolute path.
func stripRoot(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + " " + filepath.Base(pe.Path) + ": " + pe.Err.Error()
	}
	return err.Error()
}

// ReadFileArgs are read_file's arguments.
type ReadFileArgs struct {
	Path string `json:"path"`
}

// ReadFileOutput is read_file's output.
type ReadFileOutput struct {
	Path string `json:"path"`
	// Content is the file's text, redacted.
	Content string `json:"content"`
	// SHA256 is the hex SHA-256 of the bytes read: the read version
	// replace_text checks.
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// Redacted reports that the redactor replaced something in Content
	// (text containing [REDACTED] will not match in replace_text).
	Redacted bool `json:"redacted,omitempty"`
}

func (t *Tools) readFile(_ context.Context, a ReadFileArgs, n *note) (ReadFileOutput, error) {
	clean, _, err := t.w.Policy().Resolve(a.Path, pathpolicy.Read)
	if err != nil {
		return ReadFileOutput{}, boundary(err)
	}
	n.path = clean
	b, err := t.readRegular(clean, false)
	if err != nil {
		return ReadFileOutput{}, err
	}
	if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
		return ReadFileOutput{}, refusef("%s is not a text file", clean)
	}
	sum := sha(b)
	t.version[clean] = sum
	n.sha = sum
	content := audit.Redact(string(b))
	n.summary = fmt.Sprintf("read %s (%d bytes)", clean, len(b))
	return ReadFileOutput{Path: clean, Content: content, SHA256: sum, Size: int64(len(b)), Redacted: content != string(b)}, nil
}

// readRegular reads a regular file, rel to the workspace, up to the size
// limit. It is opened through a root handle (see [openBeneath]): no
// component may lead out of the workspace, the last is not followed, and
// a FIFO or device is refused without blocking. forWrite (the read
// before a replace) also refuses a file with more than one hard link.
func (t *Tools) readRegular(rel string, forWrite bool) ([]byte, error) {
	abs := rel
	f, err := openBeneath(t.w.Dir(), rel, os.O_RDONLY, 0, forWrite)
	if err != nil {
		return nil, boundary(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, refusef("%s is not a regular file", filepath.Base(abs))
	}
	if fi.Size() > t.lim.MaxFileBytes {
		return nil, refusef("%s is %d bytes, above the limit of %d", filepath.Base(abs), fi.Size(), t.lim.MaxFileBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, t.lim.MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > t.lim.MaxFileBytes {
		return nil, refusef("%s grew above the limit of %d bytes", filepath.Base(abs), t.lim.MaxFileBytes)
	}
	return b, nil
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// SearchTextArgs are search_text's arguments.
type SearchTextArgs struct {
	// Query is the fixed string to find (not a pattern). Required.
	Query string `json:"query"`
	// Path is the directory (or file) to search (default ".").
	Path string `json:"path,omitempty"`
}

// Match is one matching line.
type Match struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// SearchTextOutput is search_text's output.
type SearchTextOutput struct {
	Matches []Match `json:"matches"`
	// Truncated reports that the match limit or the limit of bytes read
	// was reached.
	Truncated bool `json:"truncated,omitempty"`
	// Skipped counts files not searched (binary, too large, unreadable).
	Skipped int `json:"skipped,omitempty"`
}

func (t *Tools) searchText(_ context.Context, a SearchTextArgs, n *note) (SearchTextOutput, error) {
	out := SearchTextOutput{Matches: []Match{}}
	if a.Query == "" {
		return out, refusef("query: empty")
	}
	if strings.ContainsAny(a.Query, "\n\x00") {
		return out, refusef("query: must be one line without NUL bytes")
	}
	if a.Path == "" {
		a.Path = "."
	}
	var read int64
	search := func(rel string) error {
		if read >= t.lim.MaxSearchBytes {
			out.Truncated = true
			return fs.SkipAll
		}
		b, err := t.readRegular(rel, false)
		read += int64(len(b))
		if err != nil || !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
			out.Skipped++
			return nil
		}
		for i, line := range strings.Split(string(b), "\n") {
			if !strings.Contains(line, a.Query) {
				continue
			}
			if len(out.Matches) >= t.lim.MaxMatches {
				out.Truncated = true
				return fs.SkipAll
			}
			if len(line) > t.lim.MaxLineBytes {
				line = strings.ToValidUTF8(line[:t.lim.MaxLineBytes], "") + "…"
			}
			out.Matches = append(out.Matches, Match{Path: rel, Line: i + 1, Text: line})
		}
		return nil
	}
	clean, _, err := t.w.Policy().Resolve(a.Path, pathpolicy.Read)
	if err != nil {
		return out, boundary(err)
	}
	root, err := os.OpenRoot(t.w.Dir())
	if err != nil {
		return out, err
	}
	fi, err := root.Lstat(clean)
	root.Close()
	if err == nil && fi.Mode().IsRegular() {
		search(clean) //nolint:errcheck
	} else {
		err = t.w.Policy().Walk(a.Path, func(rel string, d fs.DirEntry) error {
			if !d.Type().IsRegular() {
				return nil
			}
			return search(filepath.FromSlash(rel))
		})
		if err != nil {
			return out, boundary(err)
		}
	}
	n.summary = fmt.Sprintf("%d matches for a %d-byte query under %s", len(out.Matches), len(a.Query), clean)
	return out, nil
}

// ReplaceTextArgs are replace_text's arguments.
type ReplaceTextArgs struct {
	// Path is a git-tracked text file read with read_file before.
	Path string `json:"path"`
	// Old is the exact text to replace (non-empty); it must occur exactly
	// once unless All is set.
	Old string `json:"old"`
	New string `json:"new"`
	// All replaces every occurrence.
	All bool `json:"all,omitempty"`
}

// ReplaceTextOutput is replace_text's output.
type ReplaceTextOutput struct {
	Path         string `json:"path"`
	Replacements int    `json:"replacements"`
	// SHA256 is the new read version of the file.
	SHA256 string `json:"sha256"`
	// Findings are secrets the written text appears to contain.
	Findings []audit.Finding `json:"findings,omitempty"`
}

// replaceHook, when set by tests, runs after the temporary file is
// renamed over the target; an error makes the write roll back.
var replaceHook func(path string) error

func (t *Tools) replaceText(ctx context.Context, a ReplaceTextArgs, n *note) (ReplaceTextOutput, error) {
	clean, _, err := t.w.Policy().Resolve(a.Path, pathpolicy.Write)
	if err != nil {
		return ReplaceTextOutput{}, boundary(err)
	}
	n.path = clean
	if a.Old == "" {
		return ReplaceTextOutput{}, refusef("old: empty")
	}
	tracked, err := t.w.Tracked(ctx, clean)
	if err != nil {
		return ReplaceTextOutput{}, err
	}
	if !tracked {
		return ReplaceTextOutput{}, refusef("%s is not tracked by git (add new files with apply_patch)", clean)
	}
	version, ok := t.versionOf(clean)
	if !ok {
		return ReplaceTextOutput{}, refusef("%s has not been read: call read_file first", clean)
	}
	old, err := t.readRegular(clean, true)
	if err != nil {
		return ReplaceTextOutput{}, err
	}
	if sha(old) != version {
		return ReplaceTextOutput{}, refusef("%s changed since it was read (sha256 %s, read %s): read it again", clean, sha(old)[:12], version[:12])
	}
	count := strings.Count(string(old), a.Old)
	switch {
	case count == 0:
		return ReplaceTextOutput{}, refusef("old text not found in %s", clean)
	case count > 1 && !a.All:
		return ReplaceTextOutput{}, refusef("old text occurs %d times in %s: give more context or set all", count, clean)
	}
	n1 := 1
	if a.All {
		n1 = -1
	}
	next := []byte(strings.Replace(string(old), a.Old, a.New, n1))
	if int64(len(next)) > t.lim.MaxFileBytes {
		return ReplaceTextOutput{}, refusef("the result would be %d bytes, above the limit of %d", len(next), t.lim.MaxFileBytes)
	}
	root, err := os.OpenRoot(t.w.Dir())
	if err != nil {
		return ReplaceTextOutput{}, err
	}
	defer root.Close()
	fi, err := root.Lstat(clean)
	if err != nil {
		return ReplaceTextOutput{}, err
	}
	d, err := openDirNoFollow(t.w.Dir(), filepath.Dir(clean))
	if err != nil {
		return ReplaceTextOutput{}, boundary(err)
	}
	defer d.Close()
	if err := replaceFile(t.w.Dir(), d, clean, old, next, fi.Mode().Perm()); err != nil {
		return ReplaceTextOutput{}, fmt.Errorf("tools: replace %s: %w", clean, err)
	}
	sum := sha(next)
	t.version[clean] = sum
	n.sha = sum
	n.findings = audit.Scan(a.New)
	if !a.All {
		count = 1
	}
	n.summary = fmt.Sprintf("replaced %d occurrence(s) in %s (%d → %d bytes)", count, clean, len(old), len(next))
	return ReplaceTextOutput{Path: clean, Replacements: count, SHA256: sum, Findings: n.findings}, nil
}

// replaceFile writes data over rel atomically, every step in rel's
// directory d, opened with no symlink at any component (see
// [openDirNoFollow]): a temporary NAME.rivumi-replace-<id> beside it
// (O_NOFOLLOW|O_EXCL), fsync, rename, fsync of the directory. If a step
// after the rename fails, the old bytes are put back the same way. The
// rename makes a new file: a hard link to the old one keeps its content
// (replace_text refuses a hard-linked file before it gets here).
func replaceFile(ws string, d *os.File, rel string, old, data []byte, perm fs.FileMode) error {
	name := filepath.Base(rel)
	if err := writeViaTemp(d, name, data, perm); err != nil {
		return err
	}
	var err error
	if replaceHook != nil {
		err = replaceHook(filepath.Join(ws, rel))
	}
	if err == nil {
		err = d.Sync()
	}
	if err != nil {
		if rerr := writeViaTemp(d, name, old, perm); rerr != nil {
			return fmt.Errorf("%w; rollback failed: %w", err, rerr)
		}
		return fmt.Errorf("%w (rolled back)", err)
	}
	return nil
}
