package realpath

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks are not resolved on Windows")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(dir+"/ws/sub", 0o755))
	must(os.MkdirAll(dir+"/home/.aws", 0o755))
	must(os.Symlink("/", dir+"/ws/rootlink"))
	must(os.Symlink(dir+"/home/.bashrc", dir+"/ws/notes.md")) // dangling
	must(os.Symlink("../home/.aws/credentials", dir+"/ws/creds.txt"))
	must(os.Symlink("chain2", dir+"/ws/chain1"))
	must(os.Symlink("rootlink/etc", dir+"/ws/chain2"))
	must(os.Symlink("loop2", dir+"/ws/loop1"))
	must(os.Symlink("loop1", dir+"/ws/loop2"))
	must(os.Symlink("sub/..", dir+"/ws/dots"))
	must(os.Symlink("/dev/stdout", dir+"/ws/out"))
	var cache Cache
	if _, _, err := cache.Graded(dir + "/ws/later/passwd"); err != nil { // later does not exist yet
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in, want string
		linked   bool
		err      string
	}{
		{in: dir + "/ws/plain.txt", want: dir + "/ws/plain.txt"},
		{in: dir + "/ws/sub/../plain.txt", want: dir + "/ws/plain.txt"},
		{in: dir + "/ws/notes.md", want: dir + "/home/.bashrc", linked: true},
		{in: dir + "/ws/creds.txt", want: dir + "/home/.aws/credentials", linked: true},
		{in: dir + "/ws/rootlink/etc/shadow", want: "/etc/shadow", linked: true},
		{in: dir + "/ws/rootlink/etc/cron.d/x", want: "/etc/cron.d/x", linked: true},
		{in: dir + "/ws/rootlink/..", want: "/", linked: true}, // .. of / is /
		{in: dir + "/ws/rootlink/../etc", want: "/etc", linked: true},
		{in: dir + "/ws/chain1/passwd", want: "/etc/passwd", linked: true},
		{in: dir + "/ws/dots/plain.txt", want: dir + "/ws/plain.txt", linked: true},
		{in: dir + "/ws/missing/../notes.md", want: dir + "/ws/notes.md"}, // missing: the rest is as written
		{in: dir + "/ws/loop1", err: "too many levels"},
		{in: dir + "/ws/out", want: "/dev/stdout", linked: true}, // Graded stops in /dev
		{in: "relative", err: "not absolute"},
	} {
		// A Cache answers as Graded does, the second time from memory.
		for i, graded := range []func(string) (string, bool, error){Graded, cache.Graded, cache.Graded} {
			got, linked, err := graded(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("%d: Graded(%q) = %q, %v; want error %q", i, tc.in, got, err, tc.err)
				}
				continue
			}
			if err != nil || got != tc.want || linked != tc.linked {
				t.Errorf("%d: Graded(%q) = %q, %v, %v; want %q, %v", i, tc.in, got, linked, err, tc.want, tc.linked)
			}
		}
	}
	// A Cache keeps the answers of its first look: a link made since is
	// seen by a new one only.
	must(os.Symlink("/etc", dir+"/ws/later"))
	if got, linked, _ := cache.Graded(dir + "/ws/later/passwd"); got != dir+"/ws/later/passwd" || linked {
		t.Errorf("cached Graded(later/passwd) = %q, %v; want it as written, as first seen", got, linked)
	}
	if got, linked, _ := new(Cache).Graded(dir + "/ws/later/passwd"); got != "/etc/passwd" || !linked {
		t.Errorf("new Cache: Graded(later/passwd) = %q, %v; want /etc/passwd through the link", got, linked)
	}
	// Resolve follows /dev/stdout on (to /proc/self/fd/1 and beyond).
	if got, err := Resolve(dir + "/ws/out"); err != nil || got == "/dev/stdout" {
		t.Errorf("Resolve(out) = %q, %v; want it followed past /dev/stdout", got, err)
	}
}
