package rivumi.rules_test

import data.rivumi.lib.fixture as fx
import data.rivumi.rules

# git builds the input for `git <argv…>` with subcommand sub.
git(argv, sub, over) := fx.run(array.concat(["git"], argv), object.union({"subcommand": sub}, over))

# git.force-push

test_force_push if {
	{"id": "git.force-push"} in rules.deny with input as git(["push", "--force", "origin", "main"], "push", {
		"flags": {"force"},
		"operands": [fx.path("origin", "workspace"), fx.path("main", "workspace")],
	})
}

test_force_push_near_misses if {
	# --force-with-lease is asked about, not denied.
	lease := git(["push", "--force-with-lease"], "push", {"flags": {"force-with-lease"}})
	not {"id": "git.force-push"} in rules.deny with input as lease
	{"id": "git.push-destructive"} in rules.ask with input as lease

	not {"id": "git.force-push"} in rules.deny with input as git(["push"], "push", {})

	# --force on another subcommand.
	not {"id": "git.force-push"} in rules.deny with input as git(["fetch", "--force"], "fetch", {"flags": {"force"}})
}

# git.push-destructive

test_push_destructive if {
	every f in ["delete", "mirror", "force-with-lease", "force-if-includes", "prune"] {
		{"id": "git.push-destructive"} in rules.ask with input as git(["push", "--x"], "push", {"flags": {f}})
	}
}

test_push_destructive_plain_push if {
	cmd := git(["push", "-u", "origin", "topic"], "push", {
		"flags": {"set-upstream"},
		"operands": [fx.path("origin", "workspace"), fx.path("topic", "workspace")],
	})
	not {"id": "git.push-destructive"} in rules.ask with input as cmd
	{"id": "git.hooks"} in rules.ask with input as cmd
}

# git.discard

test_discard_reset_hard if {
	every f in ["hard", "merge", "keep"] {
		{"id": "git.discard"} in rules.ask with input as git(["reset", "--x"], "reset", {"flags": {f}})
	}
}

test_discard_clean if {
	{"id": "git.discard"} in rules.ask with input as git(["clean", "-fdx"], "clean", {"flags": {"force", "d", "x"}})
}

test_discard_checkout_paths if {
	# git checkout -- f
	{"id": "git.discard"} in rules.ask with input as git(["checkout", "--", "f"], "checkout", {
		"operands": [fx.path("f", "workspace")],
	})

	# git checkout main f
	{"id": "git.discard"} in rules.ask with input as git(["checkout", "main", "f"], "checkout", {
		"operands": [fx.path("main", "workspace"), fx.path("f", "workspace")],
	})

	# git checkout --force main
	{"id": "git.discard"} in rules.ask with input as git(["checkout", "--force", "main"], "checkout", {
		"flags": {"force"},
		"operands": [fx.path("main", "workspace")],
	})
}

test_discard_restore_switch_stash_worktree if {
	{"id": "git.discard"} in rules.ask with input as git(["restore", "f"], "restore", {
		"operands": [fx.path("f", "workspace")],
	})
	{"id": "git.discard"} in rules.ask with input as git(["switch", "--discard-changes", "main"], "switch", {
		"flags": {"discard-changes"},
		"operands": [fx.path("main", "workspace")],
	})
	every op in ["drop", "clear", "pop"] {
		stash := git(["stash", op], "stash", {"operands": [fx.path(op, "workspace")]})
		{"id": "git.discard"} in rules.ask with input as stash
	}
	{"id": "git.discard"} in rules.ask with input as git(["worktree", "remove", "wt"], "worktree", {
		"operands": [fx.path("remove", "workspace"), fx.path("wt", "workspace")],
	})
}

