package hook

import (
	"path"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"src/*.go", "src/main.go", true},
		{"src/*.go", "src/a/b.go", false}, // * never crosses /
		{"src/**/*.go", "src/a/b.go", true},
		{"src/**/*.go", "src/main.go", true}, // ** matches zero segments
		{"src/**/*.go", "src/a/b/c/d.go", true},
		{"src/**", "src", true},
		{"src/**", "src/a/b", true},
		{"src/**", "srcx/a", false},
		{"**/.env", ".env", true},
		{"**/.env", "a/b/.env", true},
		{"**/.env", "a/b/.env.local", false},
		{"**/.env*", "a/.env.local", true},
		{"src/a**b/x", "src/aXYb/x", true}, // ** inside a segment is *
		{"src/a**b/x", "src/a/b/x", false},
		{"*.pem", "key.pem", true},
		{"*.pem", "dir/key.pem", false},
		{"*", ".hidden", true},
		{"/etc/*", "/etc/passwd", true},
		{"/etc/*", "/etc/ssh/sshd_config", false},
		{"/etc/**", "/etc/ssh/sshd_config", true},
		{"/home/*/.ssh/**", "/home/me/.ssh/id_rsa", true},
		{"deploy/", "deploy", true},
		{"deploy/", "deploy/prod/x.yaml", true},
		{"deploy/", "deployer/x", false},
		{"**", "anything/at/all", true},
		{"**/**/x", "x", true},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/b/**/c", "a/x/y/b/z/c", true},
		{"a/**/b/**/c", "a/x/y/z/c", false},
		{"file?.txt", "file1.txt", true},
		{"file?.txt", "file/.txt", false},
		{"[a-c].txt", "b.txt", true},
		{`\*.txt`, "*.txt", true},
		{`\*.txt`, "a.txt", false},
		{"[", "[", false}, // malformed: matches nothing
		{"", "", true},
		{"a", "", false},
	} {
		if got := Match(c.pattern, c.name); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

func TestValidGlob(t *testing.T) {
	for p, want := range map[string]bool{"src/*.go": true, "**/x": true, "a/[": false, `x\`: false} {
		if got := ValidGlob(p); got != want {
			t.Errorf("ValidGlob(%q) = %v, want %v", p, got, want)
		}
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("src/**/*.go", "src/a/b.go")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		got := Match(pattern, name)
		// A pattern without ** agrees with path.Match segment by segment.
		if !containsDoubleStar(pattern) && ValidGlob(pattern) && len(pattern) > 0 && pattern[len(pattern)-1] != '/' {
			want := matchNoDoubleStar(pattern, name)
			if got != want {
				t.Fatalf("Match(%q, %q) = %v, want %v", pattern, name, got, want)
			}
		}
	})
}

func containsDoubleStar(p string) bool {
	for _, s := range splitSlash(p) {
		if s == "**" {
			return true
		}
	}
	return false
}

func splitSlash(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func matchNoDoubleStar(pattern, name string) bool {
	ps, ns := splitSlash(pattern), splitSlash(name)
	if len(ps) != len(ns) {
		return false
	}
	for i := range ps {
		if m, err := path.Match(ps[i], ns[i]); !m || err != nil {
			return false
		}
	}
	return true
}
