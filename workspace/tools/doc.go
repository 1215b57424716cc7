// Package tools implements the file, patch, verification and shell tools
// an agent uses in a [workspace.Workspace], behind one dispatch entry,
// [Tools.Call].
//
// Every tool takes a typed argument struct and returns a typed output
// struct (see [Specs]; both encode as plain JSON objects, so a JSON schema
// can be derived for each, as an MCP server needs). [Tools.Call] decodes
// the arguments strictly: unknown, duplicate and case-variant keys,
// trailing data and a timeout_seconds field (the harness owns every
// timeout) are refused.
//
// Failures at the tool boundary — a path the policy refuses, a stale read
// version, text that is not found, a command the policy denies, a check
// that fails — come back as observations: a [Result] with OK false and the
// reason in Error, for the agent to read. Unexpected errors (the bundle
// cannot be written, git fails on a valid request) are returned as Go
// errors and end the call.
//
// Every call is recorded in the bundle's events.jsonl (arguments, the
// grading's decision and rule ids, the approval, a summary, byte counts,
// read and write versions, secret-scan findings) before Call returns, and
// every result passes through the redactor ([audit.Redact]).
//
// # Tools
//
//   - list_files: the entries under a directory, walked without following
//     symlinks, .git never shown; bounded.
//   - read_file: a text file's content and the SHA-256 of its bytes, the
//     read version replace_text checks.
//   - search_text: lines containing a fixed string, bounded in matches,
//     file size and line length.
//   - replace_text: replaces text in a git-tracked file, only after a
//     read_file of it and only if its bytes are unchanged since; writes
//     NAME.rivumi-replace-<id> (O_NOFOLLOW|O_EXCL), fsyncs it, renames it
//     over the file, fsyncs the directory; restores the old bytes if a step
//     after the rename fails.
//   - apply_patch: applies a unified diff with git apply; new files are
//     added with git add --intent-to-add; binary patches, symlinks, mode
//     changes, renames, copies, paths out of the policy and .git are
//     refused, both as the patch's headers say and as git apply reads
//     them.
//   - run_check: runs a verification command from the configuration, by
//     name, through the harness with the check's timeout.
//   - git_diff: the change against the pinned commit.
//   - shell: a command string graded by the engine and run by an
//     interpreter without a shell; see [ShellArgs].
package tools
