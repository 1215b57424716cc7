// Package applypatch reads Codex's apply_patch edits: the shell command
// forms Codex applies itself, and the files a patch touches. The hook
// adapter (Codex's shell and apply_patch tools) and the parser (a shell
// command that is an apply_patch heredoc) share it, so both grade the same
// paths.
package applypatch

import "strings"

// Invocation recognizes the shell command forms Codex applies
// as a patch itself: `apply_patch <<'EOF'\n…\nEOF` (or applypatch, any
// quoted heredoc delimiter), optionally after `cd DIR && `, and the argv
// ["apply_patch", PATCH]. Anything else around it (more commands, words,
// redirections) is not recognized, and the command is graded as shell.
func Invocation(command any) (dir, patch string, ok bool) {
	switch c := command.(type) {
	case []any:
		if len(c) == 2 {
			p0, _ := c[0].(string)
			p1, ok := c[1].(string)
			if (p0 == "apply_patch" || p0 == "applypatch") && ok && strings.Contains(p1, "*** Begin Patch") {
				return "", p1, true
			}
		}
		return "", "", false
	case string:
		s := strings.TrimLeft(c, " \t")
		if rest, ok := strings.CutPrefix(s, "cd "); ok {
			d, after, found := strings.Cut(rest, "&&")
			d = strings.TrimSpace(d)
			if !found || !plainWord(d) {
				return "", "", false
			}
			dir, s = strings.Trim(d, `'"`), strings.TrimLeft(after, " \t")
		}
		prog, rest, _ := strings.Cut(s, " ")
		if prog != "apply_patch" && prog != "applypatch" {
			return "", "", false
		}
		rest = strings.TrimLeft(rest, " \t")
		rest, ok := strings.CutPrefix(rest, "<<")
		if !ok {
			return "", "", false
		}
		head, body, ok := strings.Cut(strings.TrimLeft(rest, " \t"), "\n")
		if !ok {
			return "", "", false
		}
		// Only a quoted delimiter: should Codex hand the command to a shell
		// after all, an unquoted heredoc body would be expanded ($(…)).
		delim := strings.TrimSpace(head)
		if len(delim) < 3 || (delim[0] != '\'' && delim[0] != '"') || delim[len(delim)-1] != delim[0] {
			return "", "", false
		}
		delim = delim[1 : len(delim)-1]
		if delim == "" || strings.IndexFunc(delim, func(r rune) bool {
			return !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) >= 0 {
			return "", "", false
		}
		lines := strings.Split(strings.TrimRight(body, "\n \t"), "\n")
		if len(lines) < 2 || lines[len(lines)-1] != delim {
			return "", "", false
		}
		for _, l := range lines[:len(lines)-1] {
			if l == delim {
				return "", "", false // the heredoc ends early: more follows
			}
		}
		patch = strings.Join(lines[:len(lines)-1], "\n")
		if !strings.Contains(patch, "*** Begin Patch") {
			return "", "", false
		}
		return dir, patch, true
	}
	return "", "", false
}

// plainWord reports whether a cd argument is one word with no expansion:
// letters, digits and -_./@+,:~ only, or such a word in quotes.
func plainWord(w string) bool {
	if len(w) >= 2 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] {
		w = w[1 : len(w)-1]
		if w == "" || strings.ContainsAny(w, `'"$\`+"`") {
			return false
		}
		return !strings.HasPrefix(w, "~")
	}
	return w != "" && !strings.HasPrefix(w, "~") && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./@+,:", r))
	}) < 0
}

// Paths returns the files a Codex patch adds, updates, deletes or
// moves to.
func Paths(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, h); ok && strings.TrimSpace(p) != "" {
				out = append(out, strings.TrimSpace(p))
			}
		}
	}
	return out
}
