package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTreeSecrets: a search that prints the contents of a tree reads the
// secrets in it, when the disk is looked at; names, counts, filters and
// hidden-file rules that keep the secret out do not.
func TestTreeSecrets(t *testing.T) {
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	for _, f := range []string{"ws/.env", "ws/src/a.go", "ws/keys/server.pem", "ws/clean/b.go", "ws/clean/.hidden/x", "home/.ssh/id_rsa"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("KEY=1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(ws, "clean", "sshlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "keys"), filepath.Join(ws, "keylink")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cmd    string
		secret string // a secret read the segment must carry ("" for none)
	}{
		{"grep -r KEY .", ".env"},
		{"grep -rn KEY keys", "server.pem"},
		{"grep KEY -r", ".env"},
		{"grep -d recurse KEY clean", ""},
		{"grep -r KEY clean", ""},             // links below the root are not followed
		{"grep -R KEY clean", "sshlink"},      // -R follows them
		{"grep -r KEY keylink", "server.pem"}, // a link named as the root is followed
		{"grep -rl KEY .", ""},                // names only
		{"grep -rc KEY .", ""},                // counts
		{"grep -r --include=*.go KEY .", ""},
		{"grep -r --exclude=*.pem --exclude=.env KEY .", ""},
		{"grep -r --exclude-dir=keys --exclude=.env KEY .", ""},
		{"grep KEY .env.example src/a.go", ""}, // no recursion
		{"rg KEY", "server.pem"},               // .env is hidden: skipped; the .pem is not
		{"rg KEY src clean", ""},
		{"rg --hidden KEY src .", ".env"},
		{"rg -uu KEY", ".env"},
		{"find . -type f -exec grep KEY {} +", ".env"},
		{"find . -name '*.go' -exec grep KEY {} +", ""},
		{"find . ! -name '*.go' -exec cat {} +", ".env"},
		{"find clean -type f | xargs grep KEY", ""},
		{"find . -type f -print0 | xargs -0 cat", ".env"},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			cmd, err := Parse(c.cmd, Cwd(ws), Workspace(ws), Home(home), FollowSymlinks())
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, s := range cmd.Segments {
				for _, r := range s.Reads {
					if secretPlace[r.Class] && r.Dynamic {
						found = append(found, r.Text)
					}
				}
			}
			got := strings.Join(found, " ")
			if c.secret == "" && got != "" || c.secret != "" && !strings.Contains(got, c.secret) {
				t.Errorf("secret read %q, want %q", got, c.secret)
			}
			// Without the disk, nothing is looked at.
			cmd, _ = Parse(c.cmd, Cwd(ws), Workspace(ws), Home(home))
			for _, s := range cmd.Segments {
				for _, r := range s.Reads {
					if strings.Contains(r.Text, "server.pem") || strings.Contains(r.Text, "id_rsa") {
						t.Errorf("without FollowSymlinks: read %q", r.Text)
					}
				}
			}
		})
	}
}

// TestTreeSecretsLimit: a tree too large to look at counts as holding a
// secret.
func TestTreeSecretsLimit(t *testing.T) {
	defer func(n int) { treeWalkLimit = n }(treeWalkLimit)
	treeWalkLimit = 500
	ws := t.TempDir()
	for i := range treeWalkLimit/100 + 2 {
		d := filepath.Join(ws, "d"+strings.Repeat("x", i%7), string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676)))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := range 100 {
			if err := os.WriteFile(filepath.Join(d, "f"+string(rune('a'+j%26))+string(rune('a'+j/26))), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd, err := Parse("grep -r KEY .", Cwd(ws), Workspace(ws), FollowSymlinks())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cmd.Segments[0].Reads {
		if r.Class == ClassSecret && strings.Contains(r.Text, "not all looked at") {
			return
		}
	}
	t.Errorf("reads %+v: want the cut-short tree as a secret read", cmd.Segments[0].Reads)
}
