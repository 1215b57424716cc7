package pathstat

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// In, Exists and IsRegular answer what os.Stat and os.Lstat answer, for
// every kind of entry, missing ones and paths too long for the stack.
func TestInMatchesOS(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o640))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o750))
	must(os.Symlink("file", filepath.Join(dir, "link")))
	must(os.Symlink("sub", filepath.Join(dir, "dirlink")))
	must(os.Symlink("nowhere", filepath.Join(dir, "dangling")))
	long := dir
	for len(long) < 700 {
		long = filepath.Join(long, strings.Repeat("d", 60))
	}
	must(os.MkdirAll(long, 0o755))
	must(os.WriteFile(filepath.Join(long, "file"), nil, 0o644))
	cases := []struct{ dir, name string }{
		{dir, "file"}, {dir, "sub"}, {dir, "link"}, {dir, "dirlink"}, {dir, "dangling"},
		{dir, "missing"}, {filepath.Join(dir, "missing"), ".git"}, {filepath.Join(dir, "file"), ".git"},
		{long, "file"}, {long, "missing"}, {"/", "."}, {"/", "missing-at-root"}, {dir + "/", "file"},
		{dir, "bad\x00name"},
	}
	for _, c := range cases {
		for _, nofollow := range []bool{false, true} {
			stat := os.Stat
			if nofollow {
				stat = os.Lstat
			}
			fi, werr := stat(filepath.Join(c.dir, c.name))
			m, err := In(c.dir, c.name, nofollow)
			name := filepath.Join(c.dir, c.name)
			if (err == nil) != (werr == nil) || errors.Is(err, fs.ErrNotExist) != errors.Is(werr, fs.ErrNotExist) {
				t.Errorf("In(%q, nofollow %v): error %v, os gives %v", name, nofollow, err, werr)
				continue
			}
			if err == nil && m != fi.Mode() {
				t.Errorf("In(%q, nofollow %v) = %v, os gives %v", name, nofollow, m, fi.Mode())
			}
			if nofollow && Exists(c.dir, c.name) != (werr == nil) {
				t.Errorf("Exists(%q) = %v", name, !(werr == nil))
			}
			if !nofollow && IsRegular(c.dir, c.name) != (werr == nil && fi.Mode().IsRegular()) {
				t.Errorf("IsRegular(%q) wrong", name)
			}
		}
	}
}

// The lookups a request makes allocate nothing where stat(2) is called
// from the stack.
func TestInAllocs(t *testing.T) {
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64", "linux/arm64", "linux/riscv64":
	default:
		t.Skip("allocation-free on linux/amd64, arm64 and riscv64 only")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	none := filepath.Join(dir, "none")
	if n := testing.AllocsPerRun(100, func() {
		Exists(dir, "missing")
		IsRegular(dir, "file")
		Exists(none, ".git")
	}); n != 0 {
		t.Errorf("%v allocations per lookup", n)
	}
}
