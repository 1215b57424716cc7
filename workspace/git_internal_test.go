package workspace

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/workspace/internal/gittest"
)

// A huge diff is bounded: Diff fails clearly past the bound (finish with
// it, writing a failed result.json), and what rivumi allocated for it
// stays near the bound, not a multiple of the diff (a 56 MB diff once
// took 213 MB).
func TestHugeDiffBounded(t *testing.T) {
	defer func(m int) { maxGitOutput = m }(maxGitOutput)
	maxGitOutput = 4 << 20
	src, sha := gittest.Repo(t, map[string]string{"big.txt": "small\n"})
	w, err := Prepare(context.Background(), PrepareOptions{Source: src, Commit: sha, RunRoot: t.TempDir(), Name: "r"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	line := []byte(strings.Repeat("0123456789abcdef", 7) + "\n")
	big := bytes.Repeat(line, (20<<20)/len(line))
	for i := 0; i < len(big); i += len(line) * 97 {
		big[i] = 'x' // not one repeated line: a realistic diff
	}
	if err := os.WriteFile(filepath.Join(w.Dir(), "big.txt"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := w.Diff(context.Background())
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errGitOutput) || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("Diff of a 20 MB change with a 4 MB bound: %v", err)
	}
	if len(out) > maxGitOutput {
		t.Errorf("Diff kept %d bytes, bound %d", len(out), maxGitOutput)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*uint64(maxGitOutput) {
		t.Errorf("Diff allocated %d bytes for a bound of %d", alloc, maxGitOutput)
	}
	res, err := w.Finish(context.Background(), "")
	if err == nil || res.Status != "failed" || len(res.Problems) == 0 {
		t.Errorf("Finish = %v, %+v; want failed with a problem", err, res)
	}
}

// What git prints is bounded: past the bound the call fails rather than
// return a truncated (wrong) diff, and memory stays near the bound.
func TestGitOutputBounded(t *testing.T) {
	var buf bytes.Buffer
	l := &limitedBuffer{buf: &buf, max: 10, fail: true}
	if n, err := l.Write([]byte("0123456")); n != 7 || err != nil {
		t.Fatalf("first write: %d %v", n, err)
	}
	if _, err := l.Write([]byte("789abc")); !errors.Is(err, errGitOutput) || !l.over || buf.Len() != 10 {
		t.Fatalf("over the bound: %v over=%v len=%d", err, l.over, buf.Len())
	}
	soft := &limitedBuffer{buf: new(bytes.Buffer), max: 4}
	if n, err := soft.Write([]byte("abcdefgh")); n != 8 || err != nil || soft.buf.Len() != 4 {
		t.Fatalf("stderr bound: %d %v %d", n, err, soft.buf.Len())
	}
}

// A git call has a deadline of its own even when the caller's context has
// none, and runs hardened (no system or global config).
func TestGitHardenedEnv(t *testing.T) {
	env := strings.Join(gitEnv("/run/git", "/run/workspace"), "\n")
	for _, want := range []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_DIR=/run/git",
		"GIT_COMMON_DIR=/run/git", "GIT_WORK_TREE=/run/workspace", "GIT_ATTR_NOSYSTEM=1"} {
		if !strings.Contains(env, want) {
			t.Errorf("git's environment lacks %s", want)
		}
	}
	out, err := git(context.Background(), t.TempDir(), "", "", "", "config", "--show-origin", "--list")
	if err != nil && !strings.Contains(err.Error(), "exit status") {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "file:/etc/") || strings.Contains(string(out), ".gitconfig") {
		t.Errorf("git read a system or global config:\n%s", out)
	}
}
