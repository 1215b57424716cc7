package native

import (
	"regexp"
	"strings"

	"github.com/rivumi/rivumi/internal/lazyre"
)

// The ERE helpers mirror policies/lib/ere.rego.

var (
	ereBadEscape = lazyre.New(`\\([^.\\*+?()\[\]{}|^$/-]|$)`)
	ereBadForm   = lazyre.New(`\[[=.]|\(\?|\{,`)
)

// ereReadable is ere.readable(p): p compiles, no backslash but before
// punctuation both read as literal, none beside a bracket, no [= [. (? {,.
func ereReadable(p string) bool {
	if _, err := regexp.Compile(p); err != nil {
		return false
	}
	if ereBadEscape().MatchString(p) || ereBadForm().MatchString(p) {
		return false
	}
	return !(strings.Contains(p, "[") && strings.Contains(p, `\`))
}

// ereMatchesAny is ere.matches_any(p, subjects).
func ereMatchesAny(p string, subjects []string) bool {
	if !ereReadable(p) {
		return false
	}
	re, err := regexp.Compile("(?i)" + p)
	if err != nil {
		return false // cannot happen: p compiles
	}
	for _, x := range subjects {
		if re.MatchString(x) {
			return true
		}
	}
	return false
}
