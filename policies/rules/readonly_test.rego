package rivumi.rules_test

import data.rivumi.lib.fixture as fx
import data.rivumi.rules

# allowed holds when the allow rule id covers the segment, with the real tables.
allowed(id, cmd) if {
	{"id": id} in rules.allow with input as cmd with data.rivumi.tables as fx.tables
}

# allow.readonly

test_readonly if {
	allowed("allow.readonly", fx.run(["ls", "-la"], {"flags": {"l", "a"}}))
	allowed("allow.readonly", fx.run(["cat", "f"], {
		"operands": [fx.path("f", "workspace")],
		"redirects": [fx.redirect(">", "out.txt", "workspace")],
		"writes": [fx.path("out.txt", "workspace")],
	}))
	allowed("allow.readonly", fx.run(["/usr/bin/ls"], {"program": "ls", "path_kind": "system"}))
	allowed("allow.readonly", fx.run(["ls"], {
		"wrappers": [fx.wrapper("timeout", ["5"])],
		"assigns": [fx.assign("LANG", "C")],
	}))
	allowed("allow.readonly", fx.run(["find", ".", "-name", "x"], {
		"flags": {"name"},
		"options": {"name": ["x"]},
		"operands": [fx.path(".", "workspace")],
	}))
}

test_readonly_needs if {
	# ssh-keygen -l prints a fingerprint; bare, it makes a key.
	allowed("allow.readonly", fx.run(["ssh-keygen", "-l", "-f", "k.pub"], {
		"flags": {"l", "f"},
		"operands": [fx.path("k.pub", "workspace")],
	}))
	not allowed("allow.readonly", fx.run(["ssh-keygen", "-f", "k"], {
		"flags": {"f"},
		"operands": [fx.path("k", "workspace")],
	}))
	not allowed("allow.readonly", fx.run(["ssh-keygen"], {}))

	# tar -t lists; tar -x extracts.
	allowed("allow.readonly", fx.run(["tar", "-tvf", "a.tar"], {"flags": {"list", "verbose", "file"}}))
	not allowed("allow.readonly", fx.run(["tar", "-xvf", "a.tar"], {"flags": {"extract", "verbose", "file"}}))
	not allowed("allow.readonly", fx.run(["tar", "-tf", "a.tar", "--to-command=sh"], {"flags": {"list", "file", "to-command"}}))
}

test_git_new_branch if {
	every cmd in [
		fx.run(["git", "switch", "-c", "topic"], {"subcommand": "switch", "flags": {"create"}, "options": {"create": ["topic"]}}),
		fx.run(["git", "checkout", "-b", "topic"], {"subcommand": "checkout", "flags": {"b"}, "options": {"b": ["topic"]}}),
	] {
		allowed("allow.git-local", cmd)
		not {"id": "git.hooks"} in rules.ask with input as cmd with data.rivumi.tables as fx.tables
	}

	# A start point, -f or a plain switch changes the work tree: hooks ask.
	every cmd in [
		fx.run(["git", "switch", "-c", "topic", "origin/main"], {
			"subcommand": "switch", "flags": {"create"}, "options": {"create": ["topic"]},
			"operands": [fx.path("origin/main", "workspace")],
		}),
		fx.run(["git", "checkout", "-f", "-b", "topic"], {"subcommand": "checkout", "flags": {"b", "force"}, "options": {"b": ["topic"]}}),
		fx.run(["git", "switch", "main"], {"subcommand": "switch", "operands": [fx.path("main", "workspace")]}),
	] {
		not allowed("allow.git-local", cmd)
		{"id": "git.hooks"} in rules.ask with input as cmd with data.rivumi.tables as fx.tables
	}
}

