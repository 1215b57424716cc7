package programs

import "testing"

// TestVersionedIsNecessary pins that Lookup's quick test rejects no name
// either version expression matches.
func TestVersionedIsNecessary(t *testing.T) {
	alphabet := []string{"", "a", "p", "z", "0", "3", "9", ".", "-", "_", " ", "A", "x"}
	var try func(n string, depth int)
	try = func(n string, depth int) {
		if !versioned(n) {
			if m := versionSuffix().FindStringIndex(n); m != nil && m[0] != 0 {
				t.Fatalf("versioned(%q) = false, yet versionSuffix matches", n)
			}
			if versionInfix().MatchString(n) {
				t.Fatalf("versioned(%q) = false, yet versionInfix matches", n)
			}
		}
		if depth == 0 {
			return
		}
		for _, c := range alphabet {
			try(n+c, depth-1)
		}
	}
	try("", 5)
	for _, n := range []string{"python3.12", "php8.2-cgi", "php-cgi8.2", "node18", "lua5.4", "pypy3.10"} {
		if !versioned(n) {
			t.Errorf("versioned(%q) = false", n)
		}
	}
}
