package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/bundle"
	"github.com/rivumi/rivumi/workspace/internal/gittest"
)

func prepare(t *testing.T, o workspace.PrepareOptions) (*workspace.Workspace, error) {
	t.Helper()
	w, err := workspace.Prepare(context.Background(), o)
	if err == nil {
		t.Cleanup(func() { w.Close() })
	}
	return w, err
}

// The clone is pinned to the commit, not to the source's dirty state:
// an older commit, while the source has uncommitted and untracked files.
func TestPreparePinsTheCommit(t *testing.T) {
	src, first := gittest.Repo(t, map[string]string{"f.txt": "one\n"})
	gittest.Commit(t, src, map[string]string{"f.txt": "two\n"}, "second")
	gittest.Write(t, src, map[string]string{"f.txt": "dirty\n", "untracked.txt": "u\n"})
	before := gittest.Fingerprint(t, src)

	w, err := prepare(t, workspace.PrepareOptions{Source: src, Commit: first, RunRoot: t.TempDir(), Name: "run1", Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(w.Dir(), "f.txt")); string(b) != "one\n" {
		t.Errorf("f.txt in the clone = %q, want the pinned commit's %q", b, "one\n")
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "untracked.txt")); err == nil {
		t.Error("an untracked source file reached the clone")
	}
	head, err := w.Git(context.Background(), "", "rev-parse", "HEAD")
	if err != nil || strings.TrimSpace(string(head)) != first {
		t.Errorf("HEAD = %q, %v; want %s", head, err, first)
	}
	if sym, _ := w.Git(context.Background(), "", "symbolic-ref", "-q", "HEAD"); len(sym) != 0 {
		t.Errorf("HEAD is not detached: %s", sym)
	}
	if remotes, _ := w.Git(context.Background(), "", "remote"); len(remotes) != 0 {
		t.Errorf("the clone keeps a remote: %s", remotes)
	}
	// No object file is shared with the source (--no-hardlinks).
	var st1, st2 os.FileInfo
	filepath.WalkDir(filepath.Join(w.Dir(), ".git", "objects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && st1 == nil {
			rel, _ := filepath.Rel(filepath.Join(w.Dir(), ".git"), p)
			if fi, err := os.Stat(filepath.Join(src, ".git", rel)); err == nil {
				st1, _ = os.Stat(p)
				st2 = fi
			}
		}
		return nil
	})
	if st1 != nil && os.SameFile(st1, st2) {
		t.Error("an object file is hard-linked to the source")
	}
	var req bundle.Request
	if err := w.Bundle().ReadJSON(bundle.RequestFile, &req); err != nil || req.Commit != first || req.Task != "t" {
		t.Errorf("request.json = %+v, %v", req, err)
	}
	if after := gittest.Fingerprint(t, src); after != before {
		t.Error("Prepare changed the source repository")
	}
}