test_readonly_names_only if {
	# find listing names under a system directory or home: no contents.
	allowed("allow.readonly", fx.run(["find", "/usr/share", "-maxdepth", "2", "-name", "*.md"], {
		"flags": {"maxdepth", "name"},
		"operands": [fx.path("/usr/share", "system-top")],
		"reads": [fx.path("/usr/share", "system-top")],
	}))
	allowed("allow.readonly", fx.run(["find", "~", "-maxdepth", "1"], {
		"flags": {"maxdepth"},
		"operands": [fx.path("~", "home")],
		"reads": [fx.path("~", "home")],
	}))

	# A secret class stays a secret; -exec runs what reads contents.
	not allowed("allow.readonly", fx.run(["find", "~/.ssh"], {
		"operands": [fx.path("~/.ssh", "ssh")],
		"reads": [fx.path("~/.ssh", "ssh")],
	}))
	not allowed("allow.readonly", fx.run(["find", "/", "-exec", "cat", "{}", "+"], {
		"flags": {"exec"},
		"operands": [fx.path("/", "root")],
		"reads": [fx.path("/", "root")],
	}))
}

test_readonly_jq if {
	# A jq filter in the safe subset, reading a workspace file.
	allowed("allow.readonly", fx.run(["jq", "-r", ".name", "f.json"], {
		"flags": {"raw-output"},
		"operands": [fx.path("f.json", "workspace")],
		"code": [fx.code("jq", ".name", true)],
	}))

	# A filter outside the subset ($ENV, import …).
	not allowed("allow.readonly", fx.run(["jq", "-n", "$ENV"], {
		"flags": {"null-input"},
		"code": [fx.code("jq", "$ENV", false)],
		"tags": {"code-unsafe", "secret-env"},
	}))

	# Code in another language on a program that is not jq.
	not allowed("allow.readonly", fx.run(["cat", "f"], {
		"operands": [fx.path("f", "workspace")],
		"code": [fx.code("jq", ".", true)],
	}))

	# jq -L DIR: module search paths are outside the options allowed.
	not allowed("allow.readonly", fx.run(["jq", "-L", "/x", "."], {
		"flags": {"library-path"},
		"options": {"library-path": ["/x"]},
		"code": [fx.code("jq", ".", true)],
	}))

	# jq -f FILE: the filter is not known.
	not allowed("allow.readonly", fx.run(["jq", "-f", "x.jq", "f"], {
		"flags": {"from-file"},
		"options": {"from-file": ["x.jq"]},
		"code": [fx.code("jq", "-f x.jq", false)],
		"tags": {"script-file", "code-unsafe"},
	}))
}

test_readonly_dynamic_arguments if {
	# ls may take arguments known only at run time; sort may not.
	allowed("allow.readonly", fx.run(["ls", "$D"], {"dynamic": [false, true], "tags": {"dynamic-args"}}))
	not allowed("allow.readonly", fx.run(["sort", "$F"], {"dynamic": [false, true], "tags": {"dynamic-args"}}))
}

