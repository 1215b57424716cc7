// Package grant is per-project consent: a [verdict.Grant] names an argv
// prefix and the ask rules it cancels on the segments that start with it.
//
// It holds what a grant may name ([Check]: never a program that runs
// anything, a relative path, git without a subcommand …), the one matcher
// the engine and the harness share ([Matches], [Covers]), the grants an
// "always" answer records ([For]) and the hint an ask offers ([Hint]), and
// the project's store ([Store]: a JSON file changed under a lock, written
// to a temporary file, fsync'd and renamed) with where it lives ([PathIn],
// [DefaultPath], [ProjectRoot]). It grades nothing and links no policy
// engine: hooks and harnesses use it without the engine.
package grant
