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
#   justification: >-
#     The program only reads and prints, with options on its allowed list (and, when it is jq, a
#     filter in the parsed safe subset).
allow contains {"id": "allow.readonly"} if {
	data.rivumi.tables.readonly[input.segment.program]
	input.segment.program != "git"
	readonly_flags_ok
	readonly_needs_ok
	readonly_dynamic_ok
	readonly_operands_ok
	seg.plain
	seg.writes_in_workspace
	readonly_reads_ok
	readonly_code_ok
}

readonly_reads_ok if seg.reads_ok

# A names-only walk (find, tree) of /, home or a top-level system directory
# reads names and metadata there, no contents (fs.rego: names_only).
readonly_reads_ok if {
	names_only
	every c in input.segment.read_classes {
		readable_listing_class(c)
	}
}

readable_listing_class(c) if not data.rivumi.tables.sets.unreadable_classes[c]

readable_listing_class(c) if c in {"root", "home", "system-top"}

# No code, or (jq) a filter in the parsed safe subset: paths, literals,
# operators and pure builtins, no $ENV, env, input_filename, import or
# include.
readonly_code_ok if count(input.segment.code) == 0

readonly_code_ok if {
	input.segment.program == "jq"
	every c in input.segment.code {
		c.lang == "jq"
		c.safe
	}
}

# Every option used is on the program's list (or the list says any).
readonly_flags_ok if data.rivumi.tables.readonly[input.segment.program].any

readonly_flags_ok if {
	spec := data.rivumi.tables.readonly[input.segment.program]
	not spec.any
	every f in input.segment.flags {
		spec.flags[f]
	}
}

# tar -t lists, tar -c writes: some programs are read-only only with one of
# the options their entry needs.
readonly_needs_ok if not data.rivumi.tables.readonly[input.segment.program].needs

readonly_needs_ok if {
	some f in input.segment.flags
	data.rivumi.tables.readonly[input.segment.program].needs[f]
}

# A program that is read-only with the options it needs, and uses no other:
# an archive tool that lists (unzip -l, tar -t), not one that extracts.
readonly_listing if {
	data.rivumi.tables.readonly[input.segment.program].needs
	readonly_needs_ok
	readonly_flags_ok
}

# hostname NAME sets the host name: some programs are read-only only bare.
readonly_operands_ok if not data.rivumi.tables.readonly[input.segment.program].no_operands

readonly_operands_ok if count(input.segment.operands) == 0

# Dynamic arguments are fine only for programs whose options cannot write
# or run anything.
readonly_dynamic_ok if not "dynamic-args" in input.segment.tags

readonly_dynamic_ok if data.rivumi.tables.readonly[input.segment.program].dynamic_ok

# METADATA
# title: Read-only git subcommand
# custom:
#   id: allow.git-readonly
#   justification: >-
#     git status, log, diff, show and similar only read the repository; allowed at the workspace root,
#     without global options (a subdirectory may be shaped as another repository whose config runs code).
allow contains {"id": "allow.git-readonly"} if {
	input.segment.program == "git"
	data.rivumi.tables.git_readonly[input.segment.subcommand]
	seg.plain
	seg.static_args
	git_flags_ok
	git_globals_ok
	git_list_ok
	seg.writes_in_workspace
	seg.reads_ok
	count(input.segment.code) == 0
}

# METADATA
# title: Plain assignment
# custom:
#   id: allow.assignment
#   justification: >-
#     x=5 sets a shell variable and runs nothing; names that change how commands resolve and values
#     that carry code are judged by other rules.
allow contains {"id": "allow.assignment"} if {
	input.segment.program == ""
	count(input.segment.argv) == 0
	"assigns" in input.segment.tags
	not seg.unknowable_tag
	every a in input.segment.assigns {
		not a.dynamic
	}
	seg.writes_in_workspace
}

# METADATA
# title: Version or help
# custom:
#   id: allow.version
#   justification: Asking a program for its version or help prints text and changes nothing.
allow contains {"id": "allow.version"} if {
	input.segment.argv[1] in {"--version", "--help"}
	count(input.segment.argv) == 2
	not project_toolchain
	seg.plain
	seg.no_writes
	count(input.segment.wrappers) == 0
}

