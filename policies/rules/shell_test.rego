package rivumi.rules_test

import data.rivumi.lib.fixture as fx
import data.rivumi.rules

# Rules that hold exactly when the parser set one tag on the segment.
tag_rules := {
	"shell.dynamic-program": "dynamic-program",
	"shell.changed-shell": "changed-shell",
	"shell.changes-resolution": "changes-resolution",
	"shell.dynamic-code": "dynamic-code",
	"shell.stdin-code": "stdin-code",
	"shell.script-file": "script-file",
	"shell.interactive": "interactive",
	"shell.code-spawns": "code-spawns",
	"shell.code-unsafe": "code-unsafe",
	"shell.arith-dynamic": "arith-dynamic",
	"shell.appended-args": "appended-args",
	"shell.name-normalized": "name-normalized",
	"shell.remote": "remote",
	"shell.background": "background",
	"shell.suspect-critical": "code-suspect-critical",
	"shell.suspect-fetch-run": "code-suspect-fetch",
	"shell.suspect-reverse-shell": "code-suspect-revshell",
	"shell.suspect-floor-string": "code-suspect-floor",
}

test_tag_rules_fire if {
	every id, tag in tag_rules {
		{"id": id} in rules.ask with input as fx.run(["prog"], {"tags": {tag}})
	}
}

test_tag_rules_need_their_tag if {
	every id, tag in tag_rules {
		# Every other tag set, this one missing.
		not {"id": id} in rules.ask with input as fx.run(["prog"], {"tags": {t | some t in tag_rules} - {tag}})
	}
}

# The same rules on realistic facts.

test_dynamic_program if {
	{"id": "shell.dynamic-program"} in rules.ask with input as fx.run(["$X", "a"], {
		"program": "",
		"path_kind": "dynamic",
		"dynamic": [true, false],
		"tags": {"dynamic-program"},
	})
}

test_changed_shell_after_alias if {
	alias := fx.run(["alias", "ll=ls"], {"operands": [fx.path("ll=ls", "workspace")], "tags": {"changes-resolution"}})
	{"id": "shell.changes-resolution"} in rules.ask with input as alias
	not {"id": "shell.changed-shell"} in rules.ask with input as alias

	later := fx.run(["ll"], {"tags": {"changed-shell"}})
	{"id": "shell.changed-shell"} in rules.ask with input as later
	not {"id": "shell.changes-resolution"} in rules.ask with input as later
}

test_dynamic_code if {
	{"id": "shell.dynamic-code"} in rules.ask with input as fx.run(["eval", "$X"], {
		"dynamic": [false, true],
		"operands": [{"text": "$X", "path": "", "class": "dynamic", "dynamic": true}],
		"code": [{"lang": "shell", "text": "$X", "safe": false, "dynamic": true}],
		"tags": {"dynamic-args", "dynamic-code"},
	})
}

test_stdin_code if {
	{"id": "shell.stdin-code"} in rules.ask with input as fx.run(["sh"], {"upstream": ["cat"], "tags": {"stdin-code"}})
}

test_script_file if {
	{"id": "shell.script-file"} in rules.ask with input as fx.cmd("bash script.sh")
}

test_interactive if {
	{"id": "shell.interactive"} in rules.ask with input as fx.cmd("bash")
}

test_appended_args if {
	{"id": "shell.appended-args"} in rules.ask with input as fx.run(["rm"], {
		"wrappers": [fx.wrapper("xargs", [])],
		"upstream": ["ls"],
		"tags": {"appended-args"},
	})

	# Paths a listing printed are graded as the reads they are.
	not {"id": "shell.appended-args"} in rules.ask with input as fx.run(["grep", "-l", "x"], {
		"wrappers": [fx.wrapper("xargs", [])],
		"upstream": ["find"],
		"tags": {"appended-args", "listed-args"},
	})
}

test_name_normalized if {
	{"id": "shell.name-normalized"} in rules.ask with input as fx.cmd("LS.exe")
}

test_remote_and_background if {
	{"id": "shell.remote"} in rules.ask with input as fx.run(["ssh", "host", "ls"], {
		"operands": [fx.path("host", "workspace"), fx.path("ls", "workspace")],
		"tags": {"remote"},
	})
	{"id": "shell.background"} in rules.ask with input as fx.run(["sleep", "1"], {"tags": {"background"}})
}

# shell.inline

test_inline_shell_c if {
	every prog in ["sh", "bash", "zsh", "dash", "fish"] {
		{"id": "shell.inline"} in rules.ask with input as fx.run([prog, "-c", "ls"], {
			"flags": {"c"},
			"operands": [fx.path("ls", "workspace")],
		})
			with data.rivumi.tables as fx.tables
	}
}