test_readonly_near_misses if {
	# Spelled as a path into the workspace.
	not allowed("allow.readonly", fx.run(["./ls"], {"program": "ls", "path_kind": "relative"}))

	# Wrapped by sudo, or by env carrying an assignment outside the allowlist.
	not allowed("allow.readonly", fx.run(["ls"], {"wrappers": [fx.wrapper("sudo", [])]}))
	not allowed("allow.readonly", fx.run(["ls"], {"assigns": [fx.assign("LD_PRELOAD", "x.so")]}))

	# An option not on the program's list (sort --compress-program runs a program).
	not allowed("allow.readonly", fx.run(["sort", "--compress-program=gzip", "f"], {
		"flags": {"compress-program"},
		"options": {"compress-program": ["gzip"]},
		"operands": [fx.path("f", "workspace")],
	}))

	# sort -o is on the list, but only for writes inside the workspace.
	allowed("allow.readonly", fx.run(["sort", "-o", "out", "f"], {
		"flags": {"output"},
		"options": {"output": ["out"]},
		"operands": [fx.path("f", "workspace")],
		"writes": [fx.path("out", "workspace")],
	}))
	not allowed("allow.readonly", fx.run(["sort", "-o", "/etc/x", "f"], {
		"flags": {"output"},
		"options": {"output": ["/etc/x"]},
		"operands": [fx.path("f", "workspace")],
		"writes": [fx.path("/etc/x", "system")],
	}))
	not allowed("allow.readonly", fx.run(["find", ".", "-delete"], {
		"flags": {"delete"},
		"operands": [fx.path(".", "workspace")],
	}))

	# Writes outside the workspace; reads a secret.
	not allowed("allow.readonly", fx.run(["cat", "f"], {
		"operands": [fx.path("f", "workspace")],
		"redirects": [fx.redirect(">", "/tmp/x", "tmp")],
		"writes": [fx.path("/tmp/x", "tmp")],
	}))
	not allowed("allow.readonly", fx.run(["cat", ".env"], {"operands": [fx.path(".env", "secret")]}))
	not allowed("allow.readonly", fx.run(["cat"], {"redirects": [fx.redirect("<", "~/.ssh/id_rsa", "ssh")]}))

	# Something unknowable about it.
	not allowed("allow.readonly", fx.run(["ls"], {"tags": {"changed-shell"}}))

	# Code in the segment.
	not allowed("allow.readonly", fx.run(["cat"], {"code": [fx.code("shell", "ls", true)]}))

	# Not on the list at all; git has its own rule.
	not allowed("allow.readonly", fx.run(["rm", "f"], {"operands": [fx.path("f", "workspace")]}))
	not allowed("allow.readonly", fx.run(["git", "status"], {"subcommand": "status"}))
}

# allow.git-readonly

test_git_readonly if {
	allowed("allow.git-readonly", git(["status"], "status", {}))
	allowed("allow.git-readonly", git(["log", "--oneline"], "log", {"flags": {"oneline"}}))
	allowed("allow.git-readonly", git(["-C", "sub", "status"], "status", {
		"options": {"global:C": ["sub"], "git-dir-class": ["workspace"]},
	}))
	allowed("allow.git-readonly", git(["--no-pager", "diff"], "diff", {"options": {"global:no-pager": [""]}}))
	allowed("allow.git-readonly", git(["stash", "list"], "stash", {"operands": [fx.path("list", "workspace")]}))
	allowed("allow.git-readonly", git(["status"], "status", {
		"redirects": [fx.redirect(">", "out", "workspace")],
		"writes": [fx.path("out", "workspace")],
	}))
}

test_git_readonly_near_misses if {
	# Not a read-only subcommand.
	not allowed("allow.git-readonly", git(["push"], "push", {}))

	# An option off the subcommand's list.
	not allowed("allow.git-readonly", git(["diff", "--ext-diff"], "diff", {"flags": {"ext-diff"}}))

	# Global options other than -C inside the workspace.
	not allowed("allow.git-readonly", git(["-C", "/tmp/x", "status"], "status", {
		"options": {"global:C": ["/tmp/x"], "git-dir-class": ["tmp"]},
	}))
	not allowed("allow.git-readonly", git(["-c", "http.proxy=x", "log"], "log", {
		"options": {"global:c": ["http.proxy=x"]},
	}))

	# A listing subcommand used to change something.
	not allowed("allow.git-readonly", git(["stash", "drop"], "stash", {"operands": [fx.path("drop", "workspace")]}))

	# Arguments known only at run time.
	not allowed("allow.git-readonly", git(["log", "$R"], "log", {
		"dynamic": [false, false, true],
		"tags": {"dynamic-args"},
	}))

	# Reads a secret; writes outside the workspace.
	not allowed("allow.git-readonly", git(["log", "-p", "--", ".env"], "log", {
		"flags": {"patch"},
		"operands": [fx.path(".env", "secret")],
	}))
	not allowed("allow.git-readonly", git(["status"], "status", {
		"redirects": [fx.redirect(">", "/tmp/s", "tmp")],
		"writes": [fx.path("/tmp/s", "tmp")],
	}))
}

