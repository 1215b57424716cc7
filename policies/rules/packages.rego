# Package managers and tools that run workspace code.
package rivumi.rules

import data.rivumi.lib.kill
import data.rivumi.lib.segment as seg

# METADATA
# title: Installing or changing packages
# custom:
#   id: packages.install
#   grantable: true
#   justification: >-
#     Installing packages downloads code and runs its install scripts; confirm the package and
#     the source.
ask contains {"id": "packages.install"} if {
	subs := data.rivumi.tables.package_managers[input.segment.program]
	input.segment.subcommand in subs
}

ask contains {"id": "packages.install"} if {
	data.rivumi.tables.kinds.installs[input.segment.program]
}

# METADATA
# title: Running workspace code
# custom:
#   id: exec.workspace-code
#   grantable: true
#   justification: >-
#     Build tools, test runners and package scripts run code from the workspace, which may be
#     hostile. Confirm before running it.
ask contains {"id": "exec.workspace-code"} if {
	# Looked up, then compared: `data.…[input.…] == true` in one expression
	# costs ~6 µs per segment in OPA's rule index (policies_test.go forbids it).
	runs := data.rivumi.tables.workspace_runners[input.segment.program]
	runs == true
	not seg.query_only
}

ask contains {"id": "exec.workspace-code"} if {
	subs := data.rivumi.tables.workspace_runners[input.segment.program]
	is_array(subs)
	input.segment.subcommand in subs
}

# METADATA
# title: Running a program from a relative or unusual path
# custom:
#   id: exec.local-program
#   grantable: true
#   justification: ./script and paths outside the system's bin directories run code from the workspace or elsewhere.
ask contains {"id": "exec.local-program"} if {
	input.segment.path_kind in {"relative", "absolute"}
}

# METADATA
# title: Privilege
# custom:
#   id: privilege.escalation
#   scope: wrapper
#   justification: sudo, doas, su, pkexec and run0 run the command as another user, usually root.
ask contains {"id": "privilege.escalation"} if {
	"wrapped" in input.segment.tags
	some w in input.segment.wrappers
	data.rivumi.tables.kinds.privilege_wrapper[w.name]
}

ask contains {"id": "privilege.escalation"} if {
	data.rivumi.tables.kinds.privilege[input.segment.program]
}

# METADATA
# title: Destroying infrastructure or data
# custom:
#   id: ops.destroy
#   grantable: true
#   justification: >-
#     The command deletes cloud resources, clusters, databases, queues or remote data.
#     Confirm the target and that it can be recovered.
ask contains {"id": "ops.destroy"} if {
	data.rivumi.tables.ops_tools[input.segment.program]
	some w in input.segment.argv
	regex.match(`(?i)^(-{0,2})(delete|destroy|remove|rm|rmi|prune|purge|drop|truncate|terminate|uninstall|flushall|flushdb|kill|wipe|reset|sync|delete_[a-z_]+|delete-[a-z-]+|remove-[a-z-]+)$`, w)
}

ask contains {"id": "ops.destroy"} if {
	data.rivumi.tables.kinds.database[input.segment.program]
	some w in input.segment.argv
	regex.match(`(?i)\b(drop|truncate|delete\s+from|flushall|flushdb|dropDatabase|alter\s+table)\b`, w)
}

# METADATA
# title: System services and scheduled jobs
# custom:
#   id: ops.system
#   grantable: true
#   justification: systemctl, launchctl, crontab, at and service change what the system runs, now or later.
ask contains {"id": "ops.system"} if {
	data.rivumi.tables.kinds.system[input.segment.program]
}

# METADATA
# title: Stopping processes
# custom:
#   id: ops.kill
#   grantable: true
#   justification: kill, pkill and killall stop processes that may not be yours.
ask contains {"id": "ops.kill"} if {
	data.rivumi.tables.kinds.kills[input.segment.program]
}

# METADATA
# title: Stopping processes by a pattern rivumi cannot read
# custom:
#   id: ops.kill-pattern
#   justification: >-
#     A pkill or killall -r pattern that Go's regexp does not read as glibc does (\d, \<, [\-], [[=i=]]),
#     or that is not known before the shell runs, may match init or every process.
#     Name the process plainly (pkill -x myserver) or kill it by its PID.
ask contains {"id": "ops.kill-pattern"} if {
	data.rivumi.tables.kinds.kills_by_name[input.segment.program]
	some o in input.segment.operands
	kill.unreadable(o)
}

ask contains {"id": "ops.kill-pattern"} if {
	data.rivumi.tables.kinds.kills_by_name[input.segment.program]
	kill.unknown
}

ask contains {"id": "ops.kill-pattern"} if {
	# pkill -F pidfile: the PID is in a file rivumi does not read.
	input.segment.program == "pkill"
	count(input.segment.operands) == 0
	"pidfile" in input.segment.flags
}
