package rivumi.rules_test

import data.rivumi.lib.fixture as fx
import data.rivumi.rules

# packages.install

test_packages_install if {
	every c in [["npm", "install"], ["pip", "install"], ["apt-get", "install"], ["cargo", "add"], ["go", "get"]] {
		{"id": "packages.install"} in rules.ask with input as fx.run(array.concat(c, ["x"]), {"subcommand": c[1]})
			with data.rivumi.tables as fx.tables
	}
}

test_packages_install_runners if {
	every prog in ["npx", "uvx", "pipx", "dpkg", "pacman"] {
		{"id": "packages.install"} in rules.ask with input as fx.run([prog, "x"], {})
			with data.rivumi.tables as fx.tables
	}
}

test_packages_install_listing if {
	not {"id": "packages.install"} in rules.ask with input as fx.cmd("npm ls")
		with data.rivumi.tables as fx.tables
	not {"id": "packages.install"} in rules.ask with input as fx.cmd("pip list")
		with data.rivumi.tables as fx.tables
}

# exec.workspace-code

test_workspace_code_any_use if {
	every prog in ["make", "pytest", "cmake", "tox"] {
		{"id": "exec.workspace-code"} in rules.ask with input as fx.run([prog], {})
			with data.rivumi.tables as fx.tables
	}
}

test_workspace_code_subcommands if {
	every c in [["go", "test"], ["npm", "run"], ["cargo", "build"], ["uv", "run"]] {
		{"id": "exec.workspace-code"} in rules.ask with input as fx.run(c, {"subcommand": c[1]})
			with data.rivumi.tables as fx.tables
	}
}

test_workspace_code_near_misses if {
	not {"id": "exec.workspace-code"} in rules.ask with input as fx.cmd("go version")
		with data.rivumi.tables as fx.tables
	not {"id": "exec.workspace-code"} in rules.ask with input as fx.cmd("npm view x")
		with data.rivumi.tables as fx.tables

	# python's entry lists no subcommand: its scripts are judged by the shell rules.
	not {"id": "exec.workspace-code"} in rules.ask with input as fx.cmd("python x.py")
		with data.rivumi.tables as fx.tables
}

# exec.local-program

test_local_program if {
	{"id": "exec.local-program"} in rules.ask with input as fx.cmd("./build.sh")
	{"id": "exec.local-program"} in rules.ask with input as fx.cmd("/opt/tool/bin/x")
}

test_local_program_near_misses if {
	not {"id": "exec.local-program"} in rules.ask with input as fx.cmd("ls")
	not {"id": "exec.local-program"} in rules.ask with input as fx.cmd("/usr/bin/ls")
}

# privilege.escalation

test_privilege_wrapper if {
	every w in ["sudo", "doas", "su", "chroot"] {
		{"id": "privilege.escalation"} in rules.ask with input as fx.run(["ls"], {"wrappers": [fx.wrapper(w, [])]})
			with data.rivumi.tables as fx.tables
	}
}

test_privilege_program if {
	every prog in ["sudo", "su", "passwd", "visudo", "usermod", "setcap"] {
		{"id": "privilege.escalation"} in rules.ask with input as fx.run([prog], {})
			with data.rivumi.tables as fx.tables
	}
}

test_privilege_harmless_wrapper if {
	not {"id": "privilege.escalation"} in rules.ask with input as fx.cmd("ls")
		with data.rivumi.tables as fx.tables
}

# ops.destroy

test_ops_destroy if {
	{"id": "ops.destroy"} in rules.ask with input as fx.cmd("kubectl delete pod x")
		with data.rivumi.tables as fx.tables
	{"id": "ops.destroy"} in rules.ask with input as fx.cmd("terraform destroy")
		with data.rivumi.tables as fx.tables
	{"id": "ops.destroy"} in rules.ask with input as fx.cmd("aws s3 rm --recursive s3://b")
		with data.rivumi.tables as fx.tables
}

test_ops_destroy_sql if {
	{"id": "ops.destroy"} in rules.ask with input as fx.cmd("psql -c 'DROP TABLE users'")
		with data.rivumi.tables as fx.tables
	{"id": "ops.destroy"} in rules.ask with input as fx.cmd("redis-cli FLUSHALL")
		with data.rivumi.tables as fx.tables
}

test_ops_destroy_near_misses if {
	not {"id": "ops.destroy"} in rules.ask with input as fx.cmd("kubectl get pods")
		with data.rivumi.tables as fx.tables
	not {"id": "ops.destroy"} in rules.ask with input as fx.cmd("psql -c 'SELECT 1'")
		with data.rivumi.tables as fx.tables

	# A destructive word for a program that is not an ops tool.
	not {"id": "ops.destroy"} in rules.ask with input as fx.cmd("echo delete")
		with data.rivumi.tables as fx.tables
}

# ops.system

test_ops_system if {
	every prog in ["systemctl", "crontab", "mount", "iptables", "sysctl"] {
		{"id": "ops.system"} in rules.ask with input as fx.run([prog, "x"], {})
			with data.rivumi.tables as fx.tables
	}
}

test_ops_system_near_miss if {
	not {"id": "ops.system"} in rules.ask with input as fx.cmd("uptime")
		with data.rivumi.tables as fx.tables
}

# ops.kill

test_ops_kill if {
	every prog in ["kill", "pkill", "killall", "xkill"] {
		kill := fx.run([prog, "1234"], {"operands": [fx.path("1234", "workspace")]})
		{"id": "ops.kill"} in rules.ask with input as kill
			with data.rivumi.tables as fx.tables
	}
}

test_ops_kill_near_miss if {
	not {"id": "ops.kill"} in rules.ask with input as fx.cmd("ps aux")
		with data.rivumi.tables as fx.tables
}

test_ops_destroy_sql_words_elsewhere if {
	not {"id": "ops.destroy"} in rules.ask with input as fx.cmd("grep -i 'drop table' schema.sql")
		with data.rivumi.tables as fx.tables
}

# ops.kill-pattern

test_ops_kill_pattern if {
	every p in ["system\\d", "[[=i=]]nit", "*init"] {
		{"id": "ops.kill-pattern"} in rules.ask with input as fx.run(["pkill", p], {
			"operands": [fx.path(p, "workspace")],
		})
			with data.rivumi.tables as fx.tables
	}
	{"id": "ops.kill-pattern"} in rules.ask with input as fx.run(["killall", "$X"], {
		"operands": [fx.path("$X", "dynamic")],
	})
		with data.rivumi.tables as fx.tables
	{"id": "ops.kill-pattern"} in rules.ask with input as fx.run(["pkill"], {"tags": {"appended-args"}})
		with data.rivumi.tables as fx.tables
	{"id": "ops.kill-pattern"} in rules.ask with input as fx.run(["pkill", "-F", "x.pid"], {"flags": {"pidfile"}})
		with data.rivumi.tables as fx.tables
}

test_ops_kill_pattern_near_misses if {
	not {"id": "ops.kill-pattern"} in rules.ask with input as fx.run(["pkill", "node"], {
		"operands": [fx.path("node", "workspace")],
	})
		with data.rivumi.tables as fx.tables
	not {"id": "ops.kill-pattern"} in rules.ask with input as fx.run(["killall", "a\\d"], {
		"operands": [fx.path("a\\d", "workspace")],
	})
		with data.rivumi.tables as fx.tables
}
