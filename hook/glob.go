package hook

import (
	"path"
	"strings"
)

// Match reports whether name matches the segment-aware glob pattern. Both
// are slash-separated. A pattern segment matches one name segment with
// [path.Match] syntax (`*`, `?`, `[…]`, `\` escapes), so `*` never crosses
// a `/`; only a whole `**` segment matches any number of segments (zero
// included). `a**b` is just `a*b`. A pattern ending in `/` matches the
// directory and everything below it. `*` matches names starting with a
// dot. A malformed pattern matches nothing (see [ValidGlob]).
func Match(pattern, name string) bool {
	if strings.HasSuffix(pattern, "/") && pattern != "/" {
		pattern += "**"
	}
	ps := strings.Split(pattern, "/")
	ns := strings.Split(name, "/")
	// ok[j] reports whether ps[:i] matches ns[:j], row by row over i.
	ok := make([]bool, len(ns)+1)
	ok[0] = true
	next := make([]bool, len(ns)+1)
	for _, p := range ps {
		if p == "**" {
			// ** matches ns[k:j] for any k ≤ j: carry any earlier match forward.
			seen := false
			for j := range ok {
				seen = seen || ok[j]
				next[j] = seen
			}
		} else {
			next[0] = false
			for j := 1; j <= len(ns); j++ {
				next[j] = false
				if ok[j-1] {
					m, err := path.Match(p, ns[j-1])
					next[j] = m && err == nil
				}
			}
		}
		ok, next = next, ok
	}
	return ok[len(ns)]
}

// ValidGlob reports whether every segment of pattern is well formed.
func ValidGlob(pattern string) bool {
	for _, p := range strings.Split(pattern, "/") {
		if _, err := path.Match(p, ""); err != nil {
			return false
		}
	}
	return true
}
