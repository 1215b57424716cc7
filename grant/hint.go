package grant

import (
	"strings"

	"github.com/rivumi/rivumi/internal/shquote"
	"github.com/rivumi/rivumi/verdict"
)

// Hint tells a user how to make the asks of v go away for good in
// the project at projectDir: a leading space, then the `rivumi grant add`
// commands of the grants an "always" would record ([For]), or a
// sentence saying that no grant can cover v. The commands are quoted for a
// POSIX shell.
func Hint(v verdict.Verdict, projectDir string) string {
	gs := For(v)
	if len(gs) == 0 {
		return " No grant can cover this; run it yourself if it is what you want."
	}
	var cmds []string
	for _, g := range gs {
		c := "rivumi grant add -C " + shquote.Word(projectDir)
		for _, r := range g.Rules {
			c += " --rule " + r
		}
		c += " --"
		for _, w := range g.Prefix {
			c += " " + shquote.Word(w)
		}
		cmds = append(cmds, c)
	}
	return " To allow it in this project from now on: " + strings.Join(cmds, " && ")
}
