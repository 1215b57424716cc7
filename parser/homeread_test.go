package parser

import "testing"

// Reading the contents of a file in a home directory outside the workspace
// is tagged home-read; listings, metadata, patterns and public files are not.
func TestHomeRead(t *testing.T) {
	for _, tc := range []struct {
		cmd    string
		tagged bool
	}{
		{"cat ~/.claude/stats-cache.json", true},
		{"head -1 ~/.claude/projects/x/*.jsonl", true},
		{"cat < ~/notes.txt", true},
		{"grep -f ~/pats src/a.py", true},
		{"cat /home/jim/x", true},
		{"cat /Users/jim/x", true},
		{"cat /root/x", true},
		{"cat /c/Users/jim/x", true},
		{"cat /mnt/c/Users/jim/x", true},
		{"cd ~/other && cat x", true},
		{"cat ~", true},
		{"cat ~/.ssh/id_rsa.pub", false},
		{"cat ~/.ssh/known_hosts", false},
		{"cat ~/proj/a.py", false},
		{"cat /home/dev/proj/a.py", false},
		{"cat a.py", false},
		{"ls -la ~/.claude", false},
		{"stat ~/x", false},
		{"find ~/x -name y", false},
		{"tree ~/x", false},
		{"grep -rn ~/x src", false},
		{"cat /etc/os-release", false},
		{"cat /homework/x", false},
		{"cat /home", false},
	} {
		cmd, err := Parse(tc.cmd, Cwd("/home/dev/proj"), Workspace("/home/dev/proj"), Home("/home/dev"))
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, s := range cmd.Segments {
			got = got || s.HasTag(TagHomeRead)
		}
		if got != tc.tagged {
			t.Errorf("%q: home-read %v, want %v", tc.cmd, got, tc.tagged)
		}
	}
}

// Public files are classed public as reads only; as writes they keep
// their protected class.
func TestPublicReadClass(t *testing.T) {
	for _, tc := range []struct{ cmd, read, write string }{
		{"cat ~/.ssh/id_rsa.pub", ClassPublic, ""},
		{"cat ~/.ssh/*.pub", ClassPublic, ""},
		{"cat ~/.ssh/id_rsa", ClassSSH, ""},
		{"cat ~/.ssh/config", ClassSSH, ""},
		{"cat ~/.ssh/*", ClassSSH, ""},
		{"cp x ~/.ssh/known_hosts", ClassWorkspace, ClassSSH},
	} {
		cmd, err := Parse(tc.cmd, Cwd("/home/dev/proj"), Workspace("/home/dev/proj"), Home("/home/dev"))
		if err != nil {
			t.Fatal(err)
		}
		s := cmd.Segments[0]
		if s.Reads[0].Class != tc.read {
			t.Errorf("%q: read class %q, want %q", tc.cmd, s.Reads[0].Class, tc.read)
		}
		if tc.write != "" && s.Writes[0].Class != tc.write {
			t.Errorf("%q: write class %q, want %q", tc.cmd, s.Writes[0].Class, tc.write)
		}
	}
}

// With home as the workspace, home's hidden directories stay private.
func TestHomeReadWorkspaceIsHome(t *testing.T) {
	for _, tc := range []struct {
		cmd    string
		tagged bool
	}{
		{"cat ~/.claude/projects/x.jsonl", true},
		{"cat .config/gh/hosts.yml", true},
		{"cat notes.txt", false},
		{"cat src/a.py", false},
	} {
		cmd, err := Parse(tc.cmd, Cwd("/home/dev"), Workspace("/home/dev"), Home("/home/dev"))
		if err != nil {
			t.Fatal(err)
		}
		if got := cmd.Segments[0].HasTag(TagHomeRead); got != tc.tagged {
			t.Errorf("%q: home-read %v, want %v", tc.cmd, got, tc.tagged)
		}
	}
}
