package native

import "strings"

// gitRules mirrors policies/rules/git.rego, rule by rule.
var gitRules = []Rule{}

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
		if !gitHarmlessSetting(strings.ToLower(k)) {
			return false
		}
	}
	return true
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
