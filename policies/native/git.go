package native

import (
	"github.com/rivumi/rivumi/internal/lazyre"
	"slices"
	"strings"
)

// gitRules mirrors policies/rules/git.rego, rule by rule.
var gitRules = []Rule{
	// git.force-push: git push with "force" in flags.
	{ID: "git.force-push", Layer: Deny, Match: func(s *Seg, _ *Tables) bool {
		return s.Program == "git" && s.Subcommand == "push" && s.Flag("force")
	}},
	// git.push-destructive: git push with delete, mirror, force-with-lease,
	// force-if-includes or prune.
	{ID: "git.push-destructive", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		return s.Program == "git" && s.Subcommand == "push" &&
			s.AnyFlag("delete", "mirror", "force-with-lease", "force-if-includes", "prune")
	}},
	// git.discard: git and discards.
	{ID: "git.discard", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		return s.Program == "git" && gitDiscards(s)
	}},
	// git.delete-ref, two bodies: branch/tag with delete, D, force, M, move
	// or C; update-ref with "d" in flags.
	{ID: "git.delete-ref", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		if s.Program != "git" {
			return false
		}
		switch s.Subcommand {
		case "branch", "tag":
			return s.AnyFlag("delete", "D", "force", "M", "move", "C")
		case "update-ref":
			return s.Flag("d")
		}
		return false
	}},
	// git.rewrite-history, three bodies: filter-branch, filter-repo, rebase,
	// replace, gc, prune; reflog with an operand expire or delete; commit
	// with "amend" in flags.
	{ID: "git.rewrite-history", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		if s.Program != "git" {
			return false
		}
		switch s.Subcommand {
		case "filter-branch", "filter-repo", "rebase", "replace", "gc", "prune":
			return true
		case "reflog":
			return anyOperand(s, "expire", "delete")
		case "commit":
			return s.Flag("amend")
		}
		return false
	}},
	// git.hooks: git with a subcommand that runs the repository's hooks.
	{ID: "git.hooks", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		if s.Program != "git" {
			return false
		}
		switch s.Subcommand {
		case "commit", "merge", "push", "am", "pull", "cherry-pick", "revert", "checkout", "switch",
			"clone", "fetch", "submodule", "bisect", "apply", "init":
			return !gitNewBranch(s)
		}
		return false
	}},
	// git.config-code: git with some code of lang "git-config".
	{ID: "git.config-code", Layer: Deny, Match: func(s *Seg, _ *Tables) bool {
		if s.Program != "git" {
			return false
		}
		for _, c := range s.Code {
			if c.Lang == "git-config" {
				return true
			}
		}
		return false
	}},
	// git.global-options, two bodies: git with an option "global:…" outside
	// the harmless list, unless it is global:c and git_c_harmless; git with
	// some options["git-dir-class"] other than "workspace".
	{ID: "git.global-options", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		if s.Program != "git" {
			return false
		}
		for k := range s.Options {
			if strings.HasPrefix(k, "global:") && !gitHarmlessGlobal(k) && !gitCOK(s, k) {
				return true
			}
		}
		for _, c := range s.Options["git-dir-class"] {
			if c != "workspace" {
				return true
			}
		}
		return false
	}},
	// git.config-env: "assigns" in tags and some assignment whose name starts
	// with GIT_CONFIG (any program).
	{ID: "git.config-env", Layer: Deny, Match: func(s *Seg, _ *Tables) bool {
		if len(s.Assigns) == 0 || !s.Tag("assigns") {
			return false
		}
		for _, a := range s.Assigns {
			if strings.HasPrefix(a.Name, "GIT_CONFIG") {
				return true
			}
		}
		return false
	}},
	// git.config-write: git config and not git_config_read.
	{ID: "git.config-write", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		return s.Program == "git" && s.Subcommand == "config" && !gitConfigRead(s)
	}},
	// git.config-secret: git config with some operand matching
	// (?i)pass|token|secret|extraheader|credential|auth|cookie|private.
	{ID: "git.config-secret", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		if s.Program != "git" || s.Subcommand != "config" {
			return false
		}
		for _, o := range s.Operands {
			if gitSecretKey().MatchString(o.Text) {
				return true
			}
		}
		return false
	}},
	// git.config-secret: git_config_lists.
	{ID: "git.config-secret", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		return s.Program == "git" && gitConfigLists(s)
	}},
}

// gitSecretKeys is git_secret_keys.
var gitSecretKeys = []string{
	"http.extraheader", "http.https://github.com/.extraheader", "http.cookiefile",
	"credential.helper", "credential.https://github.com.helper", "credential.username",
	"user.password", "user.token", "user.secret", "user.privatekey", "sendemail.smtppass", "imap.pass",
	"github.token", "github.oauth-token", "hub.oauthtoken", "gitlab.token",
	"url.https://oauth2:token@gitlab.com/.insteadof",
}

