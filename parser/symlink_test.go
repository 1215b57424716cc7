package parser

import (
	"strings"
	"testing"

	"github.com/rivumi/rivumi/internal/testtree"
)

// With FollowSymlinks an operand through a link carries the target and
// the stricter class; without it nothing on disk is looked at.
func TestFollowSymlinksOperands(t *testing.T) {
	dir := testtree.Root(t)
	ws, home := dir+"/ws", dir+"/home"
	testtree.Dirs(t, ws)
	testtree.Links(t, map[string]string{ws + "/notes.md": home + "/.bashrc", ws + "/rootlink": "/", ws + "/loop": "loop", ws + "/null": "/dev/null"})
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

// A workspace and home reached through links are resolved too, whichever
// path of the command is the first to pass through a link (they are
// resolved then, not before): a target is classed against where they are
// on disk.
func TestFollowSymlinksLinkedWorkspace(t *testing.T) {
	dir := testtree.Root(t)
	ws, home := dir+"/real/ws", dir+"/real/home"
	testtree.Dirs(t, ws+"/src", home+"/.ssh")
	testtree.Links(t, map[string]string{
		dir + "/ws": ws, dir + "/home": home, // the logical workspace and home
		ws + "/rc": home + "/.bashrc", ws + "/keys": home + "/.ssh", ws + "/back": ws + "/src", ws + "/up": dir + "/real",
	})
	opts := []Option{Cwd(dir + "/ws"), Workspace(dir + "/ws"), Home(dir + "/home"), FollowSymlinks()}
	for _, tc := range []struct {
		cmd                    string
		class, link, linkClass string
		first, firstLinkClass  string // the class of a plain path before it
	}{
		{"cat rc", ClassRC, "~/.bashrc", ClassWorkspace, "", ""},
		{"cat keys/id_rsa", ClassSSH, "~/.ssh/id_rsa", ClassSecret, "", ""},
		{"cat back/main.go", ClassWorkspace, "D/real/ws/src/main.go", ClassWorkspace, "", ""},
		{"cat up/home/.ssh/id_rsa", ClassSSH, "~/.ssh/id_rsa", ClassSSH, "", ""},
		{"cat src/a.go up/ws/src/a.go", ClassWorkspace, "D/real/ws/src/a.go", ClassWorkspace, ClassWorkspace, ClassWorkspace},
		{"cat D/real/ws/x D/ws/../home/.ssh/k", ClassSSH, "~/.ssh/k", ClassSSH, ClassTmp, ""},
	} {
		text, link := strings.ReplaceAll(tc.cmd, "D/", dir+"/"), strings.ReplaceAll(tc.link, "D/", dir+"/")
		cmd, err := Parse(text, opts...)
		if err != nil {
			t.Fatal(err)
		}
		ops := cmd.Segments[0].Reads
		o := ops[len(ops)-1]
		if o.Class != tc.class || o.Link != link || o.LinkClass != tc.linkClass {
			t.Errorf("%q: class %q link %q link_class %q, want %q %q %q", tc.cmd, o.Class, o.Link, o.LinkClass, tc.class, link, tc.linkClass)
		}
		if len(ops) > 1 && (ops[0].Class != tc.first || ops[0].LinkClass != tc.firstLinkClass) {
			t.Errorf("%q: first operand class %q link_class %q, want %q %q", tc.cmd, ops[0].Class, ops[0].LinkClass, tc.first, tc.firstLinkClass)
		}
	}
}
