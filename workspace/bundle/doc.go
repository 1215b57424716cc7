// Package bundle writes the run bundle of an agent workspace: the record
// that answers what was asked, what happened in order, what changed and
// whether the checks passed.
//
// # Layout
//
// A bundle is one directory holding:
//
//	request.json       [Request]: the task, the pinned commit, the allowed
//	                   paths and the verification commands
//	events.jsonl       one [Event] per tool call, in order (append-only,
//	                   fsync'd after every line)
//	changes.patch      the change against the pinned commit (git diff of the
//	                   working tree, files added with --intent-to-add
//	                   included)
//	verification.json  [Verification]: the latest result of every check
//	test.log           the (bounded) output of every check run, in order
//	result.json        [Result]: status, terminal reason, artifact map
//	session.json       [Sessions]: every process that served the tools —
//	                   kind, MCP client, start, end (none: killed), calls
//	                   per tool, approvals and grants given, the sandbox
//	checkpoint.json    [Checkpoint]: what a later process resumes from —
//	                   the read versions, the approvals pending, the call
//	                   under way, the last event's seq and offset; written
//	                   after every state change, with a digest and the
//	                   run's identity
//
// Every file passes through [audit.Redact] before it reaches the disk:
// JSON files string by string (so they stay valid JSON), text files
// whole (changes.patch line by line, a private key block as one text:
// workspace.RedactPatch, bounded on a large change). A redacted changes.patch may no longer apply; the findings of the
// secret scan are listed in result.json, and the clone still holds the
// unredacted change. Files other than events.jsonl are written atomically:
// a temporary file in the bundle directory, fsync, rename over the target,
// fsync of the directory. A reader sees the old file or the new one, never
// a part. [Dir.ReadCheckpoint] refuses a checkpoint it cannot trust
// (corrupt, edited, of another run, naming events the log does not hold).
package bundle
