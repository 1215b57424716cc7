package native

import (
	"slices"
	"unicode/utf8"
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
		pw := t.Kinds["privilege_wrapper"]
		for i := range s.Wrappers {
			if pw[s.Wrappers[i].Name] {
				return true
			}
		}
		return false
	}},
	// ops.destroy, two bodies:
	//   ops_tools[program]; some w in argv; regex.match(opsDestroyWord, w)
	//   kinds.database[program]; some w in argv; regex.match(databaseDestroyWord, w)
	{ID: "ops.destroy", Layer: Ask, Match: func(s *Seg, t *Tables) bool {
		if t.OpsTools[s.Program] && slices.ContainsFunc(s.Argv, opsDestroyWord) {
			return true
		}
		return t.Kind("database", s.Program) && slices.ContainsFunc(s.Argv, databaseDestroyWord)
	}},
	// ops.system: kinds.system[program].
	{ID: "ops.system", Layer: Ask, Match: func(s *Seg, t *Tables) bool { return t.Kind("system", s.Program) }},
	// ops.kill: kinds.kills[program].
	{ID: "ops.kill", Layer: Ask, Match: func(s *Seg, t *Tables) bool { return t.Kind("kills", s.Program) }},
	// ops.kill-pattern, three bodies:
	//   kinds.kills_by_name[program]; some o in operands; kill.unreadable(o)
	//   kinds.kills_by_name[program]; kill.unknown
	//   program == "pkill"; count(operands) == 0; "pidfile" in flags
	{ID: "ops.kill-pattern", Layer: Ask, Match: func(s *Seg, t *Tables) bool {
		if s.Program == "pkill" && len(s.Operands) == 0 && s.Flag("pidfile") {
			return true
		}
		if !t.Kind("kills_by_name", s.Program) {
			return false
		}
		if killUnknown(s) {
			return true
		}
		for _, o := range s.Operands {
			if killUnreadable(s, o) {
				return true
			}
		}
		return false
	}},
}

// The ops.destroy patterns of packages.rego, matched by hand: OPA's
// regex.match is Go's regexp, which costs ~4 µs a word here (an
// unanchored, case-folded \b search), the hand-written matchers ~50 ns.
// TestOpsDestroyWords compares them with the patterns read from
// packages.rego.

// foldRune is the lower-case ASCII letter (or other ASCII byte) that r
// matches under (?i) in Go's regexp — ſ (U+017F) folds to s and the Kelvin
// sign (U+212A) to k, no other non-ASCII rune folds to ASCII — and 0 for
// other runes (which no literal of the patterns matches).
func foldRune(r rune) byte {
	switch {
	case r >= 'A' && r <= 'Z':
		return byte(r) + 'a' - 'A'
	case r < utf8.RuneSelf:
		return byte(r)
	case r == '\u017f':
		return 's'
	case r == '\u212a':
		return 'k'
	}
	return 0
}

// matchFold matches lit (lower-case ASCII) case-insensitively at w[i:] and
// returns the index past the match.
func matchFold(w string, i int, lit string) (int, bool) {
	for k := 0; k < len(lit); k++ {
		if i >= len(w) {
			return 0, false
		}
		r, n := rune(w[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(w[i:])
		}
		if foldRune(r) != lit[k] {
			return 0, false
		}
		i += n
	}
	return i, true
}

// opsDestroyWords are the literal alternatives of opsDestroyWord.
var opsDestroyWords = [...]string{
	"delete", "destroy", "remove", "rm", "rmi", "prune", "purge", "drop", "truncate", "terminate", "uninstall",
	"flushall", "flushdb", "kill", "wipe", "reset", "sync",
}

// opsDestroyWord: regex.match(`(?i)^(-{0,2})(delete|destroy|remove|rm|rmi|
// prune|purge|drop|truncate|terminate|uninstall|flushall|flushdb|kill|wipe|
// reset|sync|delete_[a-z_]+|delete-[a-z-]+|remove-[a-z-]+)$`, w). No
// alternative starts with "-", so the dashes are all the leading ones.
func opsDestroyWord(w string) bool {
	d := 0
	for d < len(w) && w[d] == '-' {
		d++
	}
	if d > 2 || d == len(w) {
		return false
	}
	w = w[d:]
	c := w[0] | 0x20 // the first rune, folded: each alternative starts with a letter
	if c < 'a' || c > 'z' {
		if w[0] < utf8.RuneSelf {
			return false
		}
		r, _ := utf8.DecodeRuneInString(w)
		if c = foldRune(r); c == 0 {
			return false
		}
	}
	for _, lit := range opsDestroyWords {
		if lit[0] != c {
			continue
		}
		if j, ok := matchFold(w, 0, lit); ok && j == len(w) {
			return true
		}
	}
	if c != 'd' && c != 'r' {
		return false
	}
	for _, p := range [...]string{"delete_", "delete-", "remove-"} {
		if j, ok := matchFold(w, 0, p); ok && j < len(w) && foldedIn(w[j:], p[len(p)-1]) {
			return true
		}
	}
	return false
}

// foldedIn: every rune of s matches [a-z] or sep under (?i).
func foldedIn(s string, sep byte) bool {
	for _, r := range s {
		if c := foldRune(r); (c < 'a' || c > 'z') && c != sep {
			return false
		}
	}
	return true
}

// isWordByte: \b's word characters, [0-9A-Za-z_] (ASCII only; every byte
// of a multi-byte rune is a non-word one, as the rune is).
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// databaseDestroyWord: regex.match(`(?i)\b(drop|truncate|delete\s+from|
// flushall|flushdb|dropDatabase|alter\s+table)\b`, w). Every alternative
// starts and ends with an ASCII letter, so \b before it is "no word byte
// before" and after it "no word byte after".
func databaseDestroyWord(w string) bool {
	for i := 0; i < len(w); i++ {
		switch w[i] | 0x20 {
		case 'd', 't', 'f', 'a':
		default:
			continue
		}
		if i > 0 && isWordByte(w[i-1]) {
			continue
		}
		for _, lit := range [...]string{"drop", "dropdatabase", "truncate", "flushall", "flushdb"} {
			if j, ok := matchFold(w, i, lit); ok && wordEnd(w, j) {
				return true
			}
		}
		if j, ok := matchSpaced(w, i, "delete", "from"); ok && wordEnd(w, j) {
			return true
		}
		if j, ok := matchSpaced(w, i, "alter", "table"); ok && wordEnd(w, j) {
			return true
		}
	}
	return false
}

// wordEnd: \b after a word byte at w[j-1].
func wordEnd(w string, j int) bool { return j == len(w) || !isWordByte(w[j]) }

// matchSpaced matches a\s+b case-insensitively at w[i:] (\s is
// [\t\n\f\r ]).
func matchSpaced(w string, i int, a, b string) (int, bool) {
	j, ok := matchFold(w, i, a)
	if !ok {
		return 0, false
	}
	k := j
	for k < len(w) && (w[k] == ' ' || w[k] == '\t' || w[k] == '\n' || w[k] == '\f' || w[k] == '\r') {
		k++
	}
	if k == j {
		return 0, false
	}
	return matchFold(w, k, b)
}