func TestPrepareRefusals(t *testing.T) {
	src, sha := gittest.Repo(t, map[string]string{"f": "x"})
	root := t.TempDir()
	if _, err := prepare(t, workspace.PrepareOptions{Source: src, Commit: sha, RunRoot: root, Name: "taken"}); err != nil {
		t.Fatal(err)
	}
	inSource := filepath.Join(src, "runs")
	os.Mkdir(inSource, 0o755)
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(src, link)
	tree := gittest.Git(t, src, "rev-parse", "HEAD^{tree}")
	tests := []struct {
		name string
		o    workspace.PrepareOptions
		err  string
	}{
		{"short sha", workspace.PrepareOptions{Commit: sha[:12]}, "full 40-character SHA"},
		{"branch", workspace.PrepareOptions{Commit: "main"}, "full 40-character SHA"},
		{"unknown commit", workspace.PrepareOptions{Commit: strings.Repeat("ab", 20)}, "not found"},
		{"a tree, not a commit", workspace.PrepareOptions{Commit: tree}, "not found"},
		{"run dir in source", workspace.PrepareOptions{RunRoot: inSource}, "inside the source"},
		{"run dir in source via symlink", workspace.PrepareOptions{RunRoot: link}, "inside the source"},
		{"run dir in .git", workspace.PrepareOptions{RunRoot: filepath.Join(src, ".git")}, "inside the source"},
		{"existing", workspace.PrepareOptions{Name: "taken"}, "already exists"},
		{"two segments", workspace.PrepareOptions{Name: "a/b"}, "one path segment"},
		{"dot-dot", workspace.PrepareOptions{Name: ".."}, "one path segment"},
		{"empty name", workspace.PrepareOptions{Name: ""}, "one path segment"},
		{"bad check", workspace.PrepareOptions{Config: workspace.Config{Checks: []bundle.Check{{Name: "t", Argv: []string{"go", "te\x00st"}}}}}, "checks[0].argv[1]"},
		{"bad pattern", workspace.PrepareOptions{Config: workspace.Config{AllowedPaths: []string{"src/"}}}, "allowed_paths[0]"},
		{"deadline", workspace.PrepareOptions{Timeout: time.Nanosecond, Name: "late"}, "deadline exceeded"},
	}
	for _, tt := range tests {
		o := tt.o
		if o.Source == "" {
			o.Source = src
		}
		if o.Commit == "" {
			o.Commit = sha
		}
		if o.RunRoot == "" {
			o.RunRoot = root
		}
		if o.Name == "" && tt.name != "empty name" {
			o.Name = "r-" + strings.ReplaceAll(tt.name, " ", "-")
		}
		_, err := prepare(t, o)
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: Prepare = %v, want an error mentioning %q", tt.name, err, tt.err)
		}
		if tt.name == "deadline" {
			if _, serr := os.Stat(filepath.Join(root, "late")); serr == nil {
				t.Error("a failed Prepare left its run directory")
			}
		}
	}
}

