# Git: history rewriting, discarding work, code through configuration.
package rivumi.rules

import data.rivumi.lib.ere
import data.rivumi.lib.segment as seg

# METADATA
# title: Force push
# custom:
#   id: git.force-push
#   justification: >-
#     A force push overwrites the remote branch and can destroy other people's work.
#     Use --force-with-lease on your own branch, or open a pull request.
deny contains {"id": "git.force-push"} if {
	input.segment.program == "git"
	input.segment.subcommand == "push"
	"force" in input.segment.flags
}

# METADATA
# title: Push that deletes or mirrors remote refs, or force-with-lease
# custom:
#   id: git.push-destructive
#   grantable: true
#   justification: Deleting remote branches or mirroring rewrites what others fetch; confirm it first.
ask contains {"id": "git.push-destructive"} if {
	input.segment.program == "git"
	input.segment.subcommand == "push"
	some f in {"delete", "mirror", "force-with-lease", "force-if-includes", "prune"}
	seg.has_flag(f)
}

# METADATA
# title: Discarding uncommitted work
# custom:
#   id: git.discard
#   grantable: true
#   justification: >-
#     reset --hard, clean -f, checkout/restore of files and switch --discard-changes throw away
#     uncommitted work that cannot be recovered. Commit or stash first.
ask contains {"id": "git.discard"} if {
	input.segment.program == "git"
	discards
}

discards if {
	input.segment.subcommand == "reset"
	some f in {"hard", "merge", "keep"}
	seg.has_flag(f)
}

discards if {
	input.segment.subcommand == "clean"
	not "dry-run" in input.segment.flags
}

discards if {
	input.segment.subcommand == "checkout"
	some f in {"force", "--", "ours", "theirs", "patch"}
	seg.has_flag(f)
}

discards if {
	input.segment.subcommand == "checkout"
	count(input.segment.operands) > 0
	"--" in input.segment.argv
}

discards if {
	input.segment.subcommand == "checkout"
	count(input.segment.operands) > 1
}

discards if {
	input.segment.subcommand == "restore"
}

discards if {
	input.segment.subcommand == "switch"
	some f in {"discard-changes", "force", "force-create"}
	seg.has_flag(f)
}

discards if {
	input.segment.subcommand == "stash"
	some o in input.segment.operands
	o.text in {"drop", "clear", "pop"}
}

discards if {
	input.segment.subcommand == "worktree"
	some o in input.segment.operands
	o.text in {"remove", "prune"}
}

# METADATA
# title: Deleting branches or tags
# custom:
#   id: git.delete-ref
#   grantable: true
#   justification: Deleting a branch or tag (branch -D, tag -d, update-ref -d) can lose unmerged commits.
ask contains {"id": "git.delete-ref"} if {
	input.segment.program == "git"
	input.segment.subcommand in {"branch", "tag"}
	some f in {"delete", "D", "force", "M", "move", "C"}
	seg.has_flag(f)
}

ask contains {"id": "git.delete-ref"} if {
	input.segment.program == "git"
	input.segment.subcommand == "update-ref"
	"d" in input.segment.flags
}

# METADATA
# title: Rewriting history
# custom:
#   id: git.rewrite-history
#   grantable: true
#   justification: >-
#     filter-branch, filter-repo, rebase, commit --amend, reflog expire and gc --prune rewrite or
#     drop history. Confirm it is your own unpublished work.
ask contains {"id": "git.rewrite-history"} if {
	input.segment.program == "git"
	input.segment.subcommand in {"filter-branch", "filter-repo", "rebase", "replace", "gc", "prune"}
}

ask contains {"id": "git.rewrite-history"} if {
	input.segment.program == "git"
	input.segment.subcommand == "reflog"
	some o in input.segment.operands
	o.text in {"expire", "delete"}
}

ask contains {"id": "git.rewrite-history"} if {
	input.segment.program == "git"
	input.segment.subcommand == "commit"
	"amend" in input.segment.flags
}

# METADATA
# title: Running repository hooks
# custom:
#   id: git.hooks
#   grantable: true
#   justification: >-
#     commit, merge, push, am and similar run the repository's hooks, which are code from the workspace.
#     (A new branch at HEAD, git switch -c NAME, runs only post-checkout from .git/hooks, which nothing
#     may write, as git branch NAME runs reference-transaction.)
ask contains {"id": "git.hooks"} if {
	input.segment.program == "git"
	input.segment.subcommand in {
		"commit", "merge", "push", "am", "pull", "cherry-pick", "revert", "checkout", "switch",
		"clone", "fetch", "submodule", "bisect", "apply", "init",
	}
	not git_new_branch
}

# METADATA
# title: Code through git configuration
# custom:
#   id: git.config-code
#   scope: shape
#   justification: >-
#     Configuration keys such as core.pager, core.fsmonitor, core.sshCommand, alias.x=!cmd and filters
#     make git run arbitrary commands. Run the command you mean directly instead.
deny contains {"id": "git.config-code"} if {
	input.segment.program == "git"
	some c in input.segment.code
	c.lang == "git-config"
}

# METADATA
# title: Git global options
# custom:
#   id: git.global-options
#   scope: wrapper
#   justification: >-
#     -c, --git-dir, --work-tree, --exec-path, --config-env and -C outside the workspace point git at
#     other repositories or configuration, and so does running git from a directory below the
#     workspace root or outside it (a repository can shape a subdirectory as a bare repository
#     whose config runs code: core.fsmonitor on git status). Run git at the workspace root without
#     them.
ask contains {"id": "git.global-options"} if {
	input.segment.program == "git"
	some k, _ in input.segment.options
	startswith(k, "global:")
	not k in {
		"global:C", "global:no-pager", "global:P", "global:no-optional-locks", "global:literal-pathspecs",
		"global:version", "global:help", "global:v", "global:h",
	}
	not git_c_ok(k)
}

