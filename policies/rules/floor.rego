# Floor: shapes that are never legitimate in automation. Deny; nothing lowers
# them (grants, user allow rules and switches cannot touch this layer).
package rivumi.rules

import data.rivumi.lib.kill
import data.rivumi.lib.segment as seg

# METADATA
# title: Recursive delete of /, home or a system directory
# custom:
#   id: floor.rm-critical
#   justification: >-
#     Deleting the root, the home directory or a top-level system directory destroys the machine or
#     the user's data. Delete the specific build or cache directory inside the workspace instead.
floor contains {"id": "floor.rm-critical"} if {
	data.rivumi.tables.kinds.deletes[input.segment.program]
	some f in {"recursive", "no-preserve-root"}
	seg.has_flag(f)
	some o in input.segment.operands
	o.class in seg.critical_classes
}

floor contains {"id": "floor.rm-critical"} if {
	# tar --remove-files -c (-r, -u) deletes what it archived, trees and all.
	data.rivumi.tables.kinds.archives[input.segment.program]
	"remove-files" in input.segment.flags
	some f in {"create", "append", "update", "c", "r", "u"}
	f in input.segment.flags
	some o in input.segment.operands
	o.class in seg.critical_classes
}

floor contains {"id": "floor.rm-critical"} if {
	# rsync --delete SRC DEST empties DEST down to SRC's contents.
	input.segment.program == "rsync"
	some f in {"delete", "del", "delete-before", "delete-during", "delete-delay", "delete-after", "delete-excluded"}
	f in input.segment.flags
	some c in input.segment.write_classes
	c in seg.critical_classes
}

# METADATA
# title: find deleting from /, home or a system directory
# custom:
#   id: floor.find-delete-critical
#   justification: >-
#     find -delete (or -exec rm) from the root, home or a system directory wipes it.
#     Search from a directory inside the workspace instead.
floor contains {"id": "floor.find-delete-critical"} if {
	input.segment.program == "find"
	"delete" in input.segment.flags
	some o in input.segment.operands
	o.class in seg.critical_classes
	not find_narrowed
}

# A test that picks some files (find / -name '*.pyc' -delete) makes the delete
# a choice the user can approve, not a wipe; -o, !, -not and a pattern that
# picks every path (-name '*', -path '/*', -regex '/.*') pick everything again.
find_narrowed if {
	some f in {
		"name", "iname", "path", "ipath", "wholename", "iwholename", "regex", "iregex", "lname", "ilname",
		"newer", "newermt", "mtime", "mmin", "atime", "amin", "ctime", "cmin", "size", "user", "group",
		"uid", "gid", "perm", "inum", "samefile", "links", "used", "nouser", "nogroup",
	}
	f in input.segment.flags
	not find_widened
}

find_widened if {
	some f in {"o", "or", "not"}
	f in input.segment.flags
}

find_widened if {
	some a in input.segment.argv
	a in {"!", ","}
}

