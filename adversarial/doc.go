// Package adversarial holds rivumi's adversarial tests and the helpers they
// share: a generator of evasion cases (dangerous seeds times the rewritings
// bash allows: quoting, flag spellings, program paths, wrappers, nesting in
// inline scripts, substitutions, compound positions, layout), a loader for
// the YAML corpora, and shell quoting helpers.
//
// Generated cases carry the decision bash semantics demand: a rewriting
// that stays statically knowable must keep a floor or deny seed at deny
// ([WantDeny]); one that makes the command unknowable (a variable program,
// a glob, a function defined on the same line …) must never be allowed
// ([WantNotAllow]).
//
// The package imports nothing of rivumi outside its tests, so tests of
// other packages (engine invariants, fuzz seeds) can use it.
package adversarial
