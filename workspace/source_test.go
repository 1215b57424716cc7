package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/internal/gittest"
)

// A snapshot of the source repository sees every kind of change an agent
// could make to it, and nothing when nothing changed.
func TestSourceSnapshotDiff(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
		want   string // a substring of the differences ("" : none)
	}{
		{"nothing", func(*testing.T, string) {}, ""},
		{"tracked file edited", func(t *testing.T, dir string) { gittest.Write(t, dir, map[string]string{"a.txt": "changed\n"}) }, "tracked file changed: a.txt"},
		{"mode changed", func(t *testing.T, dir string) { os.Chmod(filepath.Join(dir, "a.txt"), 0o755) }, "tracked file changed: a.txt"},
		{"untracked file", func(t *testing.T, dir string) { gittest.Write(t, dir, map[string]string{"new.txt": "x"}) }, "git status changed"},
		{"staged", func(t *testing.T, dir string) {
			gittest.Write(t, dir, map[string]string{"b.txt": "b"})
			gittest.Git(t, dir, "add", "b.txt")
		}, "the index changed"},
		{"committed", func(t *testing.T, dir string) { gittest.Commit(t, dir, map[string]string{"c.txt": "c"}, "more") }, "HEAD moved"},
		{"branch switched", func(t *testing.T, dir string) { gittest.Git(t, dir, "checkout", "-q", "-b", "other") }, "HEAD's branch changed"},
		{"file deleted", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "a.txt")) }, "tracked file changed: a.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := gittest.Repo(t, map[string]string{"a.txt": "a\n", "sub/d.txt": "d\n"})
			before, err := workspace.Snapshot(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(t, dir)
			after, err := workspace.Snapshot(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			diff := strings.Join(before.Diff(after), "\n")
			if tc.want == "" && diff != "" || tc.want != "" && !strings.Contains(diff, tc.want) {
				t.Errorf("differences:\n%s\nwant %q", diff, tc.want)
			}
		})
	}
}