# allow.version

test_version if {
	allowed("allow.version", fx.run(["python", "--version"], {"flags": {"version"}}))
	allowed("allow.version", fx.run(["rm", "--help"], {"flags": {"help"}}))
}

test_version_near_misses if {
	not allowed("allow.version", fx.run(["python", "--version", "x.py"], {"flags": {"version"}}))
	not allowed("allow.version", fx.run(["python", "-c", "--version"], {"flags": {"c"}}))
	not allowed("allow.version", fx.run(["./tool", "--version"], {"program": "tool", "path_kind": "relative"}))
	not allowed("allow.version", fx.run(["tool", "--version"], {"wrappers": [fx.wrapper("timeout", ["5"])]}))
	not allowed("allow.version", fx.run(["tool", "--help"], {
		"redirects": [fx.redirect(">", "help.txt", "workspace")],
		"writes": [fx.path("help.txt", "workspace")],
	}))
}

# allow.workspace-write

test_workspace_write if {
	allowed("allow.workspace-write", fx.run(["mkdir", "-p", "build"], {
		"flags": {"parents"},
		"operands": [fx.path("build", "workspace")],
		"writes": [fx.path("build", "workspace")],
	}))
	allowed("allow.workspace-write", fx.run(["cp", "a", "b"], {
		"operands": [fx.path("a", "workspace"), fx.path("b", "workspace")],
		"writes": [fx.path("b", "workspace")],
	}))
}

test_workspace_write_near_misses if {
	# Outside the workspace, or protected inside it.
	not allowed("allow.workspace-write", fx.run(["cp", "a", "/tmp/b"], {
		"operands": [fx.path("a", "workspace"), fx.path("/tmp/b", "tmp")],
		"writes": [fx.path("/tmp/b", "tmp")],
	}))
	not allowed("allow.workspace-write", fx.run(["touch", ".git/x"], {
		"operands": [fx.path(".git/x", "git")],
		"writes": [fx.path(".git/x", "git")],
	}))

	# Copying a secret.
	not allowed("allow.workspace-write", fx.run(["cp", ".env", "b"], {
		"operands": [fx.path(".env", "secret"), fx.path("b", "workspace")],
		"writes": [fx.path("b", "workspace")],
	}))

	# An option off the list; arguments known only at run time; nothing written.
	not allowed("allow.workspace-write", fx.run(["cp", "--remove-destination", "a", "b"], {
		"flags": {"remove-destination"},
		"writes": [fx.path("b", "workspace")],
	}))
	not allowed("allow.workspace-write", fx.run(["touch", "$F"], {
		"dynamic": [false, true],
		"tags": {"dynamic-args"},
		"writes": [{"text": "$F", "path": "", "class": "dynamic", "dynamic": true}],
	}))
	not allowed("allow.workspace-write", fx.run(["mkdir", "--help"], {"flags": {"help"}}))
}

# allow.text-script

test_text_script if {
	allowed("allow.text-script", fx.run(["sed", "-n", "p", "f"], {
		"flags": {"quiet"},
		"operands": [fx.path("f", "workspace")],
		"code": [fx.code("sed", "p", true)],
	}))
	allowed("allow.text-script", fx.run(["awk", "-F", ":", "{print $1}", "f"], {
		"flags": {"F"},
		"options": {"F": [":"]},
		"operands": [fx.path("f", "workspace")],
		"code": [fx.code("awk", "{print $1}", true)],
	}))
}

