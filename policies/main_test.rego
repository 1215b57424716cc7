package rivumi.main_test

import data.rivumi.lib.fixture as fx
import data.rivumi.main

# The ask rules a grant may cancel, as the engine records them from the
# rules' METADATA (asks without a wrapper, assignment, redirect or shape
# scope).
grantable := {"fs.delete": true, "git.hooks": true, "git.rewrite-history": true}

# result evaluates the layering for cmd with the real tables and the
# grantable ids above; evaluate takes the grantable ids as g.
result(cmd) := evaluate(cmd, grantable)

evaluate(cmd, g) := r if {
	r := main.result with input as cmd
		with data.rivumi.tables as fx.tables
		with data.rivumi.meta.grantable as g
}

# with_grants returns cmd with the session grants whose prefix matched it.
with_grants(cmd, ids) := object.union(cmd, {"granted": ids})

ids(hits) := {h.id | some h in hits}

ls := fx.run(["ls", "-la"], {"flags": {"l", "a"}})

rm_root := fx.run(["rm", "-rf", "/"], {
	"flags": {"recursive", "force"},
	"operands": [fx.path("/", "root")],
	"writes": [fx.path("/", "root")],
})

# rm -r asks (rm of named files is allowed: allow.workspace-delete).
rm_build := fx.run(["rm", "-r", "build"], {
	"flags": {"recursive"},
	"operands": [fx.path("build", "workspace")],
	"writes": [fx.path("build", "workspace")],
})

force_push := fx.run(["git", "push", "--force"], {"subcommand": "push", "flags": {"force"}})

amend := fx.run(["git", "commit", "--amend"], {"subcommand": "commit", "flags": {"amend"}})

sudo_ls := fx.run(["ls"], {"wrappers": [fx.wrapper("sudo", [])]})

# Floor

test_floor_beats_allow if {
	# cat is read-only, but its input is a network socket.
	r := result(fx.run(["cat"], {"redirects": [fx.redirect("<", "/dev/tcp/h/80", "net")]}))
	r.decision == "deny"
	"floor.reverse-shell" in ids(r.floor)
	"allow.readonly" in ids(r.allow)
}

test_floor_beats_grants if {
	cmd := with_grants(rm_root, {"fs.delete", "fs.write-outside", "floor.rm-critical"})
	r := evaluate(cmd, {"fs.delete": true, "fs.write-outside": true, "floor.rm-critical": true})
	r.decision == "deny"
	"floor.rm-critical" in ids(r.floor)

	# Every ask was granted: only the floor decides.
	count(r.ask) == 0
}

test_floor_cannot_be_disabled if {
	r := result(rm_root) with data.rivumi.disabled as {"floor.rm-critical": "testing"}
	r.decision == "deny"
	"floor.rm-critical" in ids(r.floor)
}

# Deny

test_deny_beats_grants if {
	r := evaluate(with_grants(force_push, {"git.force-push", "git.hooks"}), {"git.force-push": true, "git.hooks": true})
	r.decision == "deny"
	ids(r.deny) == {"git.force-push"}

	# The grant still cancelled the ask it named; the deny stands anyway.
	ids(r.granted) == {"git.hooks"}
}

test_deny_beats_allow if {
	r := result(ls) with data.rivumi.user.deny as {{"id": "team.no-ls"}}
	r.decision == "deny"
	"allow.readonly" in ids(r.allow)
}

test_disabled_deny_rule if {
	r := result(force_push) with data.rivumi.disabled as {"git.force-push": "mirrors are force-pushed"}
	r.decision == "ask"
	ids(r.deny) == set()
	ids(r.ask) == {"git.hooks"}
}

# Grants

test_grant_cancels_granted_grantable_ask if {
	r := result(with_grants(rm_build, {"fs.delete"}))
	r.decision == "allow"
	ids(r.granted) == {"fs.delete"}
	count(r.ask) == 0
	count(r.allow) == 0
	main.covered with input as with_grants(rm_build, {"fs.delete"}) with data.rivumi.meta.grantable as grantable
		with data.rivumi.tables as fx.tables
}

