// Package audit appends one JSON line per decision or run to an audit log,
// with secrets redacted, and reads such logs back.
//
// A [Logger] writes each [Entry] as a single line with a single write(2) on
// a file opened with O_APPEND, holding an in-process mutex and an exclusive
// flock(2) across processes, then fsyncs before [Logger.Log] returns. Many
// goroutines and many processes may share one log: no line is ever torn or
// lost, and a line is durable once Log returns nil. A write that fails
// part-way (a full disk, an I/O error, a failed fsync) is truncated back to
// the size the log had before, under the same lock, so an entry Log
// reported as failed is not in the log. If a writer died in the middle of a
// line (or truncating back failed), the next writer first ends the torn line
// with a newline so that its own line stays intact.
//
// Every string an entry carries that may hold user data (argv, command text,
// working directory, grant prefixes, error text, notes) passes through
// [Redact] before it is written: tokens with known prefixes (ghp_, gho_,
// ghs_, github_pat_, sk-, sk-proj-, sk-ant-, sk_live_/rk_live_, AKIA…/ASIA…,
// xox?-, glpat-, AIza…, npm_), AWS secret keys, JWTs, PEM private keys,
// secret-looking assignments (TOKEN=…, API_KEY=…, "password": "…"), secret
// options (--password=…, --token …), Authorization/Bearer headers and
// passwords in URLs become [Redacted]. Redaction is best effort: it catches
// the common shapes, not every secret. [Redact] is rivumi's one redactor:
// the workspace tools' output and run bundles use it too, and [Scan]
// reports (kind and line, never the secret) what it would replace.
//
// [Reader] and [ReadAll] read a log back. They go on past lines that are
// not entries (torn lines, malformed ones) and past a partial last line;
// ReadAll returns every whole entry and a [*TornError] listing the lines it
// skipped.
//
// The package depends on nothing else in rivumi, so hook adapters and the
// server use it as the harness does.
package audit