test_text_script_near_misses if {
	# A script outside the safe subset.
	not allowed("allow.text-script", fx.run(["awk", "{system(\"ls\")}", "f"], {
		"operands": [fx.path("f", "workspace")],
		"code": [fx.code("awk", "{system(\"ls\")}", false)],
		"tags": {"code-unsafe", "code-spawns"},
	}))

	# sed -i of a file outside the workspace, or of code a program loads.
	not allowed("allow.text-script", fx.run(["sed", "-i", "s/a/b/", "/tmp/f"], {
		"flags": {"in-place"},
		"operands": [fx.path("/tmp/f", "tmp")],
		"writes": [fx.path("/tmp/f", "tmp")],
		"code": [fx.code("sed", "s/a/b/", true)],
	}))
	not allowed("allow.text-script", fx.run(["sed", "-i", "s/a/b/", "Makefile"], {
		"flags": {"in-place"},
		"operands": [fx.path("Makefile", "project-code")],
		"writes": [fx.path("Makefile", "project-code")],
		"code": [fx.code("sed", "s/a/b/", true)],
	}))

	# --follow-symlinks writes where a link points: not on the list.
	not allowed("allow.text-script", fx.run(["sed", "-i", "--follow-symlinks", "s/a/b/", "f"], {
		"flags": {"in-place", "follow-symlinks"},
		"operands": [fx.path("f", "workspace")],
		"writes": [fx.path("f", "workspace")],
		"code": [fx.code("sed", "s/a/b/", true)],
	}))

	# A program file instead of an inline script.
	not allowed("allow.text-script", fx.run(["awk", "-f", "x.awk", "f"], {
		"flags": {"file"},
		"options": {"file": ["x.awk"]},
		"operands": [fx.path("f", "workspace")],
		"code": [fx.code("awk", "", false)],
		"tags": {"script-file", "code-unsafe"},
	}))

	# Reading a secret.
	not allowed("allow.text-script", fx.run(["awk", "{print}", ".env"], {
		"operands": [fx.path(".env", "secret")],
		"code": [fx.code("awk", "{print}", true)],
	}))

	# No script parsed at all.
	not allowed("allow.text-script", fx.run(["sed", "--version"], {"flags": {"version"}}))
}

test_git_readonly_needs_git if {
	# systemctl status shares a subcommand name with git status.
	not allowed("allow.git-readonly", fx.run(["systemctl", "status", "nginx"], {
		"subcommand": "status",
		"operands": [fx.path("nginx", "workspace")],
	}))
}

test_allow_rules_need_a_plain_program if {
	sudo := {"wrappers": [fx.wrapper("sudo", [])]}
	not allowed("allow.git-readonly", git(["status"], "status", sudo))
	not allowed("allow.git-readonly", fx.run(["./git", "status"], {
		"program": "git",
		"path_kind": "relative",
		"subcommand": "status",
	}))
	not allowed("allow.workspace-write", fx.run(["mkdir", "build"], object.union(sudo, {
		"operands": [fx.path("build", "workspace")],
		"writes": [fx.path("build", "workspace")],
	})))
	not allowed("allow.text-script", fx.run(["sed", "-n", "p", "f"], object.union(sudo, {
		"flags": {"quiet"},
		"operands": [fx.path("f", "workspace")],
		"code": [fx.code("sed", "p", true)],
	})))
}

test_git_readonly_carries_no_code if {
	not allowed("allow.git-readonly", git(["log"], "log", {"code": [fx.code("git-config", "core.pager=less", false)]}))
}

test_workspace_write_static_arguments if {
	# cp $SRC build/: the target is in the workspace, the source only known at run time.
	not allowed("allow.workspace-write", fx.run(["cp", "$SRC", "build/"], {
		"dynamic": [false, true, false],
		"operands": [{"text": "$SRC", "path": "", "class": "dynamic", "dynamic": true}, fx.path("build/", "workspace")],
		"writes": [fx.path("build/", "workspace")],
		"tags": {"dynamic-args"},
	}))
}

