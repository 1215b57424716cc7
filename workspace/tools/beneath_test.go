//go:build linux

package tools_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/workspace/tools"
	"golang.org/x/sys/unix"

	"github.com/rivumi/rivumi/internal/testenv"
)

// The shell's redirects are opened beneath the workspace: a hard link to
// an outside file, a FIFO and a symlink are refused, and rivumi never
// blocks on one.
func TestShellRedirectTargetsBeneath(t *testing.T) {
	f := newFixture(t, withEngine(t), approveAll)
	outside := filepath.Join(t.TempDir(), "profile")
	if err := os.WriteFile(outside, []byte("orig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(f.w.Dir(), "out.txt")); err != nil {
		t.Skip("no hard link across these directories:", err)
	}
	if err := syscall.Mkfifo(filepath.Join(f.w.Dir(), "src", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink(outside, filepath.Join(f.w.Dir(), "src", "link"))
	for _, c := range []struct{ cmd, want string }{
		{"echo x >> out.txt", "hard links"},
		{"echo x > out.txt", "hard links"},
		{"echo x > src/fifo", "redirect: fifo is not a regular file"},
		{"cat < src/fifo", "redirect: fifo is not a regular file (a FIFO)"},
		{"echo x > src/link", "redirect: path \"src/link\": is a symlink"},
	} {
		done := make(chan tools.Result, 1)
		go func() { done <- f.call(t, tools.ToolShell, tools.ShellArgs{Command: c.cmd}, nil) }()
		select {
		case res := <-done:
			if res.OK || !strings.Contains(res.Error, c.want) {
				t.Errorf("%q = %+v, want a refusal mentioning %q", c.cmd, res, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q blocked", c.cmd)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "orig\n" {
		t.Errorf("the outside file was written through the workspace: %q", b)
	}
}

// A leftover process swaps a workspace directory with a symlink as fast as
// it can while the file tools and shell redirects run: to an outside
// directory, nothing outside is ever read, listed, searched or written; to
// a workspace directory outside allowed_paths, nothing there is written
// (writes never pass through a symlink). RIVUMI_RACE_SECONDS runs each
// case longer (60 for the figure).
func TestFileToolsSymlinkSwapRace(t *testing.T) {
	d := 2 * time.Second
	if s := os.Getenv("RIVUMI_RACE_SECONDS"); s != "" {
		n, err := time.ParseDuration(s + "s")
		if err != nil {
			t.Fatalf("RIVUMI_RACE_SECONDS: %v", err)
		}
		d = n
	}
	const marker = "OUTSIDE-MARKER"
	t.Run("outside", func(t *testing.T) {
		f := newFixture(t, withEngine(t))
		outside := t.TempDir()
		os.WriteFile(filepath.Join(outside, "main.go"), []byte(marker+"\npackage main\n"), 0o644)
		os.WriteFile(filepath.Join(outside, "only-outside.txt"), []byte(marker+"\n"), 0o644)
		swapRace(t, f, outside, d, marker)
		b, _ := os.ReadFile(filepath.Join(outside, "main.go"))
		if string(b) != marker+"\npackage main\n" {
			t.Errorf("the outside file was written: %q", b)
		}
		if ents, _ := os.ReadDir(outside); len(ents) != 2 {
			t.Errorf("the outside directory gained entries: %v", ents)
		}
	})
	t.Run("not allowed", func(t *testing.T) {
		f := newFixture(t, withEngine(t))
		docs := filepath.Join(f.w.Dir(), "docs")
		swapRace(t, f, "docs", d/2, "")
		if b, _ := os.ReadFile(filepath.Join(docs, "guide.txt")); string(b) != "guide\n" {
			t.Errorf("docs/guide.txt (outside allowed_paths) was written: %q", b)
		}
		if ents, _ := os.ReadDir(docs); len(ents) != 1 {
			t.Errorf("docs (outside allowed_paths) gained entries: %v", ents)
		}
	})
}

// swapRace exchanges src with a symlink to target (rename(2) with
// RENAME_EXCHANGE, in a loop) for d while the tools run on src; with a
// marker, anything read that holds it is a leak.
func swapRace(t *testing.T, f *fixture, target string, d time.Duration, marker string) {
	t.Helper()
	link := filepath.Join(f.w.Dir(), "swap")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(f.w.Dir(), "src")
	var stop atomic.Bool
	var swaps atomic.Int64
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for !stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("swap: %v", err)
				return
			}
			swaps.Add(1)
		}
	}()
	// An error (not a refusal) is fine here: the race may make a path
	// vanish mid-call. Only what comes back matters.
	call := func(name string, args, out any) bool {
		raw, _ := json.Marshal(args)
		res, err := f.tools.Call(context.Background(), name, raw)
		if err != nil || !res.OK {
			return false
		}
		if out != nil {
			json.Unmarshal(res.Output, out)
		}
		return true
	}
	leak := func(ok bool, s string) bool { return ok && marker != "" && strings.Contains(s, marker) }
	var calls, leaks, writes int
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && leaks <= 3 {
		var rd tools.ReadFileOutput
		if ok := call(tools.ToolReadFile, tools.ReadFileArgs{Path: "src/main.go"}, &rd); leak(ok, rd.Content) {
			leaks++
			t.Errorf("read_file returned the outside file")
		}
		if call(tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/main.go", Old: "package main", New: "package main "}, nil) {
			writes++
		}
		var ls tools.ListFilesOutput
		if call(tools.ToolListFiles, tools.ListFilesArgs{Path: "src"}, &ls) {
			for _, e := range ls.Entries {
				if leak(true, e.Path) || strings.Contains(e.Path, "only-outside") {
					leaks++
					t.Errorf("list_files listed the outside directory: %s", e.Path)
				}
			}
		}
		var st tools.SearchTextOutput
		if ok := call(tools.ToolSearchText, tools.SearchTextArgs{Query: "OUTSIDE-MARKER"}, &st); ok && marker != "" && len(st.Matches) > 0 {
			leaks++
			t.Errorf("search_text searched the outside directory: %+v", st.Matches)
		}
		if call(tools.ToolShell, tools.ShellArgs{Command: "echo x >> src/main.go"}, nil) {
			writes++
		}
		var sh tools.ShellOutput
		if ok := call(tools.ToolShell, tools.ShellArgs{Command: "cat < src/main.go"}, &sh); leak(ok, sh.Stdout) {
			leaks++
			t.Errorf("a shell redirect read the outside file")
		}
		calls += 6
	}
	stop.Store(true)
	<-swapped
	if fi, err := os.Lstat(src); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
	}
	if writes == 0 {
		t.Errorf("no write succeeded in %d calls: the race tested nothing", calls)
	}
	t.Logf("%d tool calls (%d writes went through) against %d swaps in %v", calls, writes, swaps.Load(), d)
}

// The file tools refuse what is not a regular file without blocking (a
// FIFO with no writer would hang an open), and replace_text refuses a
// file with more than one hard link; the outside file is never touched.
func TestFileToolsRefuseSpecialFiles(t *testing.T) {
	f := newFixture(t)
	dir := f.w.Dir()
	outside := filepath.Join(t.TempDir(), "profile")
	if err := os.WriteFile(outside, []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A second name, outside, for a tracked workspace file.
	hardOut := filepath.Join(filepath.Dir(outside), "main.go")
	hard := os.Link(filepath.Join(dir, "src", "main.go"), hardOut) == nil
	var hardBefore []byte
	if hard {
		hardBefore, _ = os.ReadFile(hardOut)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "src", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.NeedUnixSockets(t)
	l, err := net.Listen("unix", filepath.Join(dir, "src", "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	os.Symlink(outside, filepath.Join(dir, "src", "link.go"))
	os.Symlink("/dev/zero", filepath.Join(dir, "src", "zero"))
	tests := []struct {
		name, tool string
		args       any
		want       string
	}{
		{"fifo read", tools.ToolReadFile, tools.ReadFileArgs{Path: "src/fifo"}, "a FIFO"},
		{"fifo replace", tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/fifo", Old: "a", New: "b"}, "not tracked"},
		{"fifo search", tools.ToolSearchText, tools.SearchTextArgs{Query: "x", Path: "src/fifo"}, "not a directory"},
		{"socket read", tools.ToolReadFile, tools.ReadFileArgs{Path: "src/sock"}, "not a regular file"},
		{"symlink out read", tools.ToolReadFile, tools.ReadFileArgs{Path: "src/link.go"}, "outside the workspace"},
		{"device link read", tools.ToolReadFile, tools.ReadFileArgs{Path: "src/zero"}, "outside the workspace"},
		{"hard link replace", tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/main.go", Old: "package main", New: "package x"}, "hard links"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "hard link replace" {
				if !hard {
					t.Skip("no hard link across these directories")
				}
				// replace_text needs a fresh read first.
				f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "src/main.go"}, nil)
			}
			raw, _ := json.Marshal(tt.args)
			done := make(chan tools.Result, 1)
			go func() {
				res, err := f.tools.Call(context.Background(), tt.tool, raw)
				if err != nil {
					res = tools.Result{Error: "internal error: " + err.Error()}
				}
				done <- res
			}()
			select {
			case res := <-done:
				if res.OK || strings.HasPrefix(res.Error, "internal error") || !strings.Contains(res.Error, tt.want) {
					t.Errorf("%s = %+v, want a refusal mentioning %q", tt.tool, res.Error, tt.want)
				}
				if strings.Contains(res.Error, dir) {
					t.Errorf("the refusal shows the host path: %s", res.Error)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s blocked", tt.tool)
			}
		})
	}
	if b, _ := os.ReadFile(outside); string(b) != "package main\n" {
		t.Errorf("the outside file was written: %q", b)
	}
	if b, _ := os.ReadFile(hardOut); hard && string(b) != string(hardBefore) {
		t.Errorf("the outside hard link was written: %q", b)
	}
}
