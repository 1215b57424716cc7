package native

import (
	"regexp"
	"slices"
)

// packagesRules mirrors policies/rules/packages.rego, rule by rule.
var packagesRules = []Rule{
	// packages.install, two bodies:
	//   subs := package_managers[program]; subcommand in subs
	//   kinds.installs[program]
	{ID: "packages.install", Layer: Ask, Match: func(s *Seg, t *Tables) bool {
		if subs, ok := t.PackageManagers[s.Program]; ok && slices.Contains(subs, s.Subcommand) {
			return true
		}
		return t.Kind("installs", s.Program)
	}},
	// exec.workspace-code, two bodies:
	//   runs := workspace_runners[program]; runs == true; not seg.query_only
	//   subs := workspace_runners[program]; is_array(subs); subcommand in subs
	{ID: "exec.workspace-code", Layer: Ask, Match: func(s *Seg, t *Tables) bool {
		r, ok := t.WorkspaceRunners[s.Program]
		if !ok {
			return false
		}
		if r.List {
			return slices.Contains(r.Subs, s.Subcommand)
		}
		return r.All && !s.QueryOnly()
	}},
	// exec.local-program: path_kind in {"relative", "absolute"}.
	{ID: "exec.local-program", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		return s.PathKind == "relative" || s.PathKind == "absolute"
	}},
	// privilege.escalation, two bodies:
	//   "wrapped" in tags; some w in wrappers; kinds.privilege_wrapper[w.name]
	//   kinds.privilege[program]
	{ID: "privilege.escalation", Layer: Ask, Match: func(s *Seg, t *Tables) bool {
		if t.Kind("privilege", s.Program) {
			return true
		}
		if len(s.Wrappers) == 0 || !s.Tag("wrapped") {
			return false
		}
		for i := range s.Wrappers {
			if t.Kind("privilege_wrapper", s.Wrappers[i].Name) {
				return true
			}
		}
		return false
	}},
	// ops.destroy, two bodies:
	//   ops_tools[program]; some w in argv; regex.match(opsDestroyWord, w)
	//   kinds.database[program]; some w in argv; regex.match(databaseDestroyWord, w)
	{ID: "ops.destroy", Layer: Ask, Match: func(s *Seg, t *Tables) bool {
		if t.OpsTools[s.Program] && slices.ContainsFunc(s.Argv, opsDestroyWord.MatchString) {
			return true
		}
		return t.Kind("database", s.Program) && slices.ContainsFunc(s.Argv, databaseDestroyWord.MatchString)
	}},
	// ops.system: kinds.system[program].
	{ID: "ops.system", Layer: Ask, Match: func(s *Seg, t *Tables) bool { return t.Kind("system", s.Program) }},
	// ops.kill: kinds.kills[program].
	{ID: "ops.kill", Layer: Ask, Match: func(s *Seg, t *Tables) bool { return t.Kind("kills", s.Program) }},
}

// The ops.destroy patterns, as packages.rego writes them (OPA's
// regex.match is Go's regexp: same syntax, same matches).
var (
	opsDestroyWord      = regexp.MustCompile(`(?i)^(-{0,2})(delete|destroy|remove|rm|rmi|prune|purge|drop|truncate|terminate|uninstall|flushall|flushdb|kill|wipe|reset|sync|delete_[a-z_]+|delete-[a-z-]+|remove-[a-z-]+)$`)
	databaseDestroyWord = regexp.MustCompile(`(?i)\b(drop|truncate|delete\s+from|flushall|flushdb|dropDatabase|alter\s+table)\b`)
)