test_inline_builtins if {
	every prog in ["eval", "source", ".", "trap", "alias", "watch", "su"] {
		{"id": "shell.inline"} in rules.ask with input as fx.run([prog, "x"], {"operands": [fx.path("x", "workspace")]})
			with data.rivumi.tables as fx.tables
	}
}

test_inline_near_misses if {
	# A shell running a file is shell.script-file, not inline.
	not {"id": "shell.inline"} in rules.ask with input as fx.cmd("bash x.sh")
		with data.rivumi.tables as fx.tables

	# -c for a program that is not a shell.
	not {"id": "shell.inline"} in rules.ask with input as fx.cmd("grep -c x")
		with data.rivumi.tables as fx.tables

	# Listing aliases and traps.
	not {"id": "shell.inline"} in rules.ask with input as fx.cmd("alias")
		with data.rivumi.tables as fx.tables
	not {"id": "shell.inline"} in rules.ask with input as fx.cmd("trap -p")
		with data.rivumi.tables as fx.tables
}

# shell.interpreter-code

test_interpreter_code if {
	{"id": "shell.interpreter-code"} in rules.ask with input as fx.cmd("python -c 'print(1)'")
}

test_interpreter_code_safe_script if {
	not {"id": "shell.interpreter-code"} in rules.ask with input as fx.cmd("awk '{print $1}' f")
}

# shell.code-spawns and shell.code-unsafe on an awk script.

test_code_spawns_and_unsafe if {
	cmd := fx.cmd("awk '{system(\"ls\")}' f")
	{"id": "shell.code-spawns"} in rules.ask with input as cmd
	{"id": "shell.code-unsafe"} in rules.ask with input as cmd
	{"id": "shell.interpreter-code"} in rules.ask with input as cmd
}

test_arith_dynamic if {
	{"id": "shell.arith-dynamic"} in rules.ask with input as fx.run(["echo", "$((y))"], {
		"dynamic": [false, true],
		"tags": {"arith-dynamic", "dynamic-args"},
	})
	not {"id": "shell.arith-dynamic"} in rules.ask with input as fx.run(["echo", "$X"], {
		"dynamic": [false, true],
		"tags": {"dynamic-args"},
	})
}

# shell.code-env

test_code_env if {
	names := [
		"BASH_ENV", "PAGER", "GIT_SSH_COMMAND", "GIT_EDITOR", "PATH", "NODE_OPTIONS",
		"LD_PRELOAD", "GH_PAGER", "KUBE_EDITOR", # by prefix or suffix
	]
	every name in names {
		{"id": "shell.code-env"} in rules.ask with input as fx.run(["ls"], {"assigns": [fx.assign(name, "x")]})
			with data.rivumi.tables as fx.tables
	}
}

test_code_env_harmless_assignments if {
	every name in ["LANG", "TZ", "NO_COLOR", "CI"] {
		not {"id": "shell.code-env"} in rules.ask with input as fx.run(["ls"], {"assigns": [fx.assign(name, "x")]})
			with data.rivumi.tables as fx.tables
	}
}

test_inline_builtins_need_an_argument if {
	every prog in ["eval", "source", "exec"] {
		not {"id": "shell.inline"} in rules.ask with input as fx.run([prog], {})
			with data.rivumi.tables as fx.tables
	}
}

# Heuristic evidence in interpreter code asks and never reaches the floor:
# os.chdir('/') then shutil.rmtree(tmpdir).
test_suspect_critical_asks_not_floor if {
	cmd := fx.run(["python3", "-c", "import os, shutil; os.chdir('/'); shutil.rmtree(tmpdir)"], {
		"code": [{"lang": "python", "text": "import os, shutil; os.chdir('/'); shutil.rmtree(tmpdir)"}],
		"tags": {"opaque-code", "runs-anything", "code-suspect-critical"},
	})
	{"id": "shell.suspect-critical"} in rules.ask with input as cmd
	count(rules.floor) == 0 with input as cmd
}

# importlib.reload(requests.models): network and dynamic names, no fetch run.
test_suspect_fetch_asks_not_floor if {
	cmd := fx.run(["python3", "-"], {
		"stdin": "heredoc",
		"tags": {"opaque-code", "runs-anything", "dynamic-code", "code-suspect-fetch"},
	})
	{"id": "shell.suspect-fetch-run"} in rules.ask with input as cmd
	count(rules.floor) == 0 with input as cmd
}