find_widened if {
	# A glob of only * ? . / with a * in it, after the start or not: -path '/*', -name '?*',
	# find /usr -path '/usr/*'.
	some i, a in input.segment.argv
	a in {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"}
	find_spans_all(input.segment.argv[i + 1], `^[*?./]*\*[*?./]*$`)
}

find_widened if {
	# A regex of only . * + / with a * or + in it: -regex '/.*', -iregex '.+'.
	some i, a in input.segment.argv
	a in {"-regex", "-iregex"}
	find_spans_all(input.segment.argv[i + 1], `^[.*+/]*[*+][.*+/]*$`)
}

# find_spans_all(p, wide): the pattern p picks every path below a critical start: only * and .
# (the empty pattern too), or wide, whole or after the start as written or normalised.
find_spans_all(p, _) if regex.match(`^[*.]*$`, p)

find_spans_all(p, wide) if regex.match(wide, p)

find_spans_all(p, wide) if {
	some o in input.segment.operands
	o.class in seg.critical_classes
	some start in {o.text, o.path}
	startswith(p, start)
	regex.match(wide, substring(p, count(start), -1))
}

# METADATA
# title: Moving or shredding /, home or a system directory
# custom:
#   id: floor.mv-critical
#   justification: >-
#     Moving away or shredding the root, home or a system directory breaks the machine.
#     Move the specific files you mean instead.
floor contains {"id": "floor.mv-critical"} if {
	data.rivumi.tables.kinds.shreds[input.segment.program]
	some o in input.segment.operands
	o.class in seg.critical_classes
}

floor contains {"id": "floor.mv-critical"} if {
	# What mv moves away: every operand but the destination (all of them
	# with -t). mv notes.txt ~ moves a file into home, which only asks.
	input.segment.program == "mv"
	some i, o in input.segment.operands
	o.class in seg.critical_classes
	mv_source(i)
}

mv_source(i) if i < count(input.segment.operands) - 1

mv_source(_) if "target-directory" in input.segment.flags

# METADATA
# title: Fork bomb
# custom:
#   id: floor.fork-bomb
#   justification: A function that calls itself in a pipeline or in the background exhausts the machine.
floor contains {"id": "floor.fork-bomb"} if {
	"fork-bomb" in input.segment.tags
}

# METADATA
# title: Writing onto a block device
# custom:
#   id: floor.device-write
#   justification: >-
#     Writing to a disk device (dd of=/dev/sda, > /dev/nvme0n1) destroys the file systems on it.
#     Write to an image file in the workspace instead.
floor contains {"id": "floor.device-write"} if {
	"device" in input.segment.write_classes
}

# METADATA
# title: Formatting or wiping a device
# custom:
#   id: floor.device-format
#   justification: >-
#     mkfs, wipefs, shred, cryptsetup, partitioning and LVM removal tools on a device destroy its data.
#     Use a loop image file you created in the workspace instead.
floor contains {"id": "floor.device-format"} if {
	data.rivumi.tables.kinds.formats_devices[input.segment.program]
	"device" in input.segment.read_classes
}

floor contains {"id": "floor.device-format"} if {
	# Destructive modes of disk tools whose other modes only read.
	destructive_disk_mode
	"device" in input.segment.read_classes
}

destructive_disk_mode if {
	input.segment.program == "badblocks"
	some f in {"w", "n"}
	f in input.segment.flags
}

destructive_disk_mode if {
	input.segment.program == "nvme"
	input.segment.subcommand in {"format", "sanitize", "write-zeroes", "delete-ns"}
}

destructive_disk_mode if {
	input.segment.program == "hdparm"
	some f in input.segment.flags
	startswith(f, "security-erase")
}

destructive_disk_mode if {
	input.segment.program == "hdparm"
	some f in {"trim-sector-ranges", "dco-restore", "make-bad-sector", "write-sector"}
	f in input.segment.flags
}

destructive_disk_mode if {
	input.segment.program == "zpool"
	input.segment.subcommand in {"create", "destroy", "labelclear", "add", "replace"}
}

# METADATA
# title: Repartitioning or encrypting a device
# custom:
#   id: floor.device-partition
#   justification: >-
#     fdisk, sfdisk, parted, sgdisk and cryptsetup luksFormat rewrite a disk's partition table or
#     header, losing its data. Listing (-l, print, sgdisk -p) is fine; do the rest by hand.
floor contains {"id": "floor.device-partition"} if {
	data.rivumi.tables.kinds.partitions[input.segment.program]
	"device" in input.segment.read_classes
	not partition_listing
}

floor contains {"id": "floor.device-partition"} if {
	# On a device; an image file (cryptsetup luksFormat vault.img) asks.
	input.segment.program == "cryptsetup"
	some o in input.segment.operands
	o.text in {"luksFormat", "erase", "luksErase", "reencrypt", "format", "luksKillSlot"}
	"device" in input.segment.read_classes
}

floor contains {"id": "floor.device-partition"} if {
	input.segment.program == "cryptsetup"
	some o in input.segment.operands
	o.text in {"luksFormat", "erase", "luksErase", "reencrypt", "format", "luksKillSlot"}
	some d in input.segment.operands
	d.class == "device"
}

partition_listing if {
	some f in {"l", "list", "d", "dump", "p", "print", "J", "json", "s", "show-size", "v", "version", "help", "V"}
	f in input.segment.flags
	input.segment.program != "parted"
	input.segment.program != "sgdisk"
}

partition_listing if {
	# sgdisk -d is --delete, -l --load-backup, -s --sort: it only reads when every option reads
	# (print, verify, info, print-mbr, list-types, the free-space queries, backup to a file).
	input.segment.program == "sgdisk"
	count(input.segment.flags) > 0
	every f in input.segment.flags {
		f in sgdisk_reads
	}
}

sgdisk_reads := {
	"p", "print", "v", "verify", "i", "info", "O", "print-mbr", "L", "list-types", "D", "display-alignment",
	"E", "end-of-largest", "F", "first-in-largest", "f", "first-aligned-in-largest", "b", "backup",
	"V", "version", "h", "help", "?",
}

partition_listing if {
	# parted DEV print [free|all|unit s …]: every word but the device reads.
	input.segment.program == "parted"
	some o in input.segment.operands
	o.text == "print"
	every op in input.segment.operands {
		parted_reads(op)
	}
}

parted_reads(op) if op.class == "device"

parted_reads(op) if op.text in {
	"print", "free", "all", "list", "devices", "unit", "s", "B", "kB", "MB", "MiB", "GB", "GiB",
	"TB", "TiB", "%", "cyl", "chs", "compact", "help", "version",
}

# METADATA
# title: Formatting a device with mkfs
# custom:
#   id: floor.mkfs
#   justification: >-
#     mkfs on a device creates a new file system, erasing whatever was on it. Never run it from an agent;
#     an image file in the workspace (mkfs.ext4 disk.img) only asks.
floor contains {"id": "floor.mkfs"} if {
	startswith(input.segment.program, "mkfs")
	"device" in input.segment.read_classes
}

floor contains {"id": "floor.mkfs"} if {
	startswith(input.segment.program, "mkfs")
	some o in input.segment.operands
	o.class == "device"
}

# METADATA
# title: Running code fetched from the network
# custom:
#   id: floor.fetch-run
#   justification: >-
#     Piping a download (or decoded data) into a shell or interpreter runs code nobody reviewed.
#     Download the script to a file, read it, then run it deliberately.
floor contains {"id": "floor.fetch-run"} if {
	"fetched-code" in input.segment.tags
}

# METADATA
# title: Running a file downloaded earlier in the same command
# custom:
#   id: floor.download-exec
#   justification: >-
#     Downloading a script and executing it in one command runs code nobody reviewed.
#     Download it, read it, then run it as a separate, reviewed step.
floor contains {"id": "floor.download-exec"} if {
	"runs-downloaded" in input.segment.tags
}

# METADATA
# title: Reverse shell
# custom:
#   id: floor.reverse-shell
#   justification: >-
#     nc -e/-c, socat exec:, /dev/tcp redirections and shells wired to a network pipe hand a shell to
#     another machine. There is no legitimate use in automation.
floor contains {"id": "floor.reverse-shell"} if {
	data.rivumi.tables.kinds.netcat[input.segment.program]
	some f in {"e", "c", "exec", "sh-exec", "lua-exec"}
	seg.has_flag(f)
}

floor contains {"id": "floor.reverse-shell"} if {
	input.segment.program == "socat"
	some o in input.segment.operands
	regex.match(`(?i)^(exec|system):`, o.text)
}

floor contains {"id": "floor.reverse-shell"} if {
	"net" in input.segment.write_classes
}

floor contains {"id": "floor.reverse-shell"} if {
	"net" in input.segment.read_classes
}

floor contains {"id": "floor.reverse-shell"} if {
	# A shell reading commands from the network: nc host | sh.
	data.rivumi.tables.programs.shells[input.segment.program]
	some p in input.segment.upstream
	data.rivumi.tables.kinds.socket_relay[p]
}

floor contains {"id": "floor.reverse-shell"} if {
	# A shell with no script of its own sending its output to the network
	# (sh -i 2>&1 | nc h 1 > /tmp/f): it reads its commands from elsewhere.
	# bash build.sh | nc logs 9000 only ships a script's output, and asks.
	data.rivumi.tables.programs.shells[input.segment.program]
	some p in input.segment.downstream
	data.rivumi.tables.kinds.socket_relay[p]
	shell_reads_commands
}

shell_reads_commands if "stdin-code" in input.segment.tags

shell_reads_commands if "interactive" in input.segment.tags

shell_reads_commands if "i" in input.segment.flags

shell_reads_commands if {
	# sh 0</tmp/fifo: no script, no -c: its input is its code
	count(input.segment.operands) == 0
	not "c" in input.segment.flags
}

floor contains {"id": "floor.reverse-shell"} if {
	"code-revshell" in input.segment.tags
}

# METADATA
# title: Writing system credential files
# custom:
#   id: floor.system-credentials
#   justification: >-
#     Changing /etc/passwd, /etc/shadow, /etc/group or sudoers takes over or locks out the machine.
#     Use the system's user management tools by hand, outside the agent.
floor contains {"id": "floor.system-credentials"} if {
	"credentials" in input.segment.write_classes
}

# METADATA
# title: Killing init or every process, or shutting down
# custom:
#   id: floor.kill-init
#   justification: >-
#     kill -9 1 / kill -9 -1, a pkill or killall pattern that could match init or every process,
#     shutdown, reboot, halt and poweroff take the machine down.
#     Stop the specific process you started, by its PID or an exact name, instead.
floor contains {"id": "floor.kill-init"} if {
	input.segment.program == "kill"
	some o in input.segment.operands
	regex.match(`^-?0*1$`, o.text) # 1, -1, and 0001 (kill reads it as 1)
}

floor contains {"id": "floor.kill-init"} if {
	input.segment.program == "killall5"
}

floor contains {"id": "floor.kill-init"} if {
	input.segment.program == "systemctl"
	not systemctl_shows_only
	some o in input.segment.operands
	regex.match(`^(poweroff|reboot|halt|kexec|emergency|rescue|soft-reboot)(\.target)?$`, o.text)
}

floor contains {"id": "floor.kill-init"} if {
	input.segment.program == "loginctl"
	input.segment.subcommand in {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"}
}

floor contains {"id": "floor.kill-init"} if {
	# logind's PowerOff/Reboot/Halt called over D-Bus.
	data.rivumi.tables.kinds.dbus[input.segment.program]
	some a in input.segment.argv
	regex.match(`(?i)(^|\.)(PowerOff|Reboot|Halt|KExec)$`, a)
}

floor contains {"id": "floor.kill-init"} if {
	data.rivumi.tables.kinds.power[input.segment.program]
	not shutdown_cancels_or_shows
}

floor contains {"id": "floor.kill-init"} if {
	input.segment.program == "init"
	some o in input.segment.operands
	o.text in {"0", "6"}
}

floor contains {"id": "floor.kill-init"} if {
	input.segment.program == "systemctl"
	input.segment.subcommand in {"poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "soft-reboot"}
}

floor contains {"id": "floor.kill-init"} if {
	# pkill's pattern or killall's name could select PID 1: pkill '^init$', pkill -f '^/sbin/init',
	# pkill . (every process), killall -r '^sys', killall /lib/systemd/systemd.
	data.rivumi.tables.kinds.kills_by_name[input.segment.program]
	some o in input.segment.operands
	kill.selects_init(o.text)
}

floor contains {"id": "floor.kill-init"} if {
	# systemctl kill init.scope signals PID 1 (SIGINT to systemd reboots), -.slice every process.
	input.segment.program == "systemctl"
	input.segment.subcommand == "kill"
	some o in input.segment.operands
	o.text in {"init.scope", "-.slice"}
}

floor contains {"id": "floor.kill-init"} if {
	# pkill -v node: every process but node's.
	data.rivumi.tables.kinds.kills_by_name[input.segment.program]
	"inverse" in input.segment.flags
}

floor contains {"id": "floor.kill-init"} if {
	# pkill -u root, killall -u root: no pattern, every process of the user.
	data.rivumi.tables.kinds.kills_by_name[input.segment.program]
	kill.every_process
}

# systemctl_shows_only: a subcommand that only shows a unit's state or
# definition (`systemctl status reboot.target` reboots nothing). Any other
# one, or one rivumi could not read, starts, isolates or enables it.
systemctl_shows_only if input.segment.subcommand in {
	"status", "show", "cat", "list-dependencies", "is-active", "is-enabled", "is-failed", "help",
}

# shutdown_cancels_or_shows: `shutdown -c` cancels a scheduled shutdown,
# `shutdown --show` shows it, `shutdown --help` prints help; with no other
# option (getopt reads them all, and the last action wins: `shutdown -c -r`
# reboots) and no word rivumi cannot read (it could be one).
shutdown_cancels_or_shows if {
	input.segment.program == "shutdown"
	seg.static_args
	some action in input.segment.flags
	action in {"c", "show", "help"}
	every f in input.segment.flags {
		f in {"c", "show", "help", "no-wall"}
	}
}

# METADATA
# title: Recursive permission change on /, home or a system directory
# custom:
#   id: floor.chmod-critical
#   justification: >-
#     chmod/chown -R on the root, home or a system directory breaks the system's security model.
#     Change the specific files inside the workspace instead.
floor contains {"id": "floor.chmod-critical"} if {
	data.rivumi.tables.kinds.permissions[input.segment.program]
	"recursive" in input.segment.flags
	some o in input.segment.operands
	o.class in seg.critical_classes
}

# METADATA
# title: Bash function injection through the environment
# custom:
#   id: floor.bash-func
#   justification: >-
#     BASH_FUNC_name%% variables define functions in every bash started below, replacing any command.
#     Define nothing through the environment.
floor contains {"id": "floor.bash-func"} if {
	"assigns" in input.segment.tags
	some a in input.segment.assigns
	startswith(a.name, "BASH_FUNC_")
}

# METADATA
# title: Code that destroys a critical path
# custom:
#   id: floor.code-critical
#   justification: >-
#     An interpreter one-liner deletes or overwrites /, home, a system directory or a credential file.
#     Delete the specific path inside the workspace instead.
floor contains {"id": "floor.code-critical"} if {
	"code-critical" in input.segment.tags
}
