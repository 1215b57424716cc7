# METADATA
# title: rivumi entrypoint for OPA
# description: |
#   Grades input.command (or input.argv) with rivumi's packs inside OPA, as
#   the rivumi engine does in Go: the rivumi.parse builtin (rivumi-opa)
#   splits the command into segments with facts, data.rivumi.main.result
#   decides each segment, and the strictest decision wins.
#   Query data.rivumi.entry.verdict with input
#   {"command": "...", "cwd": "/abs", "workspace": "/abs", "home": "/abs",
#    "shell": "bash", "grants": [{"prefix": [...], "rules": [...]}]}
#   (all but command optional; "argv": [...] instead of "command" grades an
#   argv run without a shell). Anything that goes wrong is deny.
package rivumi.entry

# The policy hash `rivumi policy build` recorded.
policy := object.get(data.rivumi.meta, "policy", "")

# The verdict's policy hash: the recorded one mixed with the call's grants,
# as the engine names it (engine.policyWithGrants), so that a verdict a
# grant changed never shares a hash with the one it replaced.
verdict_policy := policy if count(grants) == 0

verdict_policy := policy if {
	count(grants) > 0
	policy == ""
}

verdict_policy := substring(crypto.sha256(concat("", [policy, "\u0000grants\u0000", concat("\n", sort(keys))])), 0, 16) if {
	count(grants) > 0
	policy != ""
	keys := [json.marshal({"prefix": object.get(g, "prefix", null), "rules": object.get(g, "rules", null)}) | some g in grants]
}

rules := object.get(data.rivumi.meta, "rules", {})

known_keys := {"command", "argv", "cwd", "workspace", "home", "shell"}

parsed := rivumi.parse(object.filter(input, known_keys))

# Input problems make the verdict deny (engine.bad-input), as rivumi serve
# refuses unknown fields: a misspelt "cwd" must not silently change
# what counts as the workspace.
input_problems contains "input must be an object" if not is_object(input)

input_problems contains sprintf("unknown input key %q", [k]) if {
	some k, _ in input
	not k in (known_keys | {"grants"})
}

# What rivumi.parse could not read (a relative cwd, an unknown shell …),
# in its words.
input_problems contains parsed.input_error if is_string(parsed.input_error)

input_problems contains `"grants" must be an array` if {
	"grants" in object.keys(input)
	not is_array(input.grants)
}

input_problems contains `give "command" (a string) or "argv" (an array of strings)` if {
	not is_string(input.command)
	not is_array(input.argv)
}

default grants := []

grants := input.grants if is_array(input.grants)

# results[i] is data.rivumi.main.result for segment i.
results[i] := r if {
	some i, seg in parsed.segments
	seg_input := {
		"segment": seg,
		"index": i,
		"count": count(parsed.segments),
		"shape": parsed.shape,
		"granted": granted(seg),
	}
	r := data.rivumi.main.result with input as seg_input
}

# granted(seg) is input.granted as the engine computes it: the rules of
# every grant whose prefix matches the segment's argv, with the program in
# place of argv[0] and no dynamic word; none on a segment whose program runs
# whatever it is handed.
granted(seg) := {id |
	not "runs-anything" in seg.tags
	some g in grants
	count(g.prefix) > 0
	count(g.prefix) <= count(seg.argv)
	every i, p in g.prefix {
		grant_word(seg, i) == p
		not seg.dynamic[i]
	}
	some id in g.rules
}

grant_word(seg, 0) := seg.program

grant_word(seg, i) := seg.argv[i] if i > 0

layers := [
	{"key": "floor", "layer": "floor", "decision": "deny"},
	{"key": "deny", "layer": "deny", "decision": "deny"},
	{"key": "ask", "layer": "ask", "decision": "ask"},
	{"key": "granted", "layer": "grant", "decision": "allow"},
	{"key": "allow", "layer": "allow", "decision": "allow"},
]

prefix(seg) := [seg.program, seg.subcommand] if {
	seg.program != ""
	seg.subcommand != ""
} else := [seg.program] if {
	seg.program != ""
} else := []

describe(seg) := sprintf("`%s`", [concat(" ", prefix(seg))]) if {
	count(prefix(seg)) > 0
} else := "this command"