test_discard_near_misses if {
	not {"id": "git.discard"} in rules.ask with input as git(["reset", "--soft", "HEAD~1"], "reset", {
		"flags": {"soft"},
		"operands": [fx.path("HEAD~1", "workspace")],
	})
	not {"id": "git.discard"} in rules.ask with input as git(["clean", "-n"], "clean", {"flags": {"dry-run"}})

	# Switching branches keeps local changes (git refuses to overwrite them).
	not {"id": "git.discard"} in rules.ask with input as git(["checkout", "main"], "checkout", {
		"operands": [fx.path("main", "workspace")],
	})
	not {"id": "git.discard"} in rules.ask with input as git(["stash", "list"], "stash", {
		"operands": [fx.path("list", "workspace")],
	})

	# Not git at all.
	not {"id": "git.discard"} in rules.ask with input as fx.cmd("restore")
}

# git.delete-ref

test_delete_ref if {
	every f in ["delete", "D", "force", "M", "move", "C"] {
		every sub in ["branch", "tag"] {
			{"id": "git.delete-ref"} in rules.ask with input as git([sub, "-x", "v1"], sub, {
				"flags": {f},
				"operands": [fx.path("v1", "workspace")],
			})
		}
	}
	{"id": "git.delete-ref"} in rules.ask with input as git(["update-ref", "-d", "refs/heads/x"], "update-ref", {
		"flags": {"d"},
		"operands": [fx.path("refs/heads/x", "workspace")],
	})
}

test_delete_ref_listing if {
	not {"id": "git.delete-ref"} in rules.ask with input as git(["branch", "-a"], "branch", {"flags": {"all"}})
	not {"id": "git.delete-ref"} in rules.ask with input as git(["update-ref", "refs/heads/x", "HEAD"], "update-ref", {
		"operands": [fx.path("refs/heads/x", "workspace"), fx.path("HEAD", "workspace")],
	})
}

# git.rewrite-history

test_rewrite_history if {
	every sub in ["filter-branch", "filter-repo", "rebase", "replace", "gc", "prune"] {
		{"id": "git.rewrite-history"} in rules.ask with input as git([sub], sub, {})
	}
	{"id": "git.rewrite-history"} in rules.ask with input as git(["reflog", "expire"], "reflog", {
		"operands": [fx.path("expire", "workspace")],
	})
	not {"id": "git.rewrite-history"} in rules.ask with input as git(["reflog"], "reflog", {})
	{"id": "git.rewrite-history"} in rules.ask with input as git(["commit", "--amend"], "commit", {"flags": {"amend"}})
}

test_rewrite_history_plain_commit if {
	cmd := git(["commit", "-m", "msg"], "commit", {"flags": {"message"}, "options": {"message": ["msg"]}})
	not {"id": "git.rewrite-history"} in rules.ask with input as cmd
	{"id": "git.hooks"} in rules.ask with input as cmd
}

# git.hooks

test_hooks if {
	every sub in ["commit", "merge", "push", "am", "pull", "cherry-pick", "checkout", "clone", "init"] {
		{"id": "git.hooks"} in rules.ask with input as git([sub], sub, {})
	}
}

test_hooks_read_only_subcommands if {
	every sub in ["status", "log", "diff", "show"] {
		not {"id": "git.hooks"} in rules.ask with input as git([sub], sub, {})
	}
}

# git.config-code

test_config_code if {
	{"id": "git.config-code"} in rules.deny with input as git(["-c", "core.pager=less", "log"], "log", {
		"options": {"global:c": ["core.pager=less"]},
		"code": [fx.code("git-config", "core.pager=less", false)],
	})
}

test_config_code_near_misses if {
	# Plain configuration through -c is asked about (git.global-options), not denied.
	cmd := git(["-c", "http.proxy=x", "log"], "log", {"options": {"global:c": ["http.proxy=x"]}})
	not {"id": "git.config-code"} in rules.deny with input as cmd
	{"id": "git.global-options"} in rules.ask with input as cmd

	# Settings of how output looks, identity and harmless pagers do not ask.
	every kv in ["user.name=x", "Color.UI=always", "core.pager=cat", "pager.log=false", "advice.detachedHead=false"] {
		not {"id": "git.global-options"} in rules.ask with input as git(["-c", kv, "log"], "log", {
			"options": {"global:c": [kv]},
		})
	}
	not {"id": "git.global-options"} in rules.ask with input as git(["-c", "a", "-c", "b", "log"], "log", {
		"options": {"global:c": ["core.quotepath=off", "color.ui=never"]},
	})
	{"id": "git.global-options"} in rules.ask with input as git(["-c", "a", "-c", "b", "log"], "log", {
		"options": {"global:c": ["color.ui=never", "include.path=/tmp/x"]},
	})

	# Code of another language on git's segment.
	not {"id": "git.config-code"} in rules.deny with input as git(["rebase", "-x", "make"], "rebase", {
		"code": [fx.code("shell", "make", true)],
	})
}

