package native

import (
	"github.com/rivumi/rivumi/internal/lazyre"
	"strings"
)

// fsRules mirrors policies/rules/fs.rego, rule by rule.
var fsRules = []Rule{
	// fs.protected-write: "writes" in tags; some c in write_classes; c in seg.protected_classes.
	{ID: "fs.protected-write", Layer: Deny, Match: func(s *Seg, _ *Tables) bool {
		if !s.Tag("writes") {
			return false
		}
		for _, c := range s.WriteClasses {
			if ProtectedClass(c) {
				return true
			}
		}
		return false
	}},
	// fs.write-outside: "writes" in tags; some c in write_classes; not c in
	// {"workspace", "null", "instructions", "project-code"}; not c in seg.protected_classes.
	{ID: "fs.write-outside", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		if !s.Tag("writes") {
			return false
		}
		for _, c := range s.WriteClasses {
			switch c {
			case "workspace", "null", "instructions", "project-code":
				continue
			}
			if !ProtectedClass(c) {
				return true
			}
		}
		return false
	}},
	// fs.instructions-write: "instructions" in write_classes.
	{ID: "fs.instructions-write", Layer: Ask, Match: func(s *Seg, _ *Tables) bool { return s.WriteClass("instructions") }},
	// fs.project-code-write: "project-code" in write_classes.
	{ID: "fs.project-code-write", Layer: Ask, Match: func(s *Seg, _ *Tables) bool { return s.WriteClass("project-code") }},
	// fs.delete, two bodies:
	//   kinds.deletes[program]; not seg.query_only; not workspace_delete
	//   program == "find"; "delete" in flags
	{ID: "fs.delete", Layer: Ask, Match: func(s *Seg, t *Tables) bool {
		if s.Program == "find" && s.Flag("delete") {
			return true
		}
		return t.Kind("deletes", s.Program) && !s.QueryOnly() && !workspaceDelete(s, t)
	}},
	// allow.workspace-delete: workspace_delete.
	{ID: "allow.workspace-delete", Layer: Allow, Match: workspaceDelete},
	// fs.permissions: kinds.permissions[program]; not workspace_chmod.
	{ID: "fs.permissions", Layer: Ask, Match: func(s *Seg, t *Tables) bool {
		return t.Kind("permissions", s.Program) && !workspaceChmod(s, t)
	}},
	// allow.workspace-chmod: workspace_chmod.
	{ID: "allow.workspace-chmod", Layer: Allow, Match: workspaceChmod},
	// fs.archive, two bodies:
	//   kinds.archives[program]; count(writes) > 0
	//   kinds.extracts[program]; not readonly_listing
	{ID: "fs.archive", Layer: Ask, Match: func(s *Seg, t *Tables) bool {
		return t.Kind("archives", s.Program) && len(s.Writes) > 0 || t.Kind("extracts", s.Program) && !readonlyListing(s, t)
	}},
	// fs.read-secret, two bodies:
	//   some c in read_classes; sets.secret_classes[c]
	//   "secret-env" in tags
	{ID: "fs.read-secret", Layer: Ask, Match: func(s *Seg, t *Tables) bool {
		for _, c := range s.ReadClasses {
			if t.SecretClass(c) {
				return true
			}
		}
		return s.Tag("secret-env")
	}},
	// fs.read-home: "home-read" in tags.
	{ID: "fs.read-home", Layer: Ask, Match: func(s *Seg, _ *Tables) bool { return s.Tag("home-read") }},
	// fs.read-broad, two bodies:
	//   kinds.searches[program]; count(read_classes & {"root", "home", "system-top"}) > 0; broad_read;
	//   not names_only
	//   kinds.searches_contents[program]; some r in reads; startswith(r.path, "~/."); broad_read;
	//   not names_only
	{ID: "fs.read-broad", Layer: Ask, Match: func(s *Seg, t *Tables) bool {
		if t.Kind("searches", s.Program) && readsCritical(s) && broadRead(s, t) && !namesOnly(s, t) {
			return true
		}
		return t.Kind("searches_contents", s.Program) && readsHomeHidden(s) && broadRead(s, t) && !namesOnly(s, t)
	}},
	// fs.overwrite: kinds.overwrites[program].
	{ID: "fs.overwrite", Layer: Ask, Match: func(s *Seg, t *Tables) bool { return t.Kind("overwrites", s.Program) }},
	// fs.history, four bodies:
	//   program == "history"; some f in {"c", "d", "w", "r", "a", "n"}; seg.has_flag(f)
	//   "assigns" in tags; some a in assigns; a.name in {"HISTFILE", "HISTSIZE", "HISTFILESIZE", "HISTCONTROL", "HISTIGNORE"}
	//   program == "unset"; some o in operands; startswith(o.text, "HIST")
	//   "writes" in tags; some w in writes; regex.match(`(^|/)\.(bash|zsh|sh|python|node_repl|psql|mysql)_?history$`, w.path)
	{ID: "fs.history", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		switch s.Program {
		case "history":
			if s.AnyFlag("c", "d", "w", "r", "a", "n") {
				return true
			}
		case "unset":
			for _, o := range s.Operands {
				if strings.HasPrefix(o.Text, "HIST") {
					return true
				}
			}
		}
		if s.Tag("assigns") {
			for _, a := range s.Assigns {
				switch a.Name {
				case "HISTFILE", "HISTSIZE", "HISTFILESIZE", "HISTCONTROL", "HISTIGNORE":
					return true
				}
			}
		}
		if s.Tag("writes") {
			for _, w := range s.Writes {
				if historyFile(w.Path) {
					return true
				}
			}
		}
		return false
	}},
}

