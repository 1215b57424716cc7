package pathstat

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// Stat fills what syscall.Stat and syscall.Lstat fill.
func TestStatMatchesSyscall(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(dir, strings.Repeat("x", 200), strings.Repeat("y", 200), strings.Repeat("z", 200))
	for _, p := range []string{file, filepath.Join(dir, "link"), filepath.Join(dir, "missing"), dir, long, "a\x00b"} {
		for _, nofollow := range []bool{false, true} {
			var got, want syscall.Stat_t
			err := Stat(p, &got, nofollow)
			werr := slowStat(p, &want, nofollow)
			if (err == nil) != (werr == nil) || (err == nil && got != want) {
				t.Errorf("Stat(%q, %v) = %+v, %v; syscall gives %+v, %v", p, nofollow, got, err, want, werr)
			}
		}
	}
}

// Stat allocates nothing where stat(2) is called from the stack.
func TestStatAllocs(t *testing.T) {
	switch runtime.GOARCH {
	case "amd64", "arm64", "riscv64":
	default:
		t.Skip("allocation-free on amd64, arm64 and riscv64 only")
	}
	file := filepath.Join(t.TempDir(), "missing")
	var st syscall.Stat_t
	if n := testing.AllocsPerRun(100, func() { _ = Stat(file, &st, false) }); n != 0 {
		t.Errorf("%v allocations per Stat", n)
	}
}