# git.global-options

test_global_options if {
	every k in ["global:c", "global:git-dir", "global:work-tree", "global:exec-path", "global:config-env"] {
		{"id": "git.global-options"} in rules.ask with input as git(["--x", "log"], "log", {"options": {k: ["v"]}})
	}
}

test_global_options_c_outside_workspace if {
	{"id": "git.global-options"} in rules.ask with input as git(["-C", "/tmp/x", "status"], "status", {
		"options": {"global:C": ["/tmp/x"], "git-dir-class": ["tmp"]},
	})
}

test_global_options_near_misses if {
	not {"id": "git.global-options"} in rules.ask with input as git(["-C", "sub", "status"], "status", {
		"options": {"global:C": ["sub"], "git-dir-class": ["workspace"]},
	})
	not {"id": "git.global-options"} in rules.ask with input as git(["--no-pager", "log"], "log", {
		"options": {"global:no-pager": [""]},
	})

	# Subcommand options are not global ones.
	not {"id": "git.global-options"} in rules.ask with input as git(["log", "-n", "3"], "log", {
		"flags": {"max-count"},
		"options": {"max-count": ["3"]},
	})
}

# git.config-env

test_config_env if {
	every name in ["GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL"] {
		{"id": "git.config-env"} in rules.deny with input as git(["log"], "log", {"assigns": [fx.assign(name, "1")]})
	}
}

test_config_env_other_git_variables if {
	not {"id": "git.config-env"} in rules.deny with input as git(["log"], "log", {
		"assigns": [fx.assign("GIT_PAGER_IN_USE", "1")],
	})
}

# git.config-write

test_config_write if {
	{"id": "git.config-write"} in rules.ask with input as git(["config", "user.name", "x"], "config", {
		"operands": [fx.path("user.name", "workspace"), fx.path("x", "workspace")],
	})
	{"id": "git.config-write"} in rules.ask with input as git(["config", "--edit"], "config", {"flags": {"edit"}})
}

test_config_write_reads if {
	not {"id": "git.config-write"} in rules.ask with input as git(["config", "user.name"], "config", {
		"operands": [fx.path("user.name", "workspace")],
	})
	not {"id": "git.config-write"} in rules.ask with input as git(["config", "--list"], "config", {"flags": {"list"}})
	not {"id": "git.config-write"} in rules.ask with input as git(["config", "--get-regexp", "^remote"], "config", {
		"flags": {"get-regexp"},
		"operands": [fx.path("^remote", "workspace")],
	})
}

# The git rules judge git only: the same facts on Mercurial raise none of them.
test_git_rules_need_git if {
	cases := [
		["push", {"flags": {"force"}}],
		["push", {"flags": {"delete"}}],
		["reset", {"flags": {"hard"}}],
		["branch", {"flags": {"D"}}],
		["update-ref", {"flags": {"d"}}],
		["rebase", {}],
		["commit", {"flags": {"amend"}}],
		["config", {"operands": [fx.path("ui.username", "workspace"), fx.path("x", "workspace")]}],
		["log", {"options": {"global:c": ["x=y"]}, "code": [fx.code("git-config", "x=y", false)]}],
	]
	every c in cases {
		hg := fx.run(["hg", c[0]], object.union({"subcommand": c[0]}, c[1]))
		count(git_ids(rules.deny) | git_ids(rules.ask)) == 0 with input as hg
	}
}

git_ids(hits) := {h.id | some h in hits; startswith(h.id, "git.")}

