package parser_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/parser"
)

// TestGlobReadings: a glob in command position is matched on disk when
// grading on the machine, and each match is graded as the program in a
// reading below the segment, which keeps its unknown program.
func TestGlobReadings(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"bin/rm", "bin/ls", "bin/.rx", "sbin/rm", "lib/rm/x", "one/zap"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		cmd    string
		follow bool
		want   []string // the readings' argv, joined by spaces
	}{
		{"R/b?n/r? -rf /", true, []string{"R/bin/rm -rf /"}},
		// The last part may be a directory (bash lists it; running it fails).
		{"R/*/rm -rf /", true, []string{"R/bin/rm R/lib/rm R/sbin/rm -rf /", "R/lib/rm R/bin/rm R/sbin/rm -rf /", "R/sbin/rm R/bin/rm R/lib/rm -rf /"}},
		{"R/bin/[!l]? x", true, []string{"R/bin/rm x"}},
		{"R/bin/r[m] x", true, []string{"R/bin/rm x"}},
		{"R/bin/?rx x", true, nil}, // a dot file is matched only by a leading dot
		{"R/bin/.r? x", true, []string{"R/bin/.rx x"}},
		{"R/o*/z?p", true, []string{"R/one/zap"}},
		{"R/none/r? x", true, nil},
		{"R/b?n/r? -rf /", false, nil}, // pure-text grading reads no disk
		{"./b?n/r? -rf /", true, []string{"bin/rm -rf /"}},
		{"R/bin/[[:alpha:]]s x", true, nil},
		{"shopt -s dotglob; R/bin/?rx x", true, nil},
	} {
		cmd := strings.ReplaceAll(tc.cmd, "R/", root+"/")
		opts := []parser.Option{parser.Workspace(root), parser.Cwd(root)}
		if tc.follow {
			opts = append(opts, parser.FollowSymlinks())
		}
		c, err := parser.Parse(cmd, opts...)
		if err != nil {
			t.Fatalf("%q: %v", tc.cmd, err)
		}
		var got []string
		for _, s := range c.Segments[1:] {
			// Only the readings of a match (the rest of the words are also
			// read as a command of their own, an older reading).
			if s.Kind == parser.KindExec && s.Parent == 0 && (strings.HasPrefix(s.Argv[0], root) || strings.HasPrefix(s.Argv[0], "bin/")) {
				got = append(got, strings.ReplaceAll(strings.Join(s.Argv, " "), root+"/", "R/"))
			}
		}
		want := tc.want
		if !slices.Equal(got, want) {
			t.Errorf("%q: readings %q, want %q", tc.cmd, got, want)
		}
		if first := c.Segments[0]; len(want) > 0 && !first.HasTag(parser.TagDynamicProgram) {
			t.Errorf("%q: the segment's program is known (%q): a reading must not replace it", tc.cmd, first.Argv)
		}
	}
}
