// Package testtree builds the directory trees, files and symlinks that
// tests of link-following (parser, engine, hook) grade commands in.
package testtree

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns a fresh temporary directory with its own links resolved
// (macOS's /var is /private/var), so that paths under it are what a
// resolver reports. It skips the test on Windows, where rivumi does not
// resolve symlinks.
func Root(t testing.TB) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks are not resolved on Windows")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// Dirs makes each directory, with its parents.
func Dirs(t testing.TB, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// Files writes each file, holding "x\n"; its directory must exist.
func Files(t testing.TB, files ...string) {
	t.Helper()
	for _, f := range files {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Links makes each link (a key) pointing at its target (the value, as
// written: a relative target is relative to the link's directory).
func Links(t testing.TB, links map[string]string) {
	t.Helper()
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
}