// gitConfigLists is git_config_lists, five bodies:
//
//	subcommand == "config"; "list" in flags
//	subcommand == "config"; operands[0].text == "list"
//	subcommand == "var"; "l" in flags
//	subcommand == "config"; some r in git_config_key_regexps; git_secret_regexp(r)
//	subcommand == "config"; some n in git_config_url_names; not contains(n, ".")
func gitConfigLists(s *Seg) bool {
	switch s.Subcommand {
	case "var":
		return s.Flag("l")
	case "config":
	default:
		return false
	}
	if s.Flag("list") || gitOperand(s, 0) == "list" {
		return true
	}
	// git_config_key_regexps: operands[0] with get-regexp; operands[1]
	// after "get" with regexp. git_config_url_names: the same with
	// get-urlmatch and url.
	if len(s.Operands) > 0 && s.Flag("get-regexp") && gitSecretRegexp(s.Operands[0].Text) {
		return true
	}
	if len(s.Operands) > 1 && gitOperand(s, 0) == "get" && s.Flag("regexp") && gitSecretRegexp(s.Operands[1].Text) {
		return true
	}
	if len(s.Operands) > 0 && s.Flag("get-urlmatch") && !strings.Contains(s.Operands[0].Text, ".") {
		return true
	}
	return len(s.Operands) > 1 && gitOperand(s, 0) == "get" && s.Flag("url") && !strings.Contains(s.Operands[1].Text, ".")
}

// gitOperand is operands[i].text, "" when there is none.
func gitOperand(s *Seg, i int) string {
	if i < len(s.Operands) {
		return s.Operands[i].Text
	}
	return ""
}

// gitSecretRegexp is git_secret_regexp(r): not ere.readable(r), or
// ere.matches_any(r, git_secret_keys).
func gitSecretRegexp(r string) bool { return !ereReadable(r) || ereMatchesAny(r, gitSecretKeys) }

// gitSecretKey is git.config-secret's regex.match pattern.
var gitSecretKey = lazyre.New(`(?i)pass|token|secret|extraheader|credential|auth|cookie|private`)

// gitHarmlessGlobal: k in the global options git.global-options lets pass.
func gitHarmlessGlobal(k string) bool {
	switch k {
	case "global:C", "global:no-pager", "global:P", "global:no-optional-locks", "global:literal-pathspecs",
		"global:version", "global:help", "global:v", "global:h":
		return true
	}
	return false
}

// gitCOK: git_c_ok(k) — k is global:c and git_c_harmless.
func gitCOK(s *Seg, k string) bool { return k == "global:c" && gitCHarmless(s) }

// anyOperand: some o in input.segment.operands; o.text in words.
func anyOperand(s *Seg, words ...string) bool {
	for _, o := range s.Operands {
		if slices.Contains(words, o.Text) {
			return true
		}
	}
	return false
}

// gitDiscards: discards (git.rego), body by body, chosen by subcommand.
func gitDiscards(s *Seg) bool {
	switch s.Subcommand {
	case "reset":
		return s.AnyFlag("hard", "merge", "keep")
	case "clean":
		return !s.Flag("dry-run")
	case "checkout":
		// force, "--", ours, theirs, patch in flags; operands and "--" in
		// argv; more than one operand.
		return s.AnyFlag("force", "--", "ours", "theirs", "patch") ||
			len(s.Operands) > 0 && slices.Contains(s.Argv, "--") ||
			len(s.Operands) > 1
	case "restore":
		return true
	case "switch":
		return s.AnyFlag("discard-changes", "force", "force-create")
	case "stash":
		return anyOperand(s, "drop", "clear", "pop")
	case "worktree":
		return anyOperand(s, "remove", "prune")
	}
	return false
}

// gitConfigRead: git_config_read — a reading flag, or exactly one operand
// and not git_config_edits.
func gitConfigRead(s *Seg) bool {
	return s.AnyFlag("get", "get-all", "get-regexp", "list", "l", "show-origin", "name-only", "get-urlmatch") ||
		len(s.Operands) == 1 && !gitConfigEdits(s)
}

// gitConfigEdits: git_config_edits — an editing flag.
func gitConfigEdits(s *Seg) bool {
	return s.AnyFlag("unset", "unset-all", "rename-section", "remove-section", "add", "replace-all", "edit", "e")
}

// gitCHarmless: git_c_harmless (git.rego; readonly.rego uses it too) —
// every git -c setting changes only how output looks or who is named, or
// is a pager. Undefined (false) when the segment has no -c setting.
func gitCHarmless(s *Seg) bool {
	kvs, ok := s.Option("global:c")
	if !ok {
		return false
	}
	for _, kv := range kvs {
		k, _, _ := strings.Cut(kv, "=")
		if !gitHarmlessKey(k) {
			return false
		}
	}
	return true
}

// gitHarmlessKey: git_harmless_setting(lower(k)). An ASCII key of up to
// 32 bytes is lowered on the stack (strings.ToLower allocates when a
// letter changes, as in git -c User.Name=…); any other key goes through
// strings.ToLower, which is OPA's lower.
func gitHarmlessKey(k string) bool {
	if len(k) > 32 {
		return gitHarmlessSetting(strings.ToLower(k))
	}
	var b [32]byte
	n := copy(b[:], k)
	for i := range n {
		switch c := b[i]; {
		case c >= 0x80:
			return gitHarmlessSetting(strings.ToLower(k))
		case 'A' <= c && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return gitHarmlessSetting(string(b[:n]))
}

// gitHarmlessSetting: git_harmless_setting(k).
func gitHarmlessSetting(k string) bool {
	switch k {
	case "core.pager", "core.quotepath", "core.abbrev", "user.name", "user.email", "column.ui",
		"log.decorate", "log.date", "log.abbrevcommit", "log.follow", "log.mailmap", "format.pretty",
		"grep.linenumber", "grep.extendedregexp", "grep.patterntype", "init.defaultbranch", "i18n.logoutputencoding":
		return true
	}
	return strings.HasPrefix(k, "pager.") || strings.HasPrefix(k, "color.") && k != "color.pager" || strings.HasPrefix(k, "advice.")
}
