// Package server serves rivumi verdicts over HTTP (on loopback by
// default), a unix socket, or JSON Lines on stdin/stdout, all with the
// same API:
//
//	POST /v1/verdict   {"command": "…"} or {"argv": […]}, plus optional
//	                   "cwd", "workspace", "home", "shell", "grants" → one verdict
//	POST /v1/verdicts  an array of those → an array of verdicts, in order
//	GET  /healthz      {"status": "ok", "policy": "<hash>"}
//	GET  /metrics      Prometheus: verdict counts and latency by decision
//
// A verdict is the JSON of [engine.Verdict] with the command (or argv)
// echoed, the same shape `rivumi policy eval --batch` writes. A request
// that cannot be graded (bad JSON, both or neither of command and argv,
// relative paths, too large) gets a deny verdict from rule
// "engine.bad-input" with an "error" field, and HTTP status 400 (413 when
// too large); clients that fail closed can read the decision either way.
//
// The policy lives in an [atomic.Pointer]: [Server.Reload] compiles a new
// one and swaps it in only when it compiles, so a broken edit keeps the
// old policy serving. Every verdict can go to an audit log ([audit.Sink]);
// a verdict whose entry cannot be written is not given: the answer is a
// deny from rule "engine.audit-failed" with an "error" field and HTTP
// status 503 (for a batch, when any of its entries failed), unless the
// operator chose a best-effort log ([WithBestEffortAudit]).
//
// On a loopback TCP listener, a keep-alive POST /v1/verdict of the
// plainest form (HTTP/1.1, CRLF line ends, a loopback Host, a
// Content-Length within the limit, a few ordinary headers, all of it
// already read) is answered on the connection's goroutine without
// net/http's machinery; any other request — a Transfer-Encoding, an
// Origin, obs-folding, a bare LF, a head or body still on its way — hands
// the connection to net/http for the rest of its life. Both answer the
// same bytes the same way (a test and a fuzz target compare them).
package server
