// Package native is the built-in rule packs (policies/rules/*.rego) written
// in Go: the same rules, rule ids and tables (data.rivumi.tables, decoded
// into [Tables]), evaluated on the parser's segments without OPA.
//
// The Rego files are the specification. Each file here mirrors one of them
// (floor.go mirrors floor.rego, …; seg.go mirrors policies/lib/segment.rego)
// and says so in its comments, rule by rule; engine's
// TestNativeMatchesRego grades every testcase's segments with both and fails
// on any difference in any layer's hits, and TestNativeComplete fails when a
// built-in rule id has no Go rule here. A change to a rule is made in both
// places: the test names what differs.
//
// The engine uses these rules when it runs the embedded packs alone (no
// user packs, no YAML rules, no switched-off rules); with any of those it
// evaluates the Rego, so a team's policy is always graded by OPA.
package native
