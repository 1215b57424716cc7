# METADATA
# title: Kill-by-name helpers
# description: >-
#   Whether the operands of pkill (procps: an ERE searched in the process name, or with -f in
#   the command line; -x anchors it) or killall (psmisc: names, a path naming the executable;
#   -r an ERE) could select init, PID 1. Go's regexp stands in for glibc's regcomp only on
#   the patterns ere.readable admits, where the two agree on what matches.
package rivumi.lib.kill

import data.rivumi.lib.ere

# The names PID 1 runs under: what pkill and killall search without -f.
init_names := {"init", "systemd", "launchd"}

# PID 1's command lines: what pkill -f searches (its paths and the usual arguments).
init_cmdlines := {
	"init", "systemd", "launchd", "/sbin/launchd",
	"/sbin/init", "/sbin/init splash", "/sbin/init --system",
	"/lib/systemd/systemd", "/lib/systemd/systemd --system --deserialize 30",
	"/usr/lib/systemd/systemd", "/usr/lib/systemd/systemd --switched-root --system --deserialize 31",
}

# patterns: the operands are EREs (pkill's, killall -r's), not names.
patterns if input.segment.program == "pkill"

patterns if "regexp" in input.segment.flags

patterns if {
	# BSD killall (macOS) -m: the name is a regular expression.
	input.segment.program == "killall"
	"m" in input.segment.flags
}

# program(p): p as the Go regexp that finds what procps or psmisc finds; case folded always,
# because a locale's collation may put upper case inside a range.
program(p) := concat("", ["(?i)^(?:", p, ")$"]) if anchored

program(p) := concat("", ["(?i)", p]) if not anchored

# anchored: pkill -x (killall -e is about names longer than 15 characters, not patterns).
anchored if {
	input.segment.program == "pkill"
	"exact" in input.segment.flags
}

subjects := init_cmdlines if "full" in input.segment.flags

subjects := init_names if not "full" in input.segment.flags

# selects_init(t): the operand t could select PID 1.
selects_init(t) if {
	patterns
	ere.readable(t)
	some s in subjects
	regex.match(program(t), s)
}

selects_init(t) if {
	not patterns
	lower(t) in init_cmdlines
}

# unreadable(o): the operand o is a pattern rivumi cannot read, or not known at all.
unreadable(o) if o.class == "dynamic"

unreadable(o) if {
	patterns
	not ere.readable(o.text)
}

# unknown: arguments are not known before the shell runs: pkill "$X", xargs pkill,
# find -exec pkill {} +.
unknown if "dynamic-args" in input.segment.tags

unknown if "appended-args" in input.segment.tags

# every_process: no operand at all, so pkill -u root, killall -u root select every process of
# the user (init's, for root); --help, --version and killall -l select none, -F a PID in a
# file (ops.kill-pattern asks).
every_process if {
	count(input.segment.operands) == 0
	not stdin_only
	not "help" in input.segment.flags
	not "version" in input.segment.flags
	not "list" in input.segment.flags
	not "pidfile" in input.segment.flags
}

# stdin_only: xargs pkill, with no option but a signal: the pattern comes on stdin (unknown),
# and with none pkill selects nothing. xargs pkill -u root selects every process of root.
stdin_only if {
	"appended-args" in input.segment.tags
	every f in input.segment.flags {
		f == "signal"
	}
}