func TestOpenLocksAndReloads(t *testing.T) {
	src, sha := gittest.Repo(t, map[string]string{"f": "x"})
	w, err := prepare(t, workspace.PrepareOptions{Source: src, Commit: sha, RunRoot: t.TempDir(), Name: "r",
		Config: workspace.Config{AllowedPaths: []string{"./src//**"}, Checks: []bundle.Check{{Name: "ok", Argv: []string{"true"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	opened := make(chan *workspace.Workspace)
	go func() {
		w2, err := workspace.Open(w.RunDir())
		if err != nil {
			t.Error(err)
		}
		opened <- w2
	}()
	select {
	case <-opened:
		t.Fatal("Open did not wait for the lock")
	case <-time.After(100 * time.Millisecond):
	}
	w.Close()
	w2 := <-opened
	defer w2.Close()
	if w2.Commit() != sha || w2.Policy().Patterns()[0].String() != "src/**" {
		t.Errorf("reopened: commit %s, patterns %v", w2.Commit(), w2.Policy().Patterns())
	}
	if _, ok := w2.Check("ok"); !ok {
		t.Error("check not reloaded")
	}
}

func TestOpenNoWaitRefusesABusyRun(t *testing.T) {
	src, sha := gittest.Repo(t, map[string]string{"f": "x"})
	w, err := prepare(t, workspace.PrepareOptions{Source: src, Commit: sha, RunRoot: t.TempDir(), Name: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := workspace.OpenNoWait(w.RunDir()); !errors.Is(err, workspace.ErrBusy) {
		t.Fatalf("OpenNoWait of a locked run = %v, want ErrBusy", err)
	}
	w.Close()
	w2, err := workspace.OpenNoWait(w.RunDir())
	if err != nil {
		t.Fatalf("OpenNoWait of a free run: %v", err)
	}
	w2.Close()
}

// A command run in the clone (repository code: a check, the shell) plants
// what would make rivumi's own git run its code or read elsewhere: every
// git call refuses, and the planted filter never runs.
func TestGitRefusesPlantedConfig(t *testing.T) {
	filter := func(marker string) string {
		return "[filter \"x\"]\n\tclean = touch " + marker + "\n\tsmudge = touch " + marker + "\n"
	}
	plants := []struct {
		name  string
		plant func(t *testing.T, w *workspace.Workspace, marker string)
	}{
		{"a filter in the config", func(t *testing.T, w *workspace.Workspace, marker string) {
			appendFile(t, filepath.Join(w.GitDir(), "config"), filter(marker))
		}},
		{"commondir pointing at a config with a filter", func(t *testing.T, w *workspace.Workspace, marker string) {
			other := t.TempDir()
			os.WriteFile(filepath.Join(other, "config"), []byte(workspace.CloneConfig+filter(marker)), 0o644)
			os.WriteFile(filepath.Join(w.GitDir(), "commondir"), []byte(other+"\n"), 0o644)
		}},
		{"config.worktree", func(t *testing.T, w *workspace.Workspace, marker string) {
			os.WriteFile(filepath.Join(w.GitDir(), "config.worktree"), []byte(filter(marker)), 0o644)
		}},
		{"info/attributes", func(t *testing.T, w *workspace.Workspace, marker string) {
			os.MkdirAll(filepath.Join(w.GitDir(), "info"), 0o755)
			os.WriteFile(filepath.Join(w.GitDir(), "info", "attributes"), []byte("* filter=x\n"), 0o644)
		}},
		{"a hook", func(t *testing.T, w *workspace.Workspace, marker string) {
			os.WriteFile(filepath.Join(w.GitDir(), "hooks", "post-index-change"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
		}},
		{"info/exclude hiding files", func(t *testing.T, w *workspace.Workspace, marker string) {
			os.MkdirAll(filepath.Join(w.GitDir(), "info"), 0o755)
			appendFile(t, filepath.Join(w.GitDir(), "info", "exclude"), "*.txt\n")
		}},
		{"alternates", func(t *testing.T, w *workspace.Workspace, marker string) {
			os.WriteFile(filepath.Join(w.GitDir(), "objects", "info", "alternates"), []byte(t.TempDir()+"\n"), 0o644)
		}},
		{"a git directory of its own in the work tree", func(t *testing.T, w *workspace.Workspace, marker string) {
			os.Remove(filepath.Join(w.Dir(), ".git"))
			d := filepath.Join(w.Dir(), ".git")
			os.MkdirAll(filepath.Join(d, "objects"), 0o755)
			os.MkdirAll(filepath.Join(d, "refs"), 0o755)
			os.WriteFile(filepath.Join(d, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
			os.WriteFile(filepath.Join(d, "config"), []byte(workspace.CloneConfig+filter(marker)), 0o644)
		}},
	}
	for _, p := range plants {
		t.Run(p.name, func(t *testing.T) {
			src, sha := gittest.Repo(t, map[string]string{"f": "x"})
			w, err := prepare(t, workspace.PrepareOptions{Source: src, Commit: sha, RunRoot: t.TempDir(), Name: "r"})
			if err != nil {
				t.Fatal(err)
			}
			if inside(w.Dir(), w.GitDir()) {
				t.Fatalf("the git directory %s is inside the work tree", w.GitDir())
			}
			if _, err := w.Diff(context.Background()); err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(t.TempDir(), "ran")
			gittest.Write(t, w.Dir(), map[string]string{".gitattributes": "* filter=x\n", "f": "changed"})
			p.plant(t, w, marker)
			if res, err := w.Finish(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "not running git") || res.Status != bundle.StatusFailed {
				t.Errorf("Finish = %v, %s; want a refusal, failed", err, res.Status)
			}
			var res bundle.Result
			if err := w.Bundle().ReadJSON(bundle.ResultFile, &res); err != nil || res.Status != bundle.StatusFailed ||
				!strings.Contains(strings.Join(res.Problems, " "), "not running git") {
				t.Errorf("result.json: %v %+v; want failed, saying why", err, res)
			}
			if _, err := w.Diff(context.Background()); err == nil {
				t.Error("Diff ran")
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("code planted in the clone ran in rivumi's git")
			}
		})
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && !strings.HasPrefix(rel, "..")
}

func TestFinishWritesPatchAndFindings(t *testing.T) {
	src, sha := gittest.Repo(t, map[string]string{"f.txt": "one\n"})
	w, err := prepare(t, workspace.PrepareOptions{Source: src, Commit: sha, RunRoot: t.TempDir(), Name: "r"})
	if err != nil {
		t.Fatal(err)
	}
	gittest.Write(t, w.Dir(), map[string]string{"f.txt": "one\nGITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ\n"})
	res, err := w.Finish(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != bundle.StatusUnverified || res.Reason != "finished" || len(res.ChangedFiles) != 1 || res.ChangedFiles[0] != "f.txt" {
		t.Errorf("result = %+v", res)
	}
	if len(res.Findings) != 1 || res.Findings[0].File != "f.txt" || res.Findings[0].Kind != "github-token" {
		t.Errorf("findings = %+v", res.Findings)
	}
	patch, _ := os.ReadFile(w.Bundle().File(bundle.PatchFile))
	if !strings.Contains(string(patch), "+GITHUB_TOKEN=[REDACTED]") || strings.Contains(string(patch), "ghp_") {
		t.Errorf("changes.patch:\n%s", patch)
	}
	for _, f := range []string{bundle.RequestFile, bundle.PatchFile, bundle.VerificationFile, bundle.TestLogFile, bundle.ResultFile} {
		if _, err := os.Stat(w.Bundle().File(f)); err != nil {
			t.Errorf("bundle misses %s", f)
		}
	}
}

// allowed_paths binds the final change, however it was made: a test's
// oracle edited by a shell command (cp greeting.txt expected.txt) fails
// the run, naming the file, even with every check passing.
func TestFinishFailsOutsideAllowedPaths(t *testing.T) {
	src, sha := gittest.Repo(t, map[string]string{"greeting.txt": "Hello, wrold!\n", "expected.txt": "Hello, world!\n",
		"notes/a.txt": "a\n", "old.txt": "old\n"})
	w, err := prepare(t, workspace.PrepareOptions{Source: src, Commit: sha, RunRoot: t.TempDir(), Name: "r",
		Config: workspace.Config{AllowedPaths: []string{"greeting.txt", "notes/**", "src/**"}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Finish(context.Background(), "")
	if err != nil || len(res.OutsideAllowed) != 0 {
		t.Fatalf("no change: %v %+v", err, res)
	}
	gittest.Write(t, w.Dir(), map[string]string{"expected.txt": "Hello, wrold!\n", "notes/b.txt": "new\n", "stray.txt": "x\n"})
	os.Mkdir(filepath.Join(w.Dir(), "src"), 0o755)
	if err := os.Rename(filepath.Join(w.Dir(), "old.txt"), filepath.Join(w.Dir(), "src", "old.txt")); err != nil {
		t.Fatal(err)
	}
	res, err = w.Finish(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"expected.txt", "old.txt", "stray.txt"}
	if res.Status != bundle.StatusFailed || strings.Join(res.OutsideAllowed, ",") != strings.Join(want, ",") {
		t.Errorf("status %s, outside %v; want failed, %v", res.Status, res.OutsideAllowed, want)
	}
	b, _ := os.ReadFile(w.Bundle().File(bundle.ResultFile))
	if !strings.Contains(string(b), `"expected.txt"`) {
		t.Errorf("result.json does not name expected.txt:\n%s", b)
	}
}

// What a check could do to hide a write from finish is caught: a
// .gitignore that ignores itself and its neighbours, a .git planted in a
// directory (git then skips it whole).
func TestFinishSeesHiddenWrites(t *testing.T) {
	cases := []struct {
		name        string
		files       map[string]string
		wantOutside []string
		wantProblem string
	}{
		{"a self-ignoring .gitignore", map[string]string{"docs/.gitignore": "*\n", "docs/evil.txt": "x\n"},
			[]string{"docs/.gitignore", "docs/evil.txt"}, ""},
		{"a changed root .gitignore", map[string]string{".gitignore": "*.txt\n", "evil.txt": "x\n", "src/ok.go": "package ok\n"},
			[]string{".gitignore", "evil.txt"}, ""},
		{"a .git planted in a new directory", map[string]string{"vendor/.git/HEAD": "ref: refs/heads/main\n", "vendor/evil.txt": "x\n"},
			[]string{"vendor"}, "vendor/.git: a .git planted"},
		{"a .git planted in an allowed directory", map[string]string{"src/x/.git/HEAD": "ref: refs/heads/main\n", "src/x/a.go": "x\n"},
			nil, "src/x/.git: a .git planted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, sha := gittest.Repo(t, map[string]string{"greeting.txt": "hi\n", "src/main.go": "package main\n"})
			w, err := prepare(t, workspace.PrepareOptions{Source: src, Commit: sha, RunRoot: t.TempDir(), Name: "r",
				Config: workspace.Config{AllowedPaths: []string{"greeting.txt", "src/**"}}})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{"vendor/.git", "src/x/.git"} {
				if _, ok := c.files[d+"/HEAD"]; ok {
					os.MkdirAll(filepath.Join(w.Dir(), d, "objects"), 0o755)
					os.MkdirAll(filepath.Join(w.Dir(), d, "refs"), 0o755)
				}
			}
			gittest.Write(t, w.Dir(), c.files)
			res, err := w.Finish(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != bundle.StatusFailed || strings.Join(res.OutsideAllowed, ",") != strings.Join(c.wantOutside, ",") {
				t.Errorf("status %s, outside %v; want failed, %v", res.Status, res.OutsideAllowed, c.wantOutside)
			}
			if c.wantProblem != "" && !strings.Contains(strings.Join(res.Problems, "\n"), c.wantProblem) {
				t.Errorf("problems %q, want %q", res.Problems, c.wantProblem)
			}
		})
	}
}

// A check that rewrites the work tree while it runs (an oracle
// regenerated, a file formatted) cannot leave the run passed, nor can a
// change made after the checks by anything but a tool call.
func TestFinishFailsACheckThatChangedTheTree(t *testing.T) {
	cases := []struct {
		name        string
		during      map[string]string // written while the "check" runs
		after       map[string]string // written after it, before finish
		wantStatus  string
		wantProblem string
	}{
		{"nothing changed", nil, nil, bundle.StatusPassed, ""},
		{"the check rewrote a file", map[string]string{"src/main.go": "package main // formatted\n"}, nil,
			bundle.StatusFailed, "check test changed the work tree while it ran"},
		{"the check created a file", map[string]string{"src/new.go": "package main\n"}, nil,
			bundle.StatusFailed, "check test changed the work tree while it ran"},
		{"a leftover process wrote after the check", nil, map[string]string{"src/main.go": "package main // later\n"},
			bundle.StatusFailed, "the work tree changed after check test ran"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, sha := gittest.Repo(t, map[string]string{"src/main.go": "package main\n"})
			w, err := prepare(t, workspace.PrepareOptions{Source: src, Commit: sha, RunRoot: t.TempDir(), Name: "r",
				Config: workspace.Config{AllowedPaths: []string{"src/**"}, Checks: []bundle.Check{{Name: "test", Argv: []string{"true"}}}}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			gittest.Write(t, w.Dir(), map[string]string{"src/main.go": "package main // fixed\n"})
			before, err := w.TreeDigest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			gittest.Write(t, w.Dir(), c.during)
			if err := w.RecordCheck(bundle.CheckResult{Name: "test", Argv: []string{"true"}, Started: time.Now().UTC(), Ran: true, Passed: true, TreeBefore: before}, "ok\n"); err != nil {
				t.Fatal(err)
			}
			gittest.Write(t, w.Dir(), c.after)
			res, err := w.Finish(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != c.wantStatus || (c.wantProblem != "" && !strings.Contains(strings.Join(res.Problems, "\n"), c.wantProblem)) {
				t.Errorf("status %s, problems %q; want %s, %q", res.Status, res.Problems, c.wantStatus, c.wantProblem)
			}
		})
	}
}
