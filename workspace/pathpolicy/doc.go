// Package pathpolicy decides which paths the workspace tools may touch.
//
// Every path a tool is given is relative to the workspace root, written
// with forward slashes. [Clean] rejects, before the disk is touched: the
// empty path, a NUL byte, a backslash, an absolute path (POSIX "/x" and the
// Windows forms "C:", "C:/x", "//host"), a ".." segment and a ".git"
// segment anywhere (compared case-insensitively, for case-insensitive
// file systems). [Policy.Resolve] then follows the path on disk and refuses
// it when a symlink takes it out of the root: the resolved path is compared
// with the resolved root, never the text with the text.
//
// An allowed-paths list ([ParsePatterns]) limits what the tools may write:
// globs matched segment by segment, where "*", "?" and "[…]" stay within
// one segment and only a whole "**" segment crosses directories ("src/**"
// matches "src/a/b.go"; "src/**.go" matches "src/x.go" only). Patterns are
// normalised when loaded ("./a//b" becomes "a/b"); absolute patterns, "..",
// ".git", a trailing "/", a NUL byte, a backslash and malformed globs are
// load errors naming the pattern's position.
//
// [Policy.Walk] lists a directory tree without ever following a symlink
// and without entering .git.
package pathpolicy