git_c_ok("global:c") if git_c_harmless

# git_c_harmless holds when every git -c setting changes only how output
# looks or who is named (color.*, log.*, user.name …), or is a pager: git -c
# core.pager=cat (or pager.<cmd>=…) runs the command it names, which the
# parser grades as its own child segment (cat allows; sh -c … does not), and
# every other code-carrying key stays git-config code (git.config-code).
git_c_harmless if {
	every kv in input.segment.options["global:c"] {
		git_harmless_setting(lower(split(kv, "=")[0]))
	}
}

git_harmless_setting(k) if k in {
	"core.pager", "core.quotepath", "core.abbrev", "user.name", "user.email", "column.ui",
	"log.decorate", "log.date", "log.abbrevcommit", "log.follow", "log.mailmap", "format.pretty",
	"grep.linenumber", "grep.extendedregexp", "grep.patterntype", "init.defaultbranch", "i18n.logoutputencoding",
}

git_harmless_setting(k) if startswith(k, "pager.")

git_harmless_setting(k) if {
	startswith(k, "color.")
	k != "color.pager"
}

git_harmless_setting(k) if startswith(k, "advice.")

ask contains {"id": "git.global-options"} if {
	input.segment.program == "git"
	some c in input.segment.options["git-dir-class"]
	c != "workspace"
}

# METADATA
# title: Git configuration through the environment
# custom:
#   id: git.config-env
#   scope: assignment
#   justification: >-
#     GIT_CONFIG_COUNT/KEY/VALUE, GIT_CONFIG_PARAMETERS and GIT_CONFIG_GLOBAL inject configuration that
#     can run commands. Do not pass git configuration through the environment.
deny contains {"id": "git.config-env"} if {
	"assigns" in input.segment.tags
	some a in input.segment.assigns
	startswith(a.name, "GIT_CONFIG")
}

# METADATA
# title: Writing git configuration
# custom:
#   id: git.config-write
#   grantable: true
#   justification: Changing git configuration can make later git commands run code or talk to other remotes.
ask contains {"id": "git.config-write"} if {
	input.segment.program == "git"
	input.segment.subcommand == "config"
	not git_config_read
}

git_config_read if {
	some f in {"get", "get-all", "get-regexp", "list", "l", "show-origin", "name-only", "get-urlmatch"}
	seg.has_flag(f)
}

git_config_read if {
	count(input.segment.operands) == 1
	not git_config_edits
}

git_config_edits if {
	some f in {"unset", "unset-all", "rename-section", "remove-section", "add", "replace-all", "edit", "e"}
	f in input.segment.flags
}

# METADATA
# title: Reading credentials kept in git config
# custom:
#   id: git.config-secret
#   grantable: true
#   justification: >-
#     git config can hold passwords, tokens and Authorization headers (http.<url>.extraheader is where CI
#     checkouts keep their token); printing them, by name or with --list or a --get-regexp that could
#     match them, puts a secret in the transcript. Read the key you need by name.
ask contains {"id": "git.config-secret"} if {
	input.segment.program == "git"
	input.segment.subcommand == "config"
	some o in input.segment.operands
	regex.match(`(?i)pass|token|secret|extraheader|credential|auth|cookie|private`, o.text)
}

ask contains {"id": "git.config-secret"} if {
	# git config --list, --get-regexp ., git var -l: every key, the secret ones too.
	input.segment.program == "git"
	git_config_lists
}

# git_config_lists: the command prints keys it does not name: all of them (--list, -l, list
# in git >= 2.46, git var -l), those a key regexp could match (--get-regexp R, get --regexp R)
# or a whole section (--get-urlmatch http URL, get --url=URL http).
git_config_lists if {
	input.segment.subcommand == "config"
	"list" in input.segment.flags
}

git_config_lists if {
	input.segment.subcommand == "config"
	input.segment.operands[0].text == "list"
}

git_config_lists if {
	input.segment.subcommand == "var"
	"l" in input.segment.flags
}

git_config_lists if {
	input.segment.subcommand == "config"
	some r in git_config_key_regexps
	git_secret_regexp(r)
}

git_config_lists if {
	input.segment.subcommand == "config"
	some n in git_config_url_names
	not contains(n, ".")
}

git_config_key_regexps contains input.segment.operands[0].text if "get-regexp" in input.segment.flags

git_config_key_regexps contains input.segment.operands[1].text if {
	input.segment.operands[0].text == "get"
	"regexp" in input.segment.flags
}

git_config_url_names contains input.segment.operands[0].text if "get-urlmatch" in input.segment.flags

git_config_url_names contains input.segment.operands[1].text if {
	input.segment.operands[0].text == "get"
	"url" in input.segment.flags
}

# git_secret_regexp(r): the key regexp r could match a key that holds a secret, or rivumi
# cannot read it as git's regcomp does.
git_secret_regexp(r) if not ere.readable(r)

git_secret_regexp(r) if ere.matches_any(r, git_secret_keys)

# git_secret_keys: keys, as git canonicalises them for --get-regexp, that hold secrets in
# the wild: CI tokens, credential helpers and their users, tokens of git's satellites, URLs
# with a password in them.
git_secret_keys := {
	"http.extraheader", "http.https://github.com/.extraheader", "http.cookiefile",
	"credential.helper", "credential.https://github.com.helper", "credential.username",
	"user.password", "user.token", "user.secret", "user.privatekey", "sendemail.smtppass", "imap.pass",
	"github.token", "github.oauth-token", "hub.oauthtoken", "gitlab.token",
	"url.https://oauth2:token@gitlab.com/.insteadof",
}
