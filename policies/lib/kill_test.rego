package rivumi.lib.kill_test

import data.rivumi.lib.fixture as fx
import data.rivumi.lib.kill

pkill(flags, pattern) := fx.run(["pkill", pattern], {"flags": flags, "operands": [fx.path(pattern, "workspace")]})

killall(flags, name) := fx.run(["killall", name], {"flags": flags, "operands": [fx.path(name, "workspace")]})

# selects_init

test_selects_init_pattern if {
	every p in ["init", "^init$", "syst.md", "nit", ".", "", "INIT", "launch"] {
		kill.selects_init(p) with input as pkill(set(), p)
	}
	kill.selects_init("system[d]") with input as pkill({"exact"}, "system[d]")
	kill.selects_init("^/sbin/init") with input as pkill({"full"}, "^/sbin/init")
	kill.selects_init("systemd --system") with input as pkill({"full"}, "systemd --system")
	kill.selects_init("^sys") with input as killall({"regexp"}, "^sys")
}

test_selects_init_near_misses if {
	every p in ["node", "sh", "system\\d", "^nit"] {
		not kill.selects_init(p) with input as pkill(set(), p)
	}
	not kill.selects_init("nit") with input as pkill({"exact"}, "nit")
	not kill.selects_init("^/sbin/init") with input as pkill(set(), "^/sbin/init")
	not kill.selects_init("vite") with input as pkill({"full"}, "vite")
}

test_selects_init_names if {
	every n in ["init", "SYSTEMD", "/sbin/init", "/lib/systemd/systemd"] {
		kill.selects_init(n) with input as killall(set(), n)
	}
	every n in ["nit", ".", "node"] {
		not kill.selects_init(n) with input as killall(set(), n)
	}
}

# unreadable

test_unreadable_operand if {
	kill.unreadable(fx.path("$X", "dynamic")) with input as killall(set(), "$X")
	kill.unreadable(fx.path("a\\w", "workspace")) with input as pkill(set(), "a\\w")
	not kill.unreadable(fx.path("a\\w", "workspace")) with input as killall(set(), "a\\w")
	not kill.unreadable(fx.path("node", "workspace")) with input as pkill(set(), "node")
}

# every_process

test_every_process if {
	kill.every_process with input as fx.run(["pkill", "-u", "root"], {"flags": {"euid"}})
	not kill.every_process with input as fx.run(["killall", "-l"], {"flags": {"list"}})
	not kill.every_process with input as fx.run(["pkill", "-F", "x.pid"], {"flags": {"pidfile"}})
	not kill.every_process with input as pkill(set(), "node")
}

# unknown

test_unknown if {
	kill.unknown with input as fx.run(["pkill"], {"tags": {"appended-args"}})
	kill.unknown with input as fx.run(["pkill", "$X"], {"tags": {"dynamic-args"}})
	not kill.unknown with input as pkill(set(), "node")
}

test_anchored if {
	kill.selects_init("^SYS") with input as killall({"regexp", "exact"}, "^SYS")
	not kill.selects_init("^SYS") with input as pkill({"exact"}, "^SYS")
}

test_stdin_only if {
	kill.stdin_only with input as fx.run(["pkill", "-9"], {"tags": {"appended-args"}, "flags": {"signal"}})
	not kill.stdin_only with input as fx.run(["pkill", "-u", "root"], {"tags": {"appended-args"}, "flags": {"euid"}})
	not kill.every_process with input as fx.run(["pkill"], {"tags": {"appended-args"}})
	kill.every_process with input as fx.run(["pkill", "-u", "root"], {"tags": {"appended-args"}, "flags": {"euid"}})
}

test_patterns_bsd_killall if {
	kill.selects_init("^sys") with input as killall({"m"}, "^sys")
	not kill.selects_init("^sys") with input as killall(set(), "^sys")
}
