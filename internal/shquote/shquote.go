// Package shquote quotes strings as words of a POSIX shell.
package shquote

import (
	"fmt"
	"strings"
)

// Word returns s as one word of a shell (bash, zsh, ksh, dash ≥ 0.5.12): as
// it is when it is not empty and made only of letters, digits and
// -_./=:@+,; ANSI-C quoted ($'…', each control character, DEL, ' and \
// escaped) when it holds a control character, so a carriage return or
// other invisible byte is visible and read back exactly (a plain '…' word
// holding a CR is shown as another command and is read back without it by
// some parsers); single-quoted otherwise, each ' written as '\”. The shell
// reads the result back as exactly s, with no expansion.
func Word(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@+,", r))
	}) < 0 {
		return s
	}
	if strings.IndexFunc(s, isControl) >= 0 {
		var b strings.Builder
		b.WriteString("$'")
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\'' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < 0x20 || c == 0x7f:
				fmt.Fprintf(&b, `\x%02x`, c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('\'')
		return b.String()
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Display renders argv for humans, backquoted, with the arguments that
// need it single-quoted (`rm -rf 'my dir'`). It is for messages, not for
// a shell to read back: use [Word] for that.
func Display(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[](){}<>|&;#~!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = a
	}
	return "`" + strings.Join(parts, " ") + "`"
}