test_grant_cancels_only_the_asks_it_names if {
	r := result(with_grants(amend, {"git.hooks"}))
	r.decision == "ask"
	ids(r.granted) == {"git.hooks"}
	ids(r.ask) == {"git.rewrite-history"}
	not main.covered with input as with_grants(amend, {"git.hooks"}) with data.rivumi.meta.grantable as grantable
		with data.rivumi.tables as fx.tables

	# Both named: nothing left to ask.
	result(with_grants(amend, {"git.hooks", "git.rewrite-history"})).decision == "allow"
}

test_grant_of_non_grantable_ask_stays if {
	# privilege.escalation is raised by a wrapper: no grant cancels it.
	r := evaluate(with_grants(sudo_ls, {"privilege.escalation"}), grantable)
	r.decision == "ask"
	ids(r.ask) == {"privilege.escalation"}
	count(r.granted) == 0
}

test_grant_leaves_non_grantable_asks_open if {
	cmd := fx.run(["rm", "build.log"], {
		"operands": [fx.path("build.log", "workspace")],
		"redirects": [fx.redirect("2>", "/tmp/rm.log", "tmp")],
		"writes": [fx.path("build.log", "workspace"), fx.path("/tmp/rm.log", "tmp")],
	})
	r := result(with_grants(cmd, {"fs.delete", "fs.write-outside"}))
	r.decision == "ask"
	ids(r.granted) == {"fs.delete"}
	ids(r.ask) == {"fs.write-outside"}
}

test_grantable_ask_needs_a_grant if {
	r := result(rm_build)
	r.decision == "ask"
	ids(r.ask) == {"fs.delete"}
	count(r.granted) == 0
}

# Ask, allow, fallback

test_allow_when_covered_and_nothing_asks if {
	r := result(ls)
	r.decision == "allow"
	ids(r.allow) == {"allow.readonly"}
	main.covered with input as ls with data.rivumi.tables as fx.tables
}

test_ask_beats_allow if {
	r := result(fx.run(["sleep", "1"], {"tags": {"background"}}))
	r.decision == "ask"
	"allow.readonly" in ids(r.allow)
	ids(r.ask) == {"shell.background"}
}

test_disabled_ask_rule if {
	r := result(fx.run(["sleep", "1"], {"tags": {"background"}}))
		with data.rivumi.disabled as {"shell.background": "jobs are reaped by the harness"}
	r.decision == "allow"
}

test_disabled_allow_rule if {
	r := result(ls) with data.rivumi.disabled as {"allow.readonly": "we list nothing"}
	r.decision == "ask"
	count(r.allow) == 0
}

test_fallback_ask_when_nothing_covers if {
	r := result(fx.run(["frobnicate", "--all"], {"flags": {"all"}}))
	r.decision == "ask"
	every layer in ["floor", "deny", "ask", "granted", "allow"] {
		count(r[layer]) == 0
	}
	not main.covered with input as fx.run(["frobnicate"], {}) with data.rivumi.tables as fx.tables
}

# User packs (data.rivumi.user) join the built-in layers.

test_user_layers if {
	unknown := fx.run(["frobnicate"], {})
	result(unknown).decision == "allow" with data.rivumi.user.allow as {{"id": "team.frobnicate"}}
	result(ls).decision == "ask" with data.rivumi.user.ask as {{"id": "team.ask-ls"}}
	result(ls).decision == "deny" with data.rivumi.user.deny as {{"id": "team.no-ls"}}
	result(ls).decision == "deny" with data.rivumi.user.floor as {{"id": "team.floor-ls"}}
}

# hits (the engine's fast path) holds each layer's hits before grants.
test_hits_before_grants if {
	cmd := with_grants(rm_build, {"fs.delete"})
	hits := main.hits with input as cmd
		with data.rivumi.tables as fx.tables
		with data.rivumi.meta.grantable as grantable
	ids(hits.ask) == {"fs.delete"}
	object.keys(hits) == {"floor", "deny", "ask", "allow"}
}

test_result_shape if {
	object.keys(result(ls)) == {"decision", "floor", "deny", "ask", "granted", "allow"}
}
