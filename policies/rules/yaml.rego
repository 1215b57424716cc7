# YAML prefix rules from configuration.
#
# The engine turns each YAML rule (rules/yamlrules.go) into a record under
# data.rivumi.yaml.<layer>_by_program[program]; one generic rule per layer
# looks up the segment's program there, so a command whose program no YAML
# rule names costs one failed lookup per layer. A hit carries the YAML
# rule's own id; the engine registers its title and justification.
package rivumi.rules

import data.rivumi.lib.segment as seg

# METADATA
# title: YAML deny rules
# custom:
#   ids_from: data.rivumi.yaml
#   justification: Each hit carries the id and justification of the YAML deny rule that matched.
deny contains {"id": r.id} if {
	some r in data.rivumi.yaml.deny_by_program[input.segment.program]
	yaml_matches_anywhere(r)
}

# METADATA
# title: YAML ask rules
# custom:
#   ids_from: data.rivumi.yaml
#   justification: Each hit carries the id and justification of the YAML ask rule that matched.
ask contains {"id": r.id} if {
	some r in data.rivumi.yaml.ask_by_program[input.segment.program]
	yaml_matches_anywhere(r)
}

# An allow rule covers a segment whose argv starts with the rule's words
# (all static), spelled plainly (seg.plain: a bare or system path, harmless
# wrappers and assignments only), carrying no code (but a jq filter in the
# parsed safe subset), writing only inside the workspace and reading no
# secret.

# METADATA
# title: YAML allow rules
# custom:
#   ids_from: data.rivumi.yaml
#   justification: Each hit carries the id and justification of the YAML allow rule that matched.
allow contains {"id": r.id} if {
	some r in data.rivumi.yaml.allow_by_program[input.segment.program]
	yaml_argv_prefix(r)
	seg.plain
	yaml_code_ok
	seg.writes_in_workspace
	seg.reads_ok
}

# jq's filter is code the parser reads into a safe subset (plain data
# transformation): an allow rule for jq keeps covering it, as it did when
# the filter was not recorded as code.
yaml_code_ok if count(input.segment.code) == 0

yaml_code_ok if {
	count(input.segment.code) > 0
	every c in input.segment.code {
		c.lang == "jq"
		c.safe
	}
}

yaml_argv_prefix(r) if {
	count(input.segment.argv) > count(r.words)
	not input.segment.dynamic[0]
	every i, alts in r.words {
		input.segment.argv[i + 1] in alts
		not input.segment.dynamic[i + 1]
	}
}

# A deny or ask rule matches when its words are a prefix of the segment's
# words, every option it names appears anywhere, and every later word
# appears among the remaining words (or as the value of a --name=value).
yaml_matches_anywhere(r) if {
	count(yaml_words) > count(r.words)
	every i, alts in r.words {
		yaml_words[i + 1] in alts
	}
	every pos in r.options {
		some o in pos
		yaml_option(o)
	}
	every alts in r.later {
		yaml_later(alts, count(r.words) + 1)
	}
}

yaml_later(alts, from) if {
	some w in array.slice(yaml_words, from, count(yaml_words))
	w in alts
}

yaml_later(alts, _) if {
	some v in yaml_values
	v in alts
}

# yaml_values: the values of --name=value options.
yaml_values contains substring(w, i + 1, -1) if {
	some w in input.segment.argv
	startswith(w, "--")
	i := indexof(w, "=")
	i > 2
}

# yaml_words: the program, then the argv words that are not options,
# starting at the subcommand when the parser knows one (so `git -C dir push`
# has the words git, push).
yaml_words := array.concat(
	[input.segment.program],
	[w | some i, w in input.segment.argv; i >= yaml_start; not startswith(w, "-")],
)

yaml_start := i if {
	input.segment.subcommand != ""
	i := min({j | some j, w in input.segment.argv; j > 0; w == input.segment.subcommand})
} else := 1

yaml_option(o) if o.exact in input.segment.argv

yaml_option(o) if {
	count(o.pair) == 2
	some i, w in input.segment.argv
	w == o.pair[0]
	input.segment.argv[i + 1] == o.pair[1]
}

yaml_option(o) if {
	some n in o.names
	n in input.segment.flags
}

yaml_option(o) if {
	o.assign != ""
	some w in input.segment.argv
	startswith(w, o.assign)
}

yaml_option(o) if {
	count(o.letters) > 0
	every l in o.letters {
		yaml_letter(l)
	}
}

yaml_letter(l) if l.letter in yaml_letters

yaml_letter(l) if {
	some n in l.names
	n in input.segment.flags
}

# yaml_letters: the letters of the argv's short-option words (-fu gives f, u).
yaml_letters contains l if {
	some i, w in input.segment.argv
	i > 0
	startswith(w, "-")
	not startswith(w, "--")
	some l in split(substring(w, 1, -1), "")
}
