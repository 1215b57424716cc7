// Package shquote quotes strings as words of a POSIX shell.
package shquote

import "strings"

// Word returns s as one word of a POSIX shell (bash, dash, zsh): as it is
// when it is not empty and made only of letters, digits and -_./=:@+, and
// single-quoted otherwise, each ' written as '\”. The shell reads the
// result back as exactly s, with no expansion.
func Word(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
