package testuser

import "os"

// shareDir is the directory of [Shared] once made.
var shareDir string

// Cleanup removes the shared directory (and the probe in it): call it
// from TestMain after the tests ran. It does nothing where nothing was
// made, so it may be called on every platform.
func Cleanup() {
	if shareDir != "" {
		os.RemoveAll(shareDir)
	}
}