test_git_near_misses_on_other_subcommands if {
	# fetch --prune prunes remote-tracking refs locally: not a destructive push.
	fetch := git(["fetch", "--prune"], "fetch", {"flags": {"prune"}})
	not {"id": "git.push-destructive"} in rules.ask with input as fetch
	{"id": "git.hooks"} in rules.ask with input as fetch

	# log --merge and log -- path only read.
	not {"id": "git.discard"} in rules.ask with input as git(["log", "--merge"], "log", {"flags": {"merge"}})
	not {"id": "git.discard"} in rules.ask with input as git(["log", "main", "--", "f"], "log", {
		"operands": [fx.path("main", "workspace"), fx.path("f", "workspace")],
	})

	# Switching branches and listing worktrees keep everything.
	not {"id": "git.discard"} in rules.ask with input as git(["switch", "main"], "switch", {
		"operands": [fx.path("main", "workspace")],
	})
	not {"id": "git.discard"} in rules.ask with input as git(["worktree", "list"], "worktree", {
		"operands": [fx.path("list", "workspace")],
	})
}

# git.config-secret

test_config_secret if {
	{"id": "git.config-secret"} in rules.ask with input as git(["config", "--get-all", "user.password"], "config", {
		"flags": {"get-all"},
		"operands": [fx.path("user.password", "workspace")],
	})
	{"id": "git.config-secret"} in rules.ask with input as git(["config", "--get-regexp", "ExtraHeader"], "config", {
		"flags": {"get-regexp"},
		"operands": [fx.path("ExtraHeader", "workspace")],
	})
}

test_config_secret_lists if {
	{"id": "git.config-secret"} in rules.ask with input as git(["config", "-l"], "config", {"flags": {"list"}})
	{"id": "git.config-secret"} in rules.ask with input as git(["config", "list"], "config", {
		"operands": [fx.path("list", "workspace")],
	})
	{"id": "git.config-secret"} in rules.ask with input as git(["var", "-l"], "var", {"flags": {"l"}})
	every r in [".", "^http\\.", "user", "\\w+"] {
		{"id": "git.config-secret"} in rules.ask with input as git(["config", "--get-regexp", r], "config", {
			"flags": {"get-regexp"},
			"operands": [fx.path(r, "workspace")],
		})
	}
	{"id": "git.config-secret"} in rules.ask with input as git(["config", "get", "--regexp", "."], "config", {
		"flags": {"regexp"},
		"operands": [fx.path("get", "workspace"), fx.path(".", "workspace")],
	})
	{"id": "git.config-secret"} in rules.ask with input as git(["config", "--get-urlmatch", "http", "https://x"], "config", {
		"flags": {"get-urlmatch"},
		"operands": [fx.path("http", "workspace"), fx.path("https://x", "workspace")],
	})
	{"id": "git.config-secret"} in rules.ask with input as git(["config", "get", "--url=https://x", "http"], "config", {
		"flags": {"url"},
		"operands": [fx.path("get", "workspace"), fx.path("http", "workspace")],
	})
}

test_config_secret_lists_near_misses if {
	every r in ["alias", "^remote\\.", "^user\\.(name|email)$"] {
		not {"id": "git.config-secret"} in rules.ask with input as git(["config", "--get-regexp", r], "config", {
			"flags": {"get-regexp"},
			"operands": [fx.path(r, "workspace")],
		})
	}
	not {"id": "git.config-secret"} in rules.ask with input as git(["var", "GIT_EDITOR"], "var", {
		"operands": [fx.path("GIT_EDITOR", "workspace")],
	})
	not {"id": "git.config-secret"} in rules.ask with input as git(["log", "-l"], "log", {"flags": {"list"}})
}

test_config_secret_near_misses if {
	not {"id": "git.config-secret"} in rules.ask with input as git(["config", "--get", "user.name"], "config", {
		"flags": {"get"},
		"operands": [fx.path("user.name", "workspace")],
	})

	# Another subcommand naming a token is not a config read.
	not {"id": "git.config-secret"} in rules.ask with input as git(["log", "token"], "log", {
		"operands": [fx.path("token", "workspace")],
	})
}
