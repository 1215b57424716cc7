// Package codescan inspects code that rivumi cannot parse as shell: sed, awk
// and jq scripts, interpreter one-liners, and raw text that failed to parse.
//
// The package has five entry points:
//
//   - [Sed] parses a GNU sed script and reports whether it executes commands,
//     writes files or reads files.
//   - [Jq] parses a jq filter (with gojq's parser) and reports whether it
//     only transforms its inputs, or reads the environment, modules or the
//     program's location.
//   - [Awk] tokenizes an awk program and reports whether it can run commands,
//     redirect output, read other files or load extensions.
//   - [Scan] extracts string literals from code in another language (python,
//     node, perl, ruby, php, lua, ...) and flags calls that spawn programs,
//     destroy files, open network connections or evaluate code built at run
//     time.
//   - [Floor] is a last line of defence for text that could not be parsed as
//     shell at all: it looks for shapes that are never legitimate in
//     automation (rm -rf /, fork bombs, curl | sh, reverse shells, ...).
//
// Every function is pure (no I/O, no global mutable state), safe for
// concurrent use, never panics on any input (invalid UTF-8, NUL bytes, huge
// inputs) and runs in time linear in the size of its input.
//
// The analyses are deliberately conservative: when in doubt they report the
// code as unsafe. They are heuristics for grading, not interpreters; callers
// must treat a "safe" answer as "nothing dangerous was recognised", and any
// unsafe answer as a reason to ask or deny.
package codescan