// workspaceDelete: workspace_delete — kinds.deletes_named[program];
// seg.plain; count(operands) > 0; every f in flags { f in {"force",
// "verbose", "i", "I", "interactive"} }; write_classes == {"workspace"};
// every o in operands { delete_operand_ok(o) }; seg.reads_ok.
func workspaceDelete(s *Seg, t *Tables) bool {
	if !t.Kind("deletes_named", s.Program) || len(s.Operands) == 0 || !setEquals(s.WriteClasses, "workspace") {
		return false
	}
	for _, f := range s.Flags {
		switch f {
		case "force", "verbose", "i", "I", "interactive":
		default:
			return false
		}
	}
	for _, o := range s.Operands {
		// delete_operand_ok(o): o.class == "workspace", and not o.dynamic
		// or narrow_glob(o.text).
		if o.Class != "workspace" || o.Dynamic && !narrowGlob(o.Text) {
			return false
		}
	}
	return s.Plain(t) && s.ReadsOK(t)
}

// bracketExpr is the regexp narrow_glob drops: `\[[^]]*\]`.
var bracketExpr = lazyre.New(`\[[^]]*\]`)

// narrowGlob: narrow_glob(t) — the last "/" part of t, bracket expressions
// removed, has a * or ?, a character other than * ? ., and a character
// other than * ? = - I R and the letters of rm's dangerous long options,
// c d e f i n o p r s t u v (the regex.match calls, as byte scans:
// each class is ASCII, so a byte outside it is a rune outside it).
func narrowGlob(t string) bool {
	last := t[strings.LastIndexByte(t, '/')+1:]
	if strings.IndexByte(last, '[') >= 0 {
		last = bracketExpr().ReplaceAllString(last, "")
	}
	return strings.ContainsAny(last, "*?") && hasByteNotIn(last, "*?.") && hasByteNotIn(last, "*?=-IRcdefinoprstuv")
}

// hasByteNotIn reports whether s has a byte that is not in set (the
// regexp [^set] matching somewhere in s, for an ASCII set).
func hasByteNotIn(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return true
		}
	}
	return false
}

// workspaceChmod: workspace_chmod — program == "chmod"; seg.plain;
// seg.static_args; count(operands) > 1; every f in flags { f in
// {"changes", "silent", "verbose"} }; plain_mode(operands[0].text);
// write_classes == {"workspace"}.
func workspaceChmod(s *Seg, t *Tables) bool {
	if s.Program != "chmod" || len(s.Operands) <= 1 || !setEquals(s.WriteClasses, "workspace") || !s.StaticArgs() {
		return false
	}
	for _, f := range s.Flags {
		switch f {
		case "changes", "silent", "verbose":
		default:
			return false
		}
	}
	return plainMode(s.Operands[0].Text) && s.Plain(t)
}

// The two plain_mode bodies' regexps.
var (
	octalMode    = lazyre.New(`^0*[0-7]{1,3}$`)
	symbolicMode = lazyre.New(`^[ugoa]*([-+=][rwxXugo]*)+(,[ugoa]*([-+=][rwxXugo]*)+)*$`)
)

// plainMode: plain_mode(m) — an octal mode without setuid, setgid or
// sticky bits, or symbolic clauses of r, w, x, X and u/g/o copies.
func plainMode(m string) bool { return octalMode().MatchString(m) || symbolicMode().MatchString(m) }

// readsCritical: count(read_classes & {"root", "home", "system-top"}) > 0.
func readsCritical(s *Seg) bool {
	for _, c := range s.ReadClasses {
		if c == "root" || c == "home" || c == "system-top" {
			return true
		}
	}
	return false
}

// readsHomeHidden: some r in reads; startswith(r.path, "~/.").
func readsHomeHidden(s *Seg) bool {
	for _, r := range s.Reads {
		if strings.HasPrefix(r.Path, "~/.") {
			return true
		}
	}
	return false
}

// broadRead: broad_read, three bodies — kinds.reads_tree[program]; cp with
// -r or -a (recursive, archive); or any of the flags recursive, r,
// dereference-recursive, R.
func broadRead(s *Seg, t *Tables) bool {
	return t.Kind("reads_tree", s.Program) ||
		s.Program == "cp" && s.AnyFlag("recursive", "archive") ||
		s.AnyFlag("recursive", "r", "dereference-recursive", "R")
}

// historyStems are the history files' names before the "_history" of
// the fs.history regexp: a dot and a shell or REPL name.
var historyStems = [...]string{".bash", ".zsh", ".sh", ".python", ".node_repl", ".psql", ".mysql"}

// historyFile: regex.match(`(^|/)\.(bash|zsh|sh|python|node_repl|psql|mysql)_?history$`, p),
// as suffix tests.
func historyFile(p string) bool {
	q, ok := strings.CutSuffix(p, "history")
	if !ok {
		return false
	}
	if historyStem(q) {
		return true
	}
	q, ok = strings.CutSuffix(q, "_")
	return ok && historyStem(q)
}

// historyStem: q ends in one of historyStems, at its start or after a "/".
func historyStem(q string) bool {
	for _, n := range historyStems {
		if r, ok := strings.CutSuffix(q, n); ok && (r == "" || strings.HasSuffix(r, "/")) {
			return true
		}
	}
	return false
}

// namesOnly: names_only — kinds.lists_names[program]; readonly_flags_ok;
// not "exec" in flags; not "execdir" in flags.
func namesOnly(s *Seg, t *Tables) bool {
	spec := t.Readonly[s.Program]
	return t.Kind("lists_names", s.Program) && spec != nil && readonlyFlagsOK(s, spec) && !s.AnyFlag("exec", "execdir")
}
