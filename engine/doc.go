// Package engine grades parsed commands with Rego policies.
//
// It is the only package of rivumi that imports OPA's rego and ast
// packages. [New] loads the embedded policy packs (and user packs when
// given), compiles them once in strict mode with restricted capabilities,
// reads every rule's METADATA, and prepares one query. [Engine.Evaluate]
// then evaluates that query once per segment of a [parser.Command] and
// combines the per-segment decisions with [Max]: a command is allowed only
// when every segment is.
//
// Everything fails closed: a policy that does not compile stops New; an
// evaluation error, a cancelled context, an unknown decision or rule id is
// [Deny]; a parser limit hit is Deny; a parse error runs a floor scan over
// the raw text (Deny on a hit) and is otherwise [Ask].
//
// An Engine is safe for concurrent use.
package engine
