// Package ere tells which POSIX extended regular expressions (glibc's
// regcomp with REG_EXTENDED, as pkill, killall -r and git config
// --get-regexp compile them) Go's regexp reads the same way, and matches
// those. It is the Go side of policies/lib/ere.rego.
package ere

import (
	"regexp"
	"strings"

	"github.com/rivumi/rivumi/internal/lazyre"
)

var (
	badEscape = lazyre.New(`\\([^.\\*+?()\[\]{}|^$/-]|$)`)
	badForm   = lazyre.New(`\[[=.]|\(\?|\{,`)
)

// Readable reports whether p compiles as a Go regexp and means there what
// it means to glibc: no backslash but before punctuation both read as
// literal (glibc reads \w \< \' as its own and \d, \t as d, t), none beside
// a bracket ([\d] and [a\-z] differ), no [= [. (? or {,.
func Readable(p string) bool {
	if _, err := regexp.Compile(p); err != nil {
		return false
	}
	if badEscape().MatchString(p) || badForm().MatchString(p) {
		return false
	}
	return !(strings.Contains(p, "[") && strings.Contains(p, `\`))
}

// Finds reports whether the readable pattern p, case folded and anchored
// at both ends when anchored is set, finds a match in one of subjects. It
// is false when p is not Readable.
func Finds(p string, anchored bool, subjects []string) bool {
	if !Readable(p) {
		return false
	}
	expr := "(?i)" + p
	if anchored {
		expr = "(?i)^(?:" + p + ")$"
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return false // cannot happen: p compiles, and so does p wrapped
	}
	for _, s := range subjects {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}