test_text_script_more_near_misses if {
	# Input only known at run time.
	not allowed("allow.text-script", fx.run(["sed", "-n", "p", "$F"], {
		"dynamic": [false, false, false, true],
		"flags": {"quiet"},
		"code": [fx.code("sed", "p", true)],
		"tags": {"dynamic-args"},
	}))

	# Output redirected outside the workspace.
	not allowed("allow.text-script", fx.run(["sed", "-n", "p", "f"], {
		"flags": {"quiet"},
		"operands": [fx.path("f", "workspace")],
		"code": [fx.code("sed", "p", true)],
		"redirects": [fx.redirect(">", "/tmp/out", "tmp")],
		"writes": [fx.path("/tmp/out", "tmp")],
	}))

	# No script at all.
	not allowed("allow.text-script", fx.run(["sed", "-n"], {"flags": {"quiet"}}))
}

# allow.assignment

test_assignment_allowed if {
	allowed("allow.assignment", fx.run(["x"], {"argv": [], "dynamic": [], "program": "", "path": "", "assigns": [fx.assign("x", "5")]}))
}

test_assignment_near_misses if {
	# A computed value, or a name that changes how commands resolve.
	not allowed("allow.assignment", fx.run(["x"], {
		"argv": [], "dynamic": [],
		"program": "", "path": "",
		"assigns": [{"name": "x", "value": "$(id)", "dynamic": true}],
	}))
	not allowed("allow.assignment", fx.run(["x"], {
		"argv": [], "dynamic": [],
		"program": "", "path": "",
		"assigns": [fx.assign("PATH", "/tmp")],
		"tags": {"changes-resolution"},
	}))
}

test_version_forms if {
	allowed("allow.version", fx.run(["node", "-v"], {"flags": {"v"}}))
	allowed("allow.version", fx.run(["go", "version"], {"subcommand": "version"}))
	not allowed("allow.version", fx.run(["node", "-v", "x.js"], {"flags": {"v"}}))
	not allowed("allow.version", fx.run(["go", "env", "-w", "GOFLAGS=x"], {"subcommand": "env", "flags": {"w"}}))
}

# allow.version: not for programs that load project code first (issue 12)

test_version_project_loaders if {
	every prog in ["pytest", "mvn", "cargo", "rustc", "rustup", "yarn"] {
		not allowed("allow.version", fx.run([prog, "--version"], {"program": prog, "flags": {"version"}}))
		not allowed("allow.version", fx.run([prog, "--help"], {"program": prog, "flags": {"help"}}))
	}
}

# allow.text-script: sed -i

test_text_script_sed_in_place if {
	allowed("allow.text-script", fx.run(["sed", "-i.bak", "s/a/b/", "f.py"], {
		"flags": {"in-place"},
		"options": {"in-place": [".bak"]},
		"operands": [fx.path("f.py", "workspace")],
		"writes": [fx.path("f.py", "workspace"), fx.path("f.py.bak", "workspace")],
		"code": [fx.code("sed", "s/a/b/", true)],
	}))
}

# allow.git-local

test_git_local if {
	allowed("allow.git-local", git(["add", "-A"], "add", {"flags": {"all"}}))
	allowed("allow.git-local", git(["add", "."], "add", {"operands": [fx.path(".", "workspace")]}))
	allowed("allow.git-local", git(["add", "CLAUDE.md"], "add", {"operands": [fx.path("CLAUDE.md", "instructions")]}))
	allowed("allow.git-local", git(["branch", "fix-x"], "branch", {"operands": [fx.path("fix-x", "workspace")]}))
	allowed("allow.git-local", git(["branch", "fix-x", "main"], "branch", {
		"operands": [fx.path("fix-x", "workspace"), fx.path("main", "workspace")],
	}))
}

