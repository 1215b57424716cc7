# METADATA
# title: Segment helpers
# description: Small predicates over input.segment shared by the rule packs.
package rivumi.lib.segment

# Classes of paths whose recursive deletion or overwrite the floor forbids.
critical_classes := {"root", "home", "system-top"}

# Classes of paths no command may write (deny).
protected_classes := {"git", "agent-config", "rc", "ssh", "ci", "envrc"}

# Classes whose contents are secret (parser.SecretClasses, as data).
secret_classes := {c | some c, _ in data.rivumi.tables.sets.secret_classes}

# Assignments an allowed command may carry.
harmless_assigns := {
	"LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "NO_COLOR", "FORCE_COLOR", "TERM",
	"COLUMNS", "LINES", "GIT_PAGER_IN_USE", "CLICOLOR", "PAGER_DISABLED", "DEBUG", "CI", "RUST_BACKTRACE",
}

# Tags that make a segment unknowable or run code. The list is data
# (data.rivumi.tables.sets.unknowable_tags, policies/tables/tables.json): a
# lookup there costs less per verdict than building a set literal.
unknowable_tags := {t | some t, _ in data.rivumi.tables.sets.unknowable_tags}

unknowable_tag if {
	some t in input.segment.tags
	data.rivumi.tables.sets.unknowable_tags[t]
}

tagged(t) if t in input.segment.tags

has_flag(f) if f in input.segment.flags

# plain holds when the segment is a program spelled plainly (bare name or a
# system bin path), wrapped at most by harmless wrappers, with harmless
# assignments and nothing unknowable.
plain if {
	input.segment.path_kind in {"bare", "system"}
	not unknowable_tag
	plain_wrappers
	plain_assigns
}

plain_wrappers if not "wrapped" in input.segment.tags

plain_wrappers if {
	"wrapped" in input.segment.tags
	every w in input.segment.wrappers {
		data.rivumi.tables.kinds.harmless_wrapper[w.name]
	}
}

plain_assigns if not "assigns" in input.segment.tags

plain_assigns if {
	"assigns" in input.segment.tags
	every a in input.segment.assigns {
		harmless_assign(a)
	}
}

harmless_assign(a) if {
	a.name in harmless_assigns
	not a.dynamic
}

# IFS= read -r line: IFS only shapes read's own splitting.
harmless_assign(a) if {
	a.name == "IFS"
	data.rivumi.tables.kinds.reads_vars[input.segment.program]
	not a.dynamic
}

# writes_in_workspace holds when everything the segment writes is inside the
# workspace (and not protected there).
writes_in_workspace if not "writes" in input.segment.tags

writes_in_workspace if {
	"writes" in input.segment.tags
	input.segment.write_classes == {"workspace"}
}

no_writes if count(input.segment.writes) == 0

# reads_ok holds when nothing the segment reads is a secret.
reads_ok if not unreadable_read

unreadable_read if {
	some c in input.segment.read_classes
	data.rivumi.tables.sets.unreadable_classes[c]
}

# Reads that need consent: secrets, and paths nobody can know beforehand
# (cat "$f" may be cat ~/.ssh/id_rsa).
# Reading a glob of / or of home (cat ~/.s?h/id_rsa, cat /etc/*) reaches
# secrets too.
unreadable_classes := {c | some c, _ in data.rivumi.tables.sets.unreadable_classes}

# query_only holds for `prog --version` and `prog --help`.
query_only if {
	count(input.segment.argv) == 2
	input.segment.argv[1] in {"--version", "--help"}
}

# static_args holds when every argument is static.
static_args if not tagged("dynamic-args")
