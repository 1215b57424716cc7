# Floor: shapes that are never legitimate in automation. Deny; nothing lowers
# them (grants, user allow rules and switches cannot touch this layer).
package rivumi.rules

import data.rivumi.lib.segment as seg

# METADATA
# title: Recursive delete of /, home or a system directory
# custom:
#   id: floor.rm-critical
#   justification: >-
#     Deleting the root, the home directory or a top-level system directory destroys the machine or
#     the user's data. Delete the specific build or cache directory inside the workspace instead.
floor contains {"id": "floor.rm-critical"} if {
	input.segment.program in {"rm", "rmdir", "srm", "trash", "trash-put"}
	some f in {"recursive", "no-preserve-root"}
	seg.has_flag(f)
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
}

# METADATA
# title: Moving or shredding /, home or a system directory
# custom:
#   id: floor.mv-critical
#   justification: >-
#     Moving away or shredding the root, home or a system directory breaks the machine.
#     Move the specific files you mean instead.
floor contains {"id": "floor.mv-critical"} if {
	input.segment.program in {"mv", "shred", "wipe"}
	some o in input.segment.operands
	o.class in seg.critical_classes
}

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
	input.segment.program in {
		"wipefs", "shred", "blkdiscard", "mkswap", "mke2fs", "pvremove",
		"vgremove", "lvremove", "wipe", "newfs",
	}
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
#     header, losing its data. Listing (-l, print) is fine; do the rest by hand.
floor contains {"id": "floor.device-partition"} if {
	input.segment.program in {"fdisk", "sfdisk", "cfdisk", "parted", "sgdisk", "gdisk"}
	"device" in input.segment.read_classes
	not partition_listing
}

floor contains {"id": "floor.device-partition"} if {
	input.segment.program == "cryptsetup"
	some o in input.segment.operands
	o.text in {"luksFormat", "erase", "luksErase", "reencrypt", "format", "luksKillSlot"}
}

partition_listing if {
	some f in {"l", "list", "d", "dump", "p", "print", "J", "json", "s", "show-size", "v", "version", "help", "V"}
	f in input.segment.flags
	not input.segment.program == "parted"
}

partition_listing if {
	input.segment.program == "parted"
	some o in input.segment.operands
	o.text == "print"
	count(input.segment.operands) == 2
}

# METADATA
# title: Formatting with mkfs
# custom:
#   id: floor.mkfs
#   justification: mkfs creates a new file system, erasing whatever was on the target. Never run it from an agent.
floor contains {"id": "floor.mkfs"} if {
	startswith(input.segment.program, "mkfs")
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
	input.segment.program in {"nc", "ncat", "netcat", "nc.traditional", "nc.openbsd"}
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
	data.rivumi.tables.programs.shells[input.segment.program]
	some p in array.concat(input.segment.upstream, input.segment.downstream)
	p in {"nc", "ncat", "netcat", "telnet", "socat", "openssl"}
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
#     kill -9 1 / kill -9 -1, shutdown, reboot, halt and poweroff take the machine down.
#     Stop the specific process you started instead.
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
	some o in input.segment.operands
	regex.match(`^(poweroff|reboot|halt|kexec|emergency|rescue|soft-reboot)(\.target)?$`, o.text)
}

floor contains {"id": "floor.kill-init"} if {
	input.segment.program == "loginctl"
	input.segment.subcommand in {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"}
}

floor contains {"id": "floor.kill-init"} if {
	# logind's PowerOff/Reboot/Halt called over D-Bus.
	input.segment.program in {"busctl", "dbus-send", "gdbus", "qdbus"}
	some a in input.segment.argv
	regex.match(`(?i)(^|\.)(PowerOff|Reboot|Halt|KExec)$`, a)
}

floor contains {"id": "floor.kill-init"} if {
	input.segment.program in {"shutdown", "reboot", "halt", "poweroff", "telinit"}
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
	input.segment.program in {"killall", "pkill"}
	some o in input.segment.operands
	o.text in {"init", "systemd", "launchd"}
}

# METADATA
# title: Recursive permission change on /, home or a system directory
# custom:
#   id: floor.chmod-critical
#   justification: >-
#     chmod/chown -R on the root, home or a system directory breaks the system's security model.
#     Change the specific files inside the workspace instead.
floor contains {"id": "floor.chmod-critical"} if {
	input.segment.program in {"chmod", "chown", "chgrp", "chattr", "setfacl"}
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