test_git_local_near_misses if {
	# Interactive or forced adds; a secret; a path outside the repository.
	not allowed("allow.git-local", git(["add", "-p"], "add", {"flags": {"patch"}}))
	not allowed("allow.git-local", git(["add", "-f", "x"], "add", {"flags": {"force"}, "operands": [fx.path("x", "workspace")]}))
	not allowed("allow.git-local", git(["add", ".env"], "add", {"operands": [fx.path(".env", "secret")]}))
	not allowed("allow.git-local", git(["add", "/tmp/x"], "add", {"operands": [fx.path("/tmp/x", "tmp")]}))

	# Deleting, moving, forcing or copying branches; editing a description.
	every f in ["delete", "D", "move", "M", "force", "copy", "edit-description", "set-upstream-to"] {
		not allowed("allow.git-local", git(["branch", "x"], "branch", {"flags": {f}, "operands": [fx.path("x", "workspace")]}))
	}

	# Global options outside the workspace.
	not allowed("allow.git-local", git(["add", "-A"], "add", {
		"flags": {"all"},
		"options": {"global:C": ["/tmp/x"], "git-dir-class": ["tmp"]},
	}))
}

# allow.listed-readonly

listed(argv, over) := fx.run(argv, object.union(
	{
		"wrappers": [fx.wrapper("xargs", [])],
		"upstream": ["find"],
		"operands": [object.union(fx.path(".", "workspace"), {"dynamic": true})],
		"tags": {"appended-args", "listed-args"},
	},
	over,
))

test_listed_readonly if {
	allowed("allow.listed-readonly", listed(["grep", "-l", "x"], {"flags": {"files-with-matches"}}))
	allowed("allow.listed-readonly", listed(["wc", "-l"], {"flags": {"lines"}, "wrappers": [fx.wrapper("find", [])]}))
	allowed("allow.listed-readonly", listed(["cat"], {"wrappers": [fx.wrapper("xargs", []), fx.wrapper("timeout", [])]}))
}

test_listed_readonly_near_misses if {
	# Not from a listing; not a read-only program; an option off the list.
	not allowed("allow.listed-readonly", listed(["cat"], {"tags": {"appended-args"}}))
	not allowed("allow.listed-readonly", listed(["rm"], {}))
	not allowed("allow.listed-readonly", listed(["diff", "--ext-x"], {"flags": {"ext-x"}}))

	# Roots in home, secrets, outside writes.
	not allowed("allow.listed-readonly", listed(["cat"], {"operands": [fx.path("/home/u/.ssh", "ssh")]}))
	not allowed("allow.listed-readonly", listed(["cat"], {
		"redirects": [fx.redirect(">", "/tmp/x", "tmp")],
		"writes": [fx.path("/tmp/x", "tmp")],
	}))

	# Other unknowable facts; other wrappers; two hand-overs.
	not allowed("allow.listed-readonly", listed(["cat"], {"tags": {"appended-args", "listed-args", "changed-shell"}}))
	not allowed("allow.listed-readonly", listed(["cat"], {"wrappers": [fx.wrapper("xargs", []), fx.wrapper("sudo", [])]}))
	not allowed("allow.listed-readonly", listed(["cat"], {"wrappers": [fx.wrapper("xargs", []), fx.wrapper("xargs", [])]}))
	not allowed("allow.listed-readonly", listed(["cat"], {"path_kind": "relative"}))
	not allowed("allow.listed-readonly", listed(["git", "log"], {"subcommand": "log"}))
}

# allow.apply-patch: Codex's apply_patch heredoc writing workspace files only.
test_apply_patch_in_workspace if {
	allowed("allow.apply-patch", fx.run(["apply_patch"], {
		"stdin": "heredoc",
		"writes": [fx.path("src/app.py", "workspace")],
		"write_classes": {"workspace"},
		"tags": {"apply-patch", "writes", "redirect"},
	}))
	not allowed("allow.apply-patch", fx.run(["apply_patch"], {
		"stdin": "heredoc",
		"writes": [fx.path(".git/config", "git")],
		"write_classes": {"git"},
		"tags": {"apply-patch", "writes", "redirect"},
	}))
	not allowed("allow.apply-patch", fx.run(["apply_patch"], {"stdin": "heredoc", "tags": {"redirect"}}))
}
