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
)

// The shell's redirects are opened beneath the workspace: a hard link to
// an outside file, a FIFO and a symlink are refused, and rivumi never
// blocks on one.
func TestShellRedirectTargetsBeneath(t *testing.T) {
	f := newFixture(t, withEngine(t))
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
		{"echo x > src/fifo", "redirect: "},
		{"cat < src/fifo", "redirect: "},
		{"echo x > src/link", "redirect: "},
	} {
		done := make(chan tools.Result, 1)
		go func() { done <- f.call(t, tools.ToolShell, tools.ShellArgs{Command: c.cmd}, nil) }()
		select {
		case res := <-done:
			if res.OK && !strings.Contains(res.Error, c.want) {
				var out tools.ShellOutput
				f.call(t, tools.ToolShell, tools.ShellArgs{Command: c.cmd}, &out)
				if out.ExitCode == 0 {
					t.Errorf("%q ran: %+v", c.cmd, out)
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q blocked", c.cmd)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "orig\n" {
		t.Errorf("the outside file was written through the workspace: %q", b)
	}
}

// A leftover process swaps a workspace directory with a symlink to an
// outside directory as fast as it can while the file tools run: nothing
// outside is ever read, listed, searched or written, by the file tools or
// a shell redirect. RIVUMI_RACE_SECONDS
// runs it longer (60 for the figure).
func TestFileToolsSymlinkSwapRace(t *testing.T) {
	f := newFixture(t, withEngine(t))
	d := 2 * time.Second
	if s := os.Getenv("RIVUMI_RACE_SECONDS"); s != "" {
		n, _ := time.ParseDuration(s + "s")
		d = n
	}
	outside := t.TempDir()
	const marker = "OUTSIDE-MARKER"
	os.WriteFile(filepath.Join(outside, "main.go"), []byte(marker+"\npackage main\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "only-outside.txt"), []byte(marker+"\n"), 0o644)
	link := filepath.Join(f.w.Dir(), "swap")
	if err := os.Symlink(outside, link); err != nil {
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
	var calls, leaks int
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		var rd tools.ReadFileOutput
		if call(tools.ToolReadFile, tools.ReadFileArgs{Path: "src/main.go"}, &rd) && strings.Contains(rd.Content, marker) {
			leaks++
			t.Errorf("read_file returned the outside file")
		}
		call(tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/main.go", Old: "package main", New: "package main "}, nil)
		var ls tools.ListFilesOutput
		if call(tools.ToolListFiles, tools.ListFilesArgs{Path: "src"}, &ls) {
			for _, e := range ls.Entries {
				if strings.Contains(e.Path, "only-outside") {
					leaks++
					t.Errorf("list_files listed the outside directory: %s", e.Path)
				}
			}
		}
		var st tools.SearchTextOutput
		if call(tools.ToolSearchText, tools.SearchTextArgs{Query: marker}, &st) && len(st.Matches) > 0 {
			leaks++
			t.Errorf("search_text searched the outside directory: %+v", st.Matches)
		}
		call(tools.ToolShell, tools.ShellArgs{Command: "echo x >> src/main.go"}, nil)
		var sh tools.ShellOutput
		if call(tools.ToolShell, tools.ShellArgs{Command: "cat < src/main.go"}, &sh) && strings.Contains(sh.Stdout, marker) {
			leaks++
			t.Errorf("a shell redirect read the outside file")
		}
		calls += 6
		if leaks > 3 {
			break
		}
	}
	stop.Store(true)
	<-swapped
	if fi, err := os.Lstat(src); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
	}
	b, _ := os.ReadFile(filepath.Join(outside, "main.go"))
	if string(b) != marker+"\npackage main\n" {
		t.Errorf("the outside file was written: %q", b)
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 2 {
		t.Errorf("the outside directory gained entries: %v", ents)
	}
	t.Logf("%d tool calls against %d swaps in %v", calls, swaps.Load(), d)
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
		{"fifo replace", tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/fifo", Old: "a", New: "b"}, ""},
		{"fifo search", tools.ToolSearchText, tools.SearchTextArgs{Query: "x", Path: "src/fifo"}, ""},
		{"socket read", tools.ToolReadFile, tools.ReadFileArgs{Path: "src/sock"}, ""},
		{"symlink out read", tools.ToolReadFile, tools.ReadFileArgs{Path: "src/link.go"}, ""},
		{"device link read", tools.ToolReadFile, tools.ReadFileArgs{Path: "src/zero"}, ""},
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
					t.Errorf("%s = %+v, want a refusal mentioning %q", tt.tool, res, tt.want)
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