allow contains {"id": "allow.version"} if {
	some form in data.rivumi.tables.version_forms[input.segment.program]
	array.slice(input.segment.argv, 1, count(input.segment.argv)) == form
	not project_toolchain
	seg.plain
	seg.no_writes
	count(input.segment.wrappers) == 0
}

# Programs whose --version or --help runs code the project chooses
# (conftest.py, .mvn/jvm.config, rust-toolchain.toml's path, .yarnrc's
# yarn-path, …): data.rivumi.tables.project_loaders. go follows the project's
# toolchain pin only to official, checksummed toolchains: it stays allowed.
project_toolchain if data.rivumi.tables.project_loaders[input.segment.program]

# METADATA
# title: Writing inside the workspace
# custom:
#   id: allow.workspace-write
#   justification: mkdir, touch, tee, cp and mv are allowed when everything they write stays in the workspace.
allow contains {"id": "allow.workspace-write"} if {
	data.rivumi.tables.writers[input.segment.program]
	"writes" in input.segment.tags
	seg.plain
	seg.static_args
	writer_flags_ok
	seg.writes_in_workspace
	seg.reads_ok
}

# METADATA
# title: Codex applying a patch inside the workspace
# custom:
#   id: allow.apply-patch
#   justification: >-
#     Codex applies `apply_patch <<'EOF' … EOF` itself, like its file tool: allowed when every file the
#     patch adds, updates, deletes or moves to is in the workspace (.git/, agent config and outside paths
#     are graded by the write rules).
allow contains {"id": "allow.apply-patch"} if {
	input.segment.program in {"apply_patch", "applypatch"}
	"apply-patch" in input.segment.tags
	seg.plain
	count(input.segment.argv) == 1
	seg.writes_in_workspace
}

# METADATA
# title: awk or sed in the safe subset
# custom:
#   id: allow.text-script
#   justification: >-
#     The awk or sed script only transforms text (no system, getline, pipes, e or w); sed -i rewrites its files,
#     allowed when every file it writes (backups included) is in the workspace and none is code a program loads.
allow contains {"id": "allow.text-script"} if {
	data.rivumi.tables.kinds.text_script[input.segment.program]
	seg.plain
	seg.static_args
	count(input.segment.code) > 0
	every c in input.segment.code {
		c.safe
	}
	every f in input.segment.flags {
		f in {"n", "quiet", "silent", "E", "r", "regexp-extended", "s", "separate", "z", "null-data", "e", "expression", "F", "field-separator", "v", "assign", "posix", "sandbox", "u", "unbuffered", "in-place"}
	}
	seg.writes_in_workspace
	seg.reads_ok
}

git_flags_ok if data.rivumi.tables.git_readonly[input.segment.subcommand].any

git_flags_ok if {
	spec := data.rivumi.tables.git_readonly[input.segment.subcommand]
	not spec.any
	every f in input.segment.flags {
		spec.flags[f]
	}
}

