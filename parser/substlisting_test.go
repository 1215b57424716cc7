package parser_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rivumi/rivumi/parser"
)

// TestSubstListing: a reader of the paths a find or git ls-files in a
// command substitution prints reads the listing's roots (listed-args), and,
// on the machine, the secrets below them that the listing may print.
func TestSubstListing(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{".env", "main.go", "src/a.py"} {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		cmd    string
		listed bool // the first segment is tagged listed-args, not dynamic-args
		secret bool // and reads a secret below its roots
	}{
		{`grep -n x $(find src -name '*.py')`, true, false},
		{`cat "$(find . -name '*.go')"`, true, false},
		{`cat $(find .)`, true, true},
		{`cat $(git ls-files '*.go')`, true, false},
		{`cat $(git ls-files)`, true, true},
		{`cat $(git ls-files '.e*')`, true, true},
		{`wc -l $(git ls-files '*.go')`, false, false},
		{`cat $(find src) $X`, false, false},
		{`cat $(find src | sort)`, false, false},
		{`cat $(find src -delete)`, false, false},
		{`cat $(git ls-files --full-name)`, false, false},
		{`cat $(git ls-files 'src/*.py')`, false, false},
		{`sudo cat $(find src)`, false, false},
	} {
		c, err := parser.Parse(tc.cmd, parser.Workspace(ws), parser.Cwd(ws), parser.FollowSymlinks())
		if err != nil {
			t.Fatalf("%s: %v", tc.cmd, err)
		}
		s := c.Segments[0]
		if got := s.HasTag(parser.TagListedArgs) && !s.HasTag(parser.TagDynamicArgs); got != tc.listed {
			t.Errorf("%s: listed %v, want %v (tags %v)", tc.cmd, got, tc.listed, s.Tags)
		}
		secret := slices.ContainsFunc(s.Reads, func(o parser.Operand) bool { return o.Class == parser.ClassSecret })
		if secret != tc.secret {
			t.Errorf("%s: secret read %v, want %v (reads %+v)", tc.cmd, secret, tc.secret, s.Reads)
		}
	}
}
