// Package pathstat stats paths for lookups that run on every request
// (serve finds each request's configuration by walking up from its cwd):
// on Linux it calls stat(2) with the path in a buffer on the stack, so a
// lookup allocates nothing, where os.Stat allocates the path's copy, a
// FileInfo and, for a missing file, a *PathError. Elsewhere it is os.Stat
// and os.Lstat.
//
// The answers are those of os.Stat and os.Lstat: [In] and [Stat] follow
// symbolic links unless nofollow is set.
package pathstat
