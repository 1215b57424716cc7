# METADATA
# title: rivumi layering
# description: |
#   Turns the rule hits of one segment into its decision, strictest layer first:
#   floor, deny, grants, ask, allow (must cover), fallback ask.
#   The engine evaluates this once per segment and keeps the strictest
#   decision over all segments, so a command is allowed only when every
#   segment is.
package rivumi.main

import data.rivumi.rules

# Hits of every layer, built-in and user (user_* come from a module the
# engine generates for the user packs it loaded; empty without them).
floor_hits := rules.floor | data.rivumi.main.user.floor

# Rules a team switched off (data.rivumi.disabled: id -> reason, from
# configuration; engine/disable.go) are dropped from every layer but the
# floor, which nothing switches off.
deny_hits := enabled(rules.deny | data.rivumi.main.user.deny)

ask_hits := enabled(rules.ask | data.rivumi.main.user.ask)

allow_hits := enabled(rules.allow | data.rivumi.main.user.allow)

enabled(hits) := {h | some h in hits; not disabled(h)}

# A malformed hit (no id) is kept, so that the engine sees it and denies.
disabled(h) if data.rivumi.disabled[h.id]

# An ask is cancelled by a session grant only when the grant names its rule
# id, the grant's argv prefix matched this segment (input.granted, computed
# by the engine) and the rule is one a grant may cancel at all: asks raised by
# wrappers, assignments, redirects or the command's shape never are.
granted_asks contains h if {
	some h in ask_hits
	input.granted[h.id]
	data.rivumi.meta.grantable[h.id]
	not "runs-anything" in input.segment.tags
}

open_asks := ask_hits - granted_asks

# A segment is covered by an allow rule, or by grants that cancelled every
# ask it raised.
covered if count(allow_hits) > 0

covered if {
	count(granted_asks) > 0
	count(open_asks) == 0
}

default decision := "ask"

decision := "deny" if {
	count(floor_hits) + count(deny_hits) > 0
} else := "ask" if {
	count(open_asks) > 0
} else := "allow" if {
	covered
}

result := {
	"decision": decision,
	"floor": floor_hits,
	"deny": deny_hits,
	"ask": open_asks,
	"granted": granted_asks,
	"allow": allow_hits,
}

# hits is what the engine's fast path reads: the hits of each layer before
# grants. The engine applies the same layering as `decision` above in Go
# (engine/layering.go); a test proves both give identical verdicts on every
# testcase.
hits := {
	"floor": floor_hits,
	"deny": deny_hits,
	"ask": ask_hits,
	"allow": allow_hits,
}
