package parser

import (
	"path"
	"strings"
	"testing"
)

// containsDir is the reference dirSet.within is checked against: a padded
// substring search of each name.
func containsDir(dirs []string, lower string) bool {
	padded := "/" + lower + "/"
	for _, d := range dirs {
		if strings.Contains(padded, "/"+strings.ToLower(d)+"/") {
			return true
		}
	}
	return false
}

func TestDirSetMatchesSubstringSearch(t *testing.T) {
	parts := []string{"", ".aws", ".config", "gcloud", "gh", "var", "run", "secrets", "library", "keychains",
		".github", "workflows", "actions", "x", ".m2", "settings.xml", "a.aws", ".awsx", ".circleci", "cli.yml",
		".local", "share", "keyrings", ".gitlab", ".forgejo", "v", "r", "l", "."}
	const top = 3 // every name has at most three components
	if secretDirSet.maxSlash >= top || ciDirSet.maxSlash >= top {
		t.Fatal("a name has more components than the paths tried")
	}
	n := 0
	var walk func(prefix string, depth int)
	walk = func(prefix string, depth int) {
		for _, set := range []struct {
			d    *dirSet
			dirs []string
		}{{secretDirSet, secretDirs}, {ciDirSet, ciDirs}} {
			if got, want := set.d.within(prefix), containsDir(set.dirs, prefix); got != want {
				t.Fatalf("within(%q) = %v, substring search says %v", prefix, got, want)
			}
		}
		n++
		if depth == 0 {
			return
		}
		for _, p := range parts {
			next := p
			if depth < top {
				next = prefix + "/" + p
			}
			walk(next, depth-1)
		}
	}
	walk("", top)
	if n < 10000 {
		t.Fatalf("only %d paths tried", n)
	}
}

// TestNameClassCase pins that names are matched whatever their case (macOS
// and Windows file systems fold it), including a non-ASCII K that
// lower-cases to k.
func TestNameClassCase(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/home/u/.aws/credentials", ClassSecret},
		{"/home/u/.AWS/credentials", ClassSecret},
		{"/home/u/.Aws", ClassSecret},
		{"/home/u/.aws", ClassSecret},
		{"home/u/.Config/GCloud/x", ClassSecret},
		{"/home/u/.config/gcloudx/x", ""},
		{"/home/u/a.aws/x", ""},
		{"/home/u/.\u212Aube/config", ClassSecret}, // KELVIN SIGN lower-cases to k
		{"/var/run/secrets/token", ClassSecret},
		{"/VAR/RUN/Secrets", ClassSecret},
		{"/srv/run/secrets/token", ClassSecret},
		{"/srv/run//secrets/token", ""},
		{"/Users/u/Library/Keychains/login.keychain-db", ClassSecret},
		{"/Users/u/library/keychains", ClassSecret},
		{"/w/.github/workflows/ci.yml", ClassCI},
		{"/w/.GitHub/Workflows/ci.yml", ClassCI},
		{"/w/.github/workflowsx/ci.yml", ""},
		{"/w/.circleci", ClassCI},
		{"/w/.CircleCI/config.yml", ClassCI},
		{"/w/.github", ClassCI},
		{"/w/.GITHUB", ClassCI},
		{"/w/.git/config", ClassGit},
		{"/w/.GIT/config", ClassGit},
		{"/w/.SSH/id_rsa", ClassSSH},
		{"/w/src/main.go", ""},
		{"", ""},
		{"/", ""},
	} {
		if got := nameClass(c.path); got != c.want {
			t.Errorf("nameClass(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

func TestInDir(t *testing.T) {
	for _, p := range []string{"", "/", "/a", "/a/", "/a/b", "/ab", "a", "a/", "//", "/a//b"} {
		for _, d := range []string{"", "/", "/a", "/a/", "a", "/ab", "//"} {
			if got, want := inDir(p, d), strings.HasPrefix(p, d+"/"); got != want {
				t.Errorf("inDir(%q, %q) = %v, want %v", p, d, got, want)
			}
		}
	}
}

// TestGlobMatchIsPathMatch checks globMatch's shortcut for a star and a
// literal against path.Match itself, over the special names and names
// that end, or nearly end, in the literals.
func TestGlobMatchIsPathMatch(t *testing.T) {
	pats := []string{"*", "*.go", "*.pem", "*.env", "*-key.json", "*rc", "*.", "*/x", "*a/b", `*\*`, `*\.pem`,
		"*[.]pem", "*?", "**", "*.*", "id_*", "*.p?m", "*[!a]", "*.tar.gz", ".*", "*.PEM", "*é"}
	names := append([]string{"", "x", "a.go", "go", ".go", "x.go.bak", "dir/a.go", "a/b", "xa/b", "x/x", "*", "k.pem",
		"*.pem", ".pem", "a.PEM", "café", "cafe", "x-key.json", ".bashrc", "a.tar.gz", "a."}, specialNames()...)
	for _, pat := range pats {
		for _, name := range names {
			want, _ := path.Match(pat, name)
			if got := globMatch(pat, name); got != want {
				t.Errorf("globMatch(%q, %q) = %v, path.Match says %v", pat, name, got, want)
			}
		}
	}
}

// TestHasBrace checks hasBrace against strings.ContainsAny(s, "{}"),
// invalid UTF-8 around the braces included.
func TestHasBrace(t *testing.T) {
	for _, s := range []string{"", "{", "}", "a{b", "x}", "ls", "\xff{", "\xe2\x82{", "é}", "\xff\xfe", "{a,b}"} {
		if got, want := hasBrace(s), strings.ContainsAny(s, "{}"); got != want {
			t.Errorf("hasBrace(%q) = %v, want %v", s, got, want)
		}
	}
}
