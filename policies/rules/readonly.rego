# Allow: read-only programs with their allowed options, from
# data.rivumi.tables. A segment is covered only when its program is spelled
# plainly, every option it uses is on the program's list, nothing it writes
# leaves the workspace and it reads no secret.
package rivumi.rules

import data.rivumi.lib.segment as seg

# METADATA
# title: Read-only program
# custom:
#   id: allow.readonly
#   justification: The program only reads and prints, with options on its allowed list.
allow contains {"id": "allow.readonly"} if {
	spec := data.rivumi.tables.readonly[input.segment.program]
	input.segment.program != "git"
	seg.plain
	flags_allowed(spec)
	dynamic_ok(spec)
	seg.writes_in_workspace
	seg.reads_ok
	count(input.segment.code) == 0
}

# METADATA
# title: Read-only git subcommand
# custom:
#   id: allow.git-readonly
#   justification: >-
#     git status, log, diff, show and similar only read the repository; allowed without global options
#     other than -C inside the workspace.
allow contains {"id": "allow.git-readonly"} if {
	input.segment.program == "git"
	spec := data.rivumi.tables.git_readonly[input.segment.subcommand]
	seg.plain
	seg.static_args
	flags_allowed(spec)
	git_globals_ok
	git_list_ok
	seg.writes_in_workspace
	seg.reads_ok
	count(input.segment.code) == 0
}

# METADATA
# title: Version or help
# custom:
#   id: allow.version
#   justification: Asking a program for its version or help prints text and changes nothing.
allow contains {"id": "allow.version"} if {
	count(input.segment.argv) == 2
	input.segment.argv[1] in {"--version", "--help"}
	seg.plain
	seg.no_writes
	count(input.segment.wrappers) == 0
}

# METADATA
# title: Writing inside the workspace
# custom:
#   id: allow.workspace-write
#   justification: mkdir, touch, tee, cp and mv are allowed when everything they write stays in the workspace.
allow contains {"id": "allow.workspace-write"} if {
	spec := data.rivumi.tables.writers[input.segment.program]
	seg.plain
	seg.static_args
	flags_allowed(spec)
	count(input.segment.writes) > 0
	seg.writes_in_workspace
	seg.reads_ok
}

# METADATA
# title: awk or sed in the safe subset
# custom:
#   id: allow.text-script
#   justification: The awk or sed script only transforms text (no system, getline, pipes, e or w), reading files in place.
allow contains {"id": "allow.text-script"} if {
	input.segment.program in {"awk", "gawk", "mawk", "nawk", "sed", "gsed"}
	seg.plain
	seg.static_args
	count(input.segment.code) > 0
	every c in input.segment.code {
		c.safe
	}
	every f in input.segment.flags {
		f in {"n", "quiet", "silent", "E", "r", "regexp-extended", "s", "separate", "z", "null-data", "e", "expression", "F", "field-separator", "v", "assign", "posix", "sandbox", "u", "unbuffered", "debug"}
	}
	seg.writes_in_workspace
	seg.reads_ok
}

flags_allowed(spec) if spec.any

flags_allowed(spec) if {
	not spec.any
	every f in input.segment.flags {
		spec.flags[f]
	}
}

dynamic_ok(spec) if spec.dynamic_ok

dynamic_ok(spec) if {
	not spec.dynamic_ok
	seg.static_args
}

git_globals_ok if {
	every k, _ in input.segment.options {
		git_option_ok(k)
	}
	every c in object.get(input.segment.options, "git-dir-class", []) {
		c == "workspace"
	}
}

git_option_ok(k) if not startswith(k, "global:")

git_option_ok(k) if k in {"global:C", "global:no-pager", "global:P"}

git_list_ok if not data.rivumi.tables.git_list_words[input.segment.subcommand]

git_list_ok if {
	words := data.rivumi.tables.git_list_words[input.segment.subcommand]
	every o in input.segment.operands {
		o.text in words
	}
}
