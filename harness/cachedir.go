package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ensureCacheDir creates the persistent cache directory (0700) when it is
// missing and refuses one that is a symbolic link, not a directory, or
// someone else's: a command that writes a cache another user controls
// could be fed that user's build outputs.
func ensureCacheDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("harness: cache directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("harness: cache directory: %w", err)
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("harness: cache directory %s: not a directory (a symbolic link?)", dir)
	}
	if !ownedByMe(fi) {
		return errors.New("harness: cache directory " + dir + ": not owned by this user")
	}
	return nil
}

// DefaultCacheDir returns the persistent cache directory of the project
// rooted at projectRoot, for [Config.CacheDir]:
// $XDG_CACHE_HOME/rivumi/projects/<hex sha256 of the absolute, cleaned
// root>, with ~/.cache when XDG_CACHE_HOME is unset or relative. One per
// project: what a sandboxed command of one project writes there no other
// project's commands read.
func DefaultCacheDir(projectRoot string) (string, error) {
	root, err := filepath.Abs(projectRoot)
	if err != nil {
		return "", err
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no cache directory: %w", err)
		}
		base = filepath.Join(home, ".cache")
	}
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(base, "rivumi", "projects", hex.EncodeToString(sum[:])), nil
}