writer_flags_ok if {
	spec := data.rivumi.tables.writers[input.segment.program]
	every f in input.segment.flags {
		spec.flags[f]
	}
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

git_option_ok("global:c") if git_c_harmless

git_list_ok if {
	git_words_ok
	git_list_flags_ok
}

git_words_ok if {
	not data.rivumi.tables.git_list_words[input.segment.subcommand]
}

git_words_ok if {
	# The first operand must be a listing word (git stash show …); what
	# follows it names what to show.
	words := data.rivumi.tables.git_list_words[input.segment.subcommand]
	input.segment.operands[0].text in words
}

git_words_ok if {
	data.rivumi.tables.git_list_words[input.segment.subcommand]
	count(input.segment.operands) == 0
	git_word_given
}

# git stash alone pushes a stash: such subcommands need a listing word.
git_word_given if not data.rivumi.tables.git_needs_word[input.segment.subcommand]

git_word_given if count(input.segment.operands) > 0

# git branch NAME creates a branch: with operands, only listing forms read.
git_list_flags_ok if not data.rivumi.tables.git_list_flags[input.segment.subcommand]

git_list_flags_ok if count(input.segment.operands) == 0

git_list_flags_ok if {
	some f in data.rivumi.tables.git_list_flags[input.segment.subcommand]
	f in input.segment.flags
}

# METADATA
# title: Staging files or creating a branch
# custom:
#   id: allow.git-local
#   justification: >-
#     git add of repository paths (not -p, -i, -e or -f), git branch NAME [START], git switch -c NAME and
#     git checkout -b NAME change only the index and local refs: the work tree is untouched, nothing leaves
#     the machine, and no hook a clone brings runs (reference-transaction and post-checkout live in
#     .git/hooks, which nothing may write).
allow contains {"id": "allow.git-local"} if {
	input.segment.program == "git"
	git_local
	seg.plain
	seg.static_args
	git_globals_ok
	seg.writes_in_workspace
	seg.reads_ok
	count(input.segment.code) == 0
}

git_local if {
	input.segment.subcommand == "add"
	every f in input.segment.flags {
		f in {
			"all", "update", "no-all", "ignore-removal", "no-ignore-removal", "intent-to-add", "verbose", "dry-run",
			"refresh", "ignore-errors", "ignore-missing",
		}
	}
	every o in input.segment.operands {
		o.class in {"workspace", "instructions", "project-code", "ci", "agent-config", "envrc"}
	}
}

git_local if git_new_branch

# git switch -c NAME and git checkout -b NAME: a new branch at HEAD, the
# work tree and the index as they are. With a start point, -C/-B (reset a
# branch) or -f the work tree changes: not on the list.
git_new_branch if {
	input.segment.subcommand == "switch"
	git_new_branch_named("create")
}

git_new_branch if {
	input.segment.subcommand == "checkout"
	git_new_branch_named("b")
}

git_new_branch_named(opt) if {
	count(input.segment.operands) == 0
	[name] := input.segment.options[opt]
	name != ""
	not startswith(name, "-")
	every f in input.segment.flags {
		f in {opt, "quiet"}
	}
}

# git branch NAME [START]: -d, -D, -m, -M, -c, -C, -f and --edit-description
# are not on the list (git.delete-ref asks for the first ones).
git_local if {
	input.segment.subcommand == "branch"
	count(input.segment.operands) in {1, 2}
	not startswith(input.segment.operands[0].text, "-")
	every f in input.segment.flags {
		f in {"no-track", "create-reflog", "quiet"}
	}
}

# METADATA
# title: Read-only program on the paths a listing printed
# custom:
#   id: allow.listed-readonly
#   justification: >-
#     find … | xargs grep -l X and find … -exec wc -l {} + run a read-only program on the paths find prints, all
#     below find's roots (the parser adds them as operands, so they are graded as reads): allowed as the program
#     reading those roots would be.
allow contains {"id": "allow.listed-readonly"} if {
	"listed-args" in input.segment.tags
	data.rivumi.tables.readonly[input.segment.program]
	input.segment.program != "git"
	input.segment.path_kind in {"bare", "system"}
	listed_tags_ok
	seg.plain_assigns
	listed_wrappers_ok
	readonly_flags_ok
	readonly_operands_ok
	seg.writes_in_workspace
	seg.reads_ok
	count(input.segment.code) == 0
}

# Arguments appended at run time are the point here; nothing else that is
# unknowable may be.
listed_tags_ok if {
	every t in input.segment.tags {
		listed_tag_ok(t)
	}
}

listed_tag_ok("appended-args")

listed_tag_ok(t) if not data.rivumi.tables.sets.unknowable_tags[t]

# One xargs or find hands the paths over; other wrappers are the harmless ones.
listed_wrappers_ok if {
	count([w | some w in input.segment.wrappers; data.rivumi.tables.kinds.hands_listing[w.name]]) == 1
	every w in input.segment.wrappers {
		listed_wrapper_ok(w.name)
	}
}

listed_wrapper_ok(name) if data.rivumi.tables.kinds.harmless_wrapper[name]

listed_wrapper_ok(name) if data.rivumi.tables.kinds.hands_listing[name]
