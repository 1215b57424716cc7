// Package parser turns shell command text into a [Command]: every simple
// command, wherever it sits, as a [Segment] with facts computed in Go, and a
// [Shape] describing the whole.
//
// It is the only package of rivumi that imports mvdan.cc/sh. It never runs
// or writes anything: what it cannot know statically (parameter expansions
// without a known value, substitutions, globs, ~user) is kept as source text
// and flagged dynamic; quotes and escapes are removed from everything
// static. Only with [FollowSymlinks] (the command runs on this machine) does
// it read the disk, lstat and bounded directory listings only: paths are
// graded where their links point, a tree's secrets are looked for, and a
// glob in command position is matched, each reading only adding reasons.
//
// Code is decided by program and position, never by quoting: the arguments
// that carry code (bash -c, eval, ssh host …, find -exec, xargs, awk and sed
// scripts, interpreter one-liners …) are parsed again as child segments when
// they are shell, or kept whole as opaque [Code] when they are not.
//
// Data flows across segments where the text makes it known: static input
// into xargs, GNU parallel and while read builds the commands they would
// run (as extra child segments), and files the command downloads, copies or
// links are followed to what later runs them or writes through them.
//
// Parse and FromArgv are safe for concurrent use. Limits (input size, depth,
// recursion, segments) are options with safe defaults; hitting one is
// recorded in [Shape.Limit], never a panic or a hang.
package parser
