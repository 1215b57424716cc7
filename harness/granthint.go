package harness

import (
	"strings"

	"github.com/rivumi/rivumi/engine"
)

// GrantHint tells a user how to make the asks of v go away for good in
// the project at projectDir: a leading space, then the `rivumi grant add`
// commands of the grants an "always" would record ([GrantsFor]), or a
// sentence saying that no grant can cover v. The commands are quoted for a
// POSIX shell.
func GrantHint(v engine.Verdict, projectDir string) string {
	gs := GrantsFor(v)
	if len(gs) == 0 {
		return " No grant can cover this; run it yourself if it is what you want."
	}
	var cmds []string
	for _, g := range gs {
		c := "rivumi grant add -C " + ShellQuote(projectDir)
		for _, r := range g.Rules {
			c += " --rule " + r
		}
		c += " --"
		for _, w := range g.Prefix {
			c += " " + ShellQuote(w)
		}
		cmds = append(cmds, c)
	}
	return " To allow it in this project from now on: " + strings.Join(cmds, " && ")
}

// ShellQuote returns s as one word of a POSIX shell: as it is when it is
// made only of letters, digits and -_./=:@+, and single-quoted otherwise.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
