# METADATA
# title: Test fixtures
# description: |
#   Builds evaluation inputs for the Rego unit tests from segment facts, the
#   way engine/input.go does: {"segment", "index", "count", "shape", "granted"}
#   with flags, tags and granted as sets. Tests start from a plain segment and
#   override only the facts they are about. Lives in a _test.rego file so the
#   engine never loads it.
package rivumi.lib.fixture

workspace := "/work/repo"

# segment holds the facts of a plain segment that reads and writes nothing.
segment := {
	"index": 0,
	"parent": -1,
	"depth": 0,
	"kind": "top",
	"text": "",
	"argv": [],
	"dynamic": [],
	"program": "",
	"path": "",
	"path_kind": "bare",
	"wrappers": [],
	"subcommand": "",
	"flags": set(),
	"options": {},
	"operands": [],
	"redirects": [],
	"assigns": [],
	"cwd": workspace,
	"cwd_known": true,
	"upstream": [],
	"downstream": [],
	"stdin": "",
	"code": [],
	"writes": [],
	"reads": [],
	"write_classes": set(),
	"read_classes": set(),
	"tags": set(),
}

shape := {
	"operators": [],
	"substitutions": 0,
	"proc_substs": 0,
	"heredocs": 0,
	"background": false,
	"dynamic_command": false,
	"changed_shell": false,
	"functions": [],
}

# run returns the input for one segment running argv (program and path taken
# from argv[0]), with the facts in over replacing the defaults. Nested objects
# (options) merge; sets and arrays are replaced. The facts the parser derives
# from others are derived here the same way (parser/parse.go, finish):
# reads (over.reads, meaning @file option values, then the operands and the
# input redirect targets), write_classes, read_classes and the summary tags.
run(argv, over) := {
	"segment": derive(object.union(object.union(segment, from_argv(argv)), over)),
	"index": 0,
	"count": 1,
	"shape": shape,
	"granted": set(),
}

derive(s) := object.union(s, {
	"reads": reads(s),
	"write_classes": {w.class | some w in s.writes},
	"read_classes": {r.class | some r in reads(s)},
	"tags": (s.tags | summary_tags(s)),
})

reads(s) := array.concat(array.concat(s.reads, s.operands), inputs(s))

inputs(s) := [r.target | some r in s.redirects; r.op in {"<", "<>", "<&"}]

summary_tags(s) := {t |
	some t, list in {"writes": s.writes, "assigns": s.assigns, "wrapped": s.wrappers, "redirect": s.redirects}
	count(list) > 0
} | {"opaque-code" | some c in s.code; not c.safe}

from_argv(argv) := {
	"argv": argv,
	"dynamic": [false | some _ in argv],
	"program": argv[0],
	"path": argv[0],
	"text": concat(" ", argv),
}

# path returns an operand or write target of the given class.
path(text, class) := {"text": text, "path": abs(text), "class": class, "dynamic": false}

abs(p) := p if startswith(p, "/")

abs(p) := concat("/", [workspace, p]) if not startswith(p, "/")

redirect(op, text, class) := {"op": op, "fd": "", "target": path(text, class), "inherited": false}

assign(name, value) := {"name": name, "value": value, "dynamic": false}

wrapper(name, args) := {"name": name, "args": args}

code(lang, text, safe) := {"lang": lang, "text": text, "safe": safe, "dynamic": false}

# tables is data.rivumi.tables wherever the loader mounted tables.json: the
# engine (and go test) at the root, a plain `opa test policies/` under
# data.tables, after the directory the file sits in. Tests of rules that read
# the tables add `with data.rivumi.tables as fixture.tables`.
tables := data.rivumi.tables

tables := data.tables.rivumi.tables if not data.rivumi.tables

# cmd returns the engine's input for the one-segment command text, as the
# parser builds it (policies/lib/parsed_test.rego, generated: go test
# ./engine -run TestParsedFixtureCurrent -update-fixture). Prefer it to run
# wherever a test is about a command rather than about a fact.
cmd(text) := data.rivumi.lib.parsed.inputs[text]
