// Package verdict is the vocabulary every layer of rivumi answers in: a
// [Decision] (allow < ask < deny, the zero value none, which every consumer
// reads as deny), the [Layer] a reason came from, the [Reason]s, the
// [Verdict] itself and the [Grant]s that may cancel an ask.
//
// It holds data and its encoding only: no grading, no policy, no I/O, so a
// hook, a harness or a client can speak it without linking the engine
// (and OPA). The engine produces verdicts ([github.com/rivumi/rivumi/engine]);
// its package re-exports these names for the callers not yet moved.
package verdict
