package native

import (
	"io/fs"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/policies"
)

// destroyPatterns returns the two regex.match patterns of ops.destroy, read
// from packages.rego, so that a change there fails the tests below.
func destroyPatterns(t testing.TB) (ops, db *regexp.Regexp) {
	b, err := fs.ReadFile(policies.FS, "rules/packages.rego")
	if err != nil {
		t.Fatal(err)
	}
	var pats []string
	for _, part := range strings.Split(string(b), "regex.match(`")[1:] {
		pat, _, ok := strings.Cut(part, "`")
		if !ok {
			t.Fatal("packages.rego: a regex.match pattern without its closing backquote")
		}
		pats = append(pats, pat)
	}
	if len(pats) != 2 {
		t.Fatalf("packages.rego has %d regex.match patterns, want ops.destroy's 2: update opsDestroyWord and databaseDestroyWord", len(pats))
	}
	return regexp.MustCompile(pats[0]), regexp.MustCompile(pats[1])
}

// destroyInputs are words near the patterns' alternatives: case changes,
// the non-ASCII runes that fold to ASCII (ſ, the Kelvin sign), dashes,
// word and non-word neighbours, the spaces \s matches and those it does not.
func destroyInputs() []string {
	words := []string{
		"delete", "destroy", "remove", "rm", "rmi", "prune", "purge", "drop", "truncate", "terminate", "uninstall",
		"flushall", "flushdb", "kill", "wipe", "reset", "sync", "delete_all_x", "delete-ns", "remove-x-y", "delete_",
		"delete-", "remove-", "dropDatabase", "dropdatabase", "delete from", "delete \t\n\f\rfrom", "delete\vfrom",
		"deletefrom", "alter table", "alter  TABLE", "altertable", "deleted", "undelete", "select", "",
	}
	affixes := []string{"", "-", "--", "---", "x", "_", "1", " ", ";", "é", "ſ", "\u212a", "\xff", "(", "a b "}
	var out []string
	for _, w := range words {
		variants := []string{w, strings.ToUpper(w), strings.ReplaceAll(w, "s", "ſ"), strings.ReplaceAll(w, "k", "\u212a"),
			strings.ReplaceAll(w, "e", "é"), strings.ReplaceAll(w, "_", "-"), w + "s", w[:len(w)/2]}
		for _, v := range variants {
			for _, pre := range affixes {
				for _, post := range affixes {
					out = append(out, pre+v+post)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"d", "e", "l", "t", "r", "o", "p", "m", "f", "a", "b", "s", "k", "-", "_", " ", "\t", "ſ", "\u212a", "D", "E", "9"}
	for range 20000 {
		var sb strings.Builder
		for range r.IntN(14) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		out = append(out, sb.String())
	}
	return out
}

// TestOpsDestroyWords: the hand-written matchers match exactly what
// packages.rego's patterns match.
func TestOpsDestroyWords(t *testing.T) {
	ops, db := destroyPatterns(t)
	bad := 0
	for _, w := range destroyInputs() {
		if got, want := opsDestroyWord(w), ops.MatchString(w); got != want {
			bad++
			t.Errorf("opsDestroyWord(%q) = %v, the pattern says %v", w, got, want)
		}
		if got, want := databaseDestroyWord(w), db.MatchString(w); got != want {
			bad++
			t.Errorf("databaseDestroyWord(%q) = %v, the pattern says %v", w, got, want)
		}
		if bad > 20 {
			t.FailNow()
		}
	}
}

func FuzzDestroyWords(f *testing.F) {
	for _, w := range []string{"delete", "--rm", "delete_x", "DROP TABLE t", "delete\tfrom", "alter  table", "ſync", "\u212aill"} {
		f.Add(w)
	}
	ops, db := destroyPatterns(f)
	f.Fuzz(func(t *testing.T, w string) {
		if got, want := opsDestroyWord(w), ops.MatchString(w); got != want {
			t.Errorf("opsDestroyWord(%q) = %v, the pattern says %v", w, got, want)
		}
		if got, want := databaseDestroyWord(w), db.MatchString(w); got != want {
			t.Errorf("databaseDestroyWord(%q) = %v, the pattern says %v", w, got, want)
		}
	})
}
