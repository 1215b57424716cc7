package native

import (
	"regexp"
	"testing"

	"github.com/rivumi/rivumi/parser"
)

// The regexps of fs.rego that fs.go replaces with string scans, as oracles.
var (
	regoHistory   = regexp.MustCompile(`(^|/)\.(bash|zsh|sh|python|node_repl|psql|mysql)_?history$`)
	regoGlobWild  = regexp.MustCompile(`[*?]`)
	regoGlobLit   = regexp.MustCompile(`[^*?.]`)
	regoGlobNoOpt = regexp.MustCompile(`[^*?=\-IRcdefinoprstuv]`)
)

// regoNarrowGlob is narrow_glob(t) as fs.rego writes it.
func regoNarrowGlob(t string) bool {
	last := t
	for i := len(t) - 1; i >= 0; i-- {
		if t[i] == '/' {
			last = t[i+1:]
			break
		}
	}
	last = bracketExpr().ReplaceAllString(last, "")
	return regoGlobWild.MatchString(last) && regoGlobLit.MatchString(last) && regoGlobNoOpt.MatchString(last)
}

var fsStringCases = []string{
	"", "history", ".history", ".bash_history", ".bashhistory", "/home/u/.bash_history", "~/.zsh_history",
	"a/.sh_history", "a.sh_history", "x/.bash__history", ".python_history", ".node_repl_history",
	".node_replhistory", ".psql_history", ".mysql_history", ".mysql_history\n", "a\n.bash_history",
	"/.ksh_history", "._history", ".bash_history/x", "//.zsh_history", ".bash_.bash_history",
	"*", "*.*", "*.pyc", "test_*.py", "[!.]*", "a/*.pyc", "a/*", "*.o/x*", "-rf*", "*-rf", "?", "??.",
	"*[abc]", "[a]*b", "[*]x", "[]]*", "[", "[*", "*[", "*[x", "*[x]y]", "*é", "\xff*", "d*", "*=", "*R?I",
	"x[/]*", "[a]/[b]*c", "*\n", "[\n]*z",
}

func TestHistoryFileMatchesRego(t *testing.T) {
	for _, p := range fsStringCases {
		if got, want := historyFile(p), regoHistory.MatchString(p); got != want {
			t.Errorf("historyFile(%q) = %v, the Rego regexp %v", p, got, want)
		}
	}
}

func TestNarrowGlobMatchesRego(t *testing.T) {
	for _, g := range fsStringCases {
		if got, want := narrowGlob(g), regoNarrowGlob(g); got != want {
			t.Errorf("narrowGlob(%q) = %v, the Rego %v", g, got, want)
		}
	}
	for g, want := range map[string]bool{"*.pyc": true, "test_*.py": true, "*": false, "*.*": false, "[!.]*": false, "-rf*": false,
		// A planted --recursive (or --rec, --no-preserve-root) must not match.
		"*ive": false, "*rec*": false, "--r*": false, "*root": false, "*_test.go": true, "*~": true, "build_*": true} {
		if got := narrowGlob(g); got != want {
			t.Errorf("narrowGlob(%q) = %v, want %v", g, got, want)
		}
	}
}

func FuzzFsStrings(f *testing.F) {
	for _, s := range fsStringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := historyFile(s), regoHistory.MatchString(s); got != want {
			t.Errorf("historyFile(%q) = %v, the Rego regexp %v", s, got, want)
		}
		if got, want := narrowGlob(s), regoNarrowGlob(s); got != want {
			t.Errorf("narrowGlob(%q) = %v, the Rego %v", s, got, want)
		}
	})
}

// BenchmarkFsRules is the cost of every fs.go rule on one segment of a
// mix of commands.
func BenchmarkFsRules(b *testing.B) {
	t := generatedTables()
	var segs []*Seg
	for _, c := range []string{"ls -la", "git status", "rm -f *.pyc", "chmod +x run.sh", "grep -r TODO src", "echo x > out.txt", "cat ~/.bashrc", "HISTSIZE=0 ls"} {
		cmd, err := parser.Parse(c, parser.Workspace("/work/proj"), parser.Cwd("/work/proj"), parser.Home("/home/dev"))
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range cmd.Segments {
			segs = append(segs, NewSeg(s))
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; b.Loop(); i++ {
		s := segs[i%len(segs)]
		for _, r := range fsRules {
			if r.Match(s, t) {
				n++
			}
		}
	}
	if n == 0 {
		b.Fatal("no fs rule held on any segment")
	}
}
