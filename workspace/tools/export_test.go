package tools

import "testing"

// SetReplaceHook sets the hook replace_text runs after its rename, for the
// test's duration.
func SetReplaceHook(t *testing.T, f func(path string) error) {
	replaceHook = f
	t.Cleanup(func() { replaceHook = nil })
}

// SetReadOnlyLimit lowers the bound on read-only paths for the test's
// duration.
func SetReadOnlyLimit(t *testing.T, n int) {
	readOnlyLimit = n
	t.Cleanup(func() { readOnlyLimit = MaxReadOnlyPaths })
}
