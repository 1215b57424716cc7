package pathpolicy_test

import (
	"path"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/workspace/pathpolicy"
)

// FuzzClean: whatever Clean accepts stays inside the root and out of .git.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"a/b", "./a//b/", "..", "a/../b", ".GIT/x", `a\b`, "C:x", "/x", "a/.git", "a/.gitx", "...", "a/./.", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c, err := pathpolicy.Clean(p)
		if err != nil {
			if !pathpolicy.IsRefusal(err) {
				t.Fatalf("Clean(%q): %v is not a refusal", p, err)
			}
			return
		}
		if path.Clean(c) != c || path.IsAbs(c) || strings.ContainsAny(c, "\\\x00") || (len(c) >= 2 && c[1] == ':' && (c[0]|0x20 >= 'a' && c[0]|0x20 <= 'z')) {
			t.Fatalf("Clean(%q) = %q", p, c)
		}
		for _, seg := range strings.Split(c, "/") {
			if seg == ".." || strings.EqualFold(seg, ".git") {
				t.Fatalf("Clean(%q) = %q keeps segment %q", p, c, seg)
			}
		}
	})
}

// FuzzPattern: a parsed pattern's normal form parses to itself, and
// matching never panics nor matches a path Clean refuses.
func FuzzPattern(f *testing.F) {
	for _, s := range [][2]string{{"src/**", "src/a/b"}, {"**/*.go", "x.go"}, {"a/**/b", "a/b"}, {"[a-", "a"}, {"*", ".git"}, {"*", "\x00.git"}, {"*", "a\r"}, {"**", "a/.GIT/b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		p, err := pathpolicy.ParsePattern(pat)
		if err != nil {
			return
		}
		q, err := pathpolicy.ParsePattern(p.String())
		if err != nil || q.String() != p.String() {
			t.Fatalf("normal form %q of %q does not reparse: %q, %v", p, pat, q, err)
		}
		if p.Match(name) {
			if c, err := pathpolicy.Clean(name); err != nil || c != name {
				t.Fatalf("%q matches %q, which Clean refuses or rewrites (%q, %v)", p, name, c, err)
			}
		}
	})
}
