// Package replay re-grades the commands of past decision logs with two
// policies, the one in force and a candidate, and reports which verdicts
// the candidate would change.
//
// It reads rivumi's audit log (JSON Lines of kind "grade", written by the
// hooks, `rivumi serve` and `rivumi run`) and the decision logs OPA writes
// for rivumi-opa's entrypoint (input: the request; result: the verdict),
// masked or not. It streams: memory holds counts and a bounded sample of
// commands per change, never the log, so logs of millions of lines replay
// in constant memory. A line it cannot replay faithfully (a command masked
// or redacted, no command, an unknown format, bad JSON) is counted with its
// reason and never guessed at.
//
// [Replay] returns a [Summary]; [WriteText], [WriteJSON] and [WriteHTML]
// render it, and [Summary.Fails] is the exit policy for CI.
package replay
