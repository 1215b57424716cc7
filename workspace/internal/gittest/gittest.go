// Package gittest makes small git repositories for the workspace tests
// and fingerprints directory trees to prove a run left them unchanged.
package gittest

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Git runs git in dir with a fixed identity and no user config, failing
// the test on error, and returns its trimmed output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Repo makes a repository in a new temporary directory and commits files
// (path → content) in it; it returns the directory and the commit's SHA.
func Repo(t testing.TB, files map[string]string) (dir, sha string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "source")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q")
	return dir, Commit(t, dir, files, "initial")
}

// Commit writes files in dir, commits them all and returns the SHA.
func Commit(t testing.TB, dir string, files map[string]string, msg string) string {
	t.Helper()
	Write(t, dir, files)
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", msg)
	return Git(t, dir, "rev-parse", "HEAD")
}

// Write writes files (path → content) under dir, making directories.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Fingerprint hashes every entry under dir (.git included): path, mode,
// content or link target. Equal fingerprints mean byte-for-byte equal
// trees.
func Fingerprint(t testing.TB, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		h.Write([]byte(rel + "\x00" + fi.Mode().String() + "\x00"))
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			h.Write([]byte(target))
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
			h.Write([]byte(fi.ModTime().String()))
		}
		h.Write([]byte{0})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