hits contains h if {
	some i, r in results
	some l in layers
	some hit in r[l.key]
	m := object.get(rules, hit.id, {"title": "", "justification": "", "grantable": false})
	h := {
		"rule": hit.id, "layer": l.layer, "decision": l.decision, "segment": i,
		"title": m.title, "justification": m.justification,
		"prefix": prefix(parsed.segments[i]), "grantable": m.grantable,
	}
}

# A segment that asks with no open ask rule asks because nothing covers it.
hits contains h if {
	some i, r in results
	r.decision == "ask"
	count(r.ask) == 0
	seg := parsed.segments[i]
	h := {
		"rule": "fallback.uncovered", "layer": "fallback", "decision": "ask", "segment": i,
		"title": "No rule covers this command",
		"justification": sprintf("Nothing allows %s; rivumi asks for anything it does not know.", [describe(seg)]),
		"prefix": prefix(seg), "grantable": false,
	}
}

unknown_rules := {h.rule | some h in hits; h.layer != "fallback"; not rules[h.rule]}

bad_decisions := {r.decision | some r in results; not r.decision in {"allow", "ask", "deny"}}

final := "deny" if {
	some r in results
	r.decision == "deny"
} else := "ask" if {
	some r in results
	r.decision == "ask"
} else := "allow"

fail(rule, why) := {"decision": "deny", "policy": policy, "reasons": [{
	"rule": rule, "layer": "engine", "decision": "deny", "segment": -1,
	"title": why, "justification": why,
}]}

floor_reason(id) := {
	"rule": id, "layer": "floor", "decision": "deny", "segment": -1,
	"title": rules[id].title, "justification": rules[id].justification,
} if {
	rules[id]
} else := {
	"rule": id, "layer": "floor", "decision": "deny", "segment": -1,
	"title": "Critical shape in unparsable text",
	"justification": "The text does not parse, and it contains a shape the floor forbids.",
}

limit_why := sprintf("the command exceeds the parser's %s limit; it cannot be graded", [parsed.limit])

parse_why := sprintf(
	"%d:%d: %s; rivumi cannot see what it would run.",
	[parsed.error.line, parsed.error.col, parsed.error.msg],
)

# METADATA
# title: The verdict for input.command
# description: decision allow|ask|deny, the deciding reasons, the policy hash.
default verdict := {"decision": "deny", "policy": "", "reasons": [{
	"rule": "engine.error", "layer": "engine", "decision": "deny", "segment": -1,
	"title": "policy evaluation failed",
	"justification": "The command could not be graded (bad input, or the rivumi.parse builtin failed or is missing).",
}]}

verdict := fail("engine.bad-input", concat("; ", input_problems)) if {
	count(input_problems) > 0
} else := fail("engine.limit", limit_why) if {
	parsed.limit != ""
} else := {"decision": "deny", "policy": verdict_policy, "reasons": [floor_reason(id) | some id in parsed.floor]} if {
	parsed.error != null
	count(parsed.floor) > 0
} else := {"decision": "ask", "policy": verdict_policy, "reasons": [{
	"rule": "engine.parse-error", "layer": "engine", "decision": "ask", "segment": -1,
	"title": "The command does not parse",
	"justification": parse_why,
}]} if {
	parsed.error != null
} else := {"decision": "allow", "policy": verdict_policy, "reasons": [{
	"rule": "engine.empty", "layer": "engine", "decision": "allow", "segment": -1,
	"title": "Nothing to run", "justification": "The text holds no command (only blanks or comments).",
}]} if {
	count(parsed.segments) == 0
} else := fail("engine.error", "policy returned no result for a segment") if {
	count(results) != count(parsed.segments)
} else := fail("engine.unknown-rule", sprintf("rule ids %v have no METADATA: unknown rules deny", [unknown_rules])) if {
	count(unknown_rules) > 0
} else := fail("engine.error", sprintf("unknown decisions %v", [bad_decisions])) if {
	count(bad_decisions) > 0
} else := {"decision": final, "policy": verdict_policy, "reasons": [h | some h in hits; h.decision == final]} if {
	# Positively guarded: when rivumi.parse fails (undefined without
	# strict builtin errors) no branch holds and the default denies.
	count(parsed.segments) > 0
	count(results) == count(parsed.segments)
}

# decision is the verdict's decision alone.
decision := verdict.decision
