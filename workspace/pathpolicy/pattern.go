package pathpolicy

import (
	"fmt"
	"path"
	"strings"
)

// Pattern is one normalised allowed-paths glob. The zero value matches
// nothing.
type Pattern struct {
	text string
	segs []string
}

// String returns the pattern in normalised form.
func (p Pattern) String() string { return p.text }

// MarshalText returns the normalised form, so patterns encode as strings.
func (p Pattern) MarshalText() ([]byte, error) { return []byte(p.text), nil }

// ParsePattern normalises and checks one pattern (see the package
// documentation for what is refused).
func ParsePattern(s string) (Pattern, error) {
	switch {
	case s == "":
		return Pattern{}, fmt.Errorf("empty pattern")
	case strings.IndexByte(s, 0) >= 0:
		return Pattern{}, fmt.Errorf("pattern %q contains a NUL byte", s)
	case strings.Contains(s, `\`):
		return Pattern{}, fmt.Errorf("pattern %q contains a backslash (use forward slashes; escapes are not supported)", s)
	case strings.HasPrefix(s, "/") || len(s) >= 2 && s[1] == ':' && isLetter(s[0]):
		return Pattern{}, fmt.Errorf("pattern %q is absolute (patterns are relative to the workspace root)", s)
	case strings.HasSuffix(s, "/"):
		return Pattern{}, fmt.Errorf("pattern %q ends in \"/\" (write %q for a directory's contents)", s, strings.TrimRight(s, "/")+"/**")
	}
	var segs []string
	for _, seg := range strings.Split(s, "/") {
		switch {
		case seg == "" || seg == ".":
			continue
		case seg == "..":
			return Pattern{}, fmt.Errorf("pattern %q has a \"..\" segment", s)
		case strings.EqualFold(seg, ".git"):
			return Pattern{}, fmt.Errorf("pattern %q names .git", s)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return Pattern{}, fmt.Errorf("pattern %q: malformed glob segment %q", s, seg)
		}
		// Consecutive "**" segments mean the same as one.
		if seg == "**" && len(segs) > 0 && segs[len(segs)-1] == "**" {
			continue
		}
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		return Pattern{}, fmt.Errorf("pattern %q names only the root (write \"**\" for everything)", s)
	}
	return Pattern{text: strings.Join(segs, "/"), segs: segs}, nil
}

// ParsePatterns parses a list of patterns; an error names the pattern's
// index (0-based) in the list.
func ParsePatterns(ss []string) ([]Pattern, error) {
	out := make([]Pattern, 0, len(ss))
	for i, s := range ss {
		p, err := ParsePattern(s)
		if err != nil {
			return nil, fmt.Errorf("allowed_paths[%d]: %w", i, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// Match reports whether the cleaned relative path rel matches: segment by
// segment, with "**" matching any number of whole segments (none
// included). Only a path in Clean's normal form can match: a path Clean
// refuses (a ".." or ".git" segment, a NUL or other byte that could make
// it name .git elsewhere) or would rewrite never matches, whatever the
// pattern, so no pattern decides by luck what names .git.
func (p Pattern) Match(rel string) bool {
	if len(p.segs) == 0 {
		return false
	}
	if c, err := Clean(rel); err != nil || c != rel {
		return false
	}
	name := strings.Split(rel, "/")
	for _, seg := range name {
		if seg == ".." || strings.EqualFold(seg, ".git") {
			return false
		}
	}
	return matchSegs(p.segs, name)
}

func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(name); i++ {
				if matchSegs(rest, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// holdsBeneath reports whether the pattern could match a path that has
// the segments name as a proper prefix.
func (p Pattern) holdsBeneath(name []string) bool {
	pat := p.segs
	for _, seg := range name {
		if seg == ".." || strings.EqualFold(seg, ".git") {
			return false
		}
	}
	for len(name) > 0 {
		switch {
		case len(pat) == 0:
			return false
		case pat[0] == "**":
			return true // it takes the rest of name and more
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(pat) > 0
}
