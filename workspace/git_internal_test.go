package workspace

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

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
