package parser

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// With FollowSymlinks an operand through a link carries the target and
// the stricter class; without it nothing on disk is looked at.
func TestFollowSymlinksOperands(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks are not resolved on Windows")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, home := dir+"/ws", dir+"/home"
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"notes.md": home + "/.bashrc", "rootlink": "/", "loop": "loop", "null": "/dev/null"} {
		if err := os.Symlink(target, ws+"/"+link); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		cmd, class, link, linkClass string
		write                       bool
	}{
		{"echo x >> notes.md", ClassRC, "~/.bashrc", ClassWorkspace, true},
		{"cat rootlink/etc/shadow", ClassCredentials, "/etc/shadow", ClassWorkspace, false},
		{"cat loop", ClassDynamic, "?", ClassDynamic, false},
		{"echo x > null", ClassWorkspace, "/dev/null", ClassNull, true},
		{"cat plain.txt", ClassWorkspace, "", "", false},
	} {
		for _, follow := range []bool{false, true} {
			opts := []Option{Cwd(ws), Workspace(ws), Home(home)}
			if follow {
				opts = append(opts, FollowSymlinks())
			}
			cmd, err := Parse(tc.cmd, opts...)
			if err != nil {
				t.Fatal(err)
			}
			ops := cmd.Segments[0].Reads
			if tc.write {
				ops = cmd.Segments[0].Writes
			}
			if len(ops) != 1 {
				t.Fatalf("%q: operands %+v", tc.cmd, ops)
			}
			o := ops[0]
			want := Operand{Class: ClassWorkspace}
			if follow {
				want = Operand{Class: tc.class, Link: tc.link, LinkClass: tc.linkClass}
			}
			if o.Class != want.Class || o.Link != want.Link || o.LinkClass != want.LinkClass {
				t.Errorf("%q follow=%v: class %q link %q link_class %q, want %q %q %q", tc.cmd, follow,
					o.Class, o.Link, o.LinkClass, want.Class, want.Link, want.LinkClass)
			}
		}
	}
}
