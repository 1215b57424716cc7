// Package engine grades parsed commands.
//
// [New] loads the embedded policy packs (and the user packs, YAML rules,
// switched-off rules and standing grants of a configuration), reads every
// rule's METADATA and checks the YAML rules' examples. With the embedded
// packs alone it grades with their Go mirror (policies/native) and compiles
// no Rego until something asks for it (coverage, traces, the Rego tests);
// with anything a team wrote it compiles the packs once in strict mode with
// restricted capabilities and evaluates them with OPA. It is the only
// package of rivumi that imports OPA's rego and ast packages.
//
// Per segment of a [parser.Command] the layers' hits are combined as
// policies/main.rego spells out (the critical floor, deny, grants that
// cancel named asks, ask, allow must cover, else ask), and the segments'
// decisions with [Max]: a command is allowed only when every segment is.
// [Engine.Grade] answers a [verdict.Request]: the engine is a
// [verdict.Grader].
//
// Everything fails closed: a policy that does not compile stops New; an
// evaluation error, a cancelled context, an unknown decision or rule id is
// [Deny]; a parser limit hit is Deny; a parse error runs a floor scan over
// the raw text (Deny on a hit) and is otherwise [Ask].
//
// An Engine is safe for concurrent use.
package engine
