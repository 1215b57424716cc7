package pathpolicy_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/workspace/pathpolicy"
)

func TestClean(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "a/b.go", want: "a/b.go"},
		{in: "./a//b/", want: "a/b"},
		{in: ".", want: "."},
		{in: "a/.gitignore", want: "a/.gitignore"},
		{in: ".github/x.yml", want: ".github/x.yml"},
		{in: "", err: "empty"},
		{in: "a\x00b", err: "NUL"},
		{in: `a\b`, err: "backslash"},
		{in: `..\x`, err: "backslash"},
		{in: "/etc/passwd", err: "absolute"},
		{in: "//host/share", err: "absolute"},
		{in: "C:", err: "Windows"},
		{in: "c:/x", err: "Windows"},
		{in: "./A:", err: "Windows"},
		{in: ".//z:/x", err: "Windows"},
		{in: "../x", err: `".."`},
		{in: "a/../../x", err: `".."`},
		{in: "a/..", err: `".."`},
		{in: ".git/config", err: ".git"},
		{in: "sub/.git/hooks/pre-commit", err: ".git"},
		{in: "a/.GIT/config", err: ".git"},
		{in: ".git", err: ".git"},
		{in: "a/" + strings.Repeat("n", 255), want: "a/" + strings.Repeat("n", 255)},
		{in: "a/" + strings.Repeat("n", 256), err: "a name longer than 255 bytes"},
		{in: strings.Repeat("d/", 1536), want: strings.Repeat("d/", 1535) + "d"},
		{in: strings.Repeat("d/", 1537), err: "longer than 3072 bytes"},
	}
	for _, tt := range tests {
		got, err := pathpolicy.Clean(tt.in)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("Clean(%q): %v", tt.in, err)
		case tt.err == "" && got != tt.want:
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || !pathpolicy.IsRefusal(err)):
			t.Errorf("Clean(%q) = %q, %v; want a refusal mentioning %q", tt.in, got, err, tt.err)
		}
	}
}

func TestPatterns(t *testing.T) {
	tests := []struct {
		pat   string
		norm  string
		match []string
		miss  []string
	}{
		{pat: "src/**", norm: "src/**", match: []string{"src", "src/a.go", "src/a/b/c.go"}, miss: []string{"srcx/a.go", "lib/src/a.go"}},
		{pat: "./src//*.go", norm: "src/*.go", match: []string{"src/a.go"}, miss: []string{"src/a/b.go", "src/a.txt"}},
		{pat: "src/**.go", norm: "src/**.go", match: []string{"src/a.go"}, miss: []string{"src/a/b.go"}},
		{pat: "**/*_test.go", norm: "**/*_test.go", match: []string{"x_test.go", "a/b/x_test.go"}, miss: []string{"a/x.go"}},
		{pat: "a/**/**/b", norm: "a/**/b", match: []string{"a/b", "a/x/y/b"}, miss: []string{"a/x/c"}},
		{pat: "docs/?.md", norm: "docs/?.md", match: []string{"docs/a.md"}, miss: []string{"docs/ab.md", "docs/a/b.md"}},
		{pat: "*", norm: "*", match: []string{"README"}, miss: []string{"a/b"}},
	}
	for _, tt := range tests {
		p, err := pathpolicy.ParsePattern(tt.pat)
		if err != nil {
			t.Errorf("ParsePattern(%q): %v", tt.pat, err)
			continue
		}
		if p.String() != tt.norm {
			t.Errorf("ParsePattern(%q) = %q, want %q", tt.pat, p, tt.norm)
		}
		for _, m := range tt.match {
			if !p.Match(m) {
				t.Errorf("%q should match %q", tt.pat, m)
			}
		}
		for _, m := range tt.miss {
			if p.Match(m) {
				t.Errorf("%q should not match %q", tt.pat, m)
			}
		}
	}
	for _, bad := range []string{"", "/abs/**", "C:/x", "../x", "a/../b", "src/", "a\x00", `a\b`, ".git/**", "a/[", "."} {
		if _, err := pathpolicy.ParsePattern(bad); err == nil {
			t.Errorf("ParsePattern(%q) accepted", bad)
		}
	}
	if _, err := pathpolicy.ParsePatterns([]string{"ok/**", "bad/"}); err == nil || !strings.Contains(err.Error(), "allowed_paths[1]") {
		t.Errorf("ParsePatterns error %v does not name the index", err)
	}
}

// tree makes a workspace with a file, a directory, a symlink inside, two
// symlinks out (file and directory), a dangling one and one into .git.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{root + "/src/deep", root + "/.git", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, s := range map[string]string{root + "/src/a.go": "a", root + "/README": "r", root + "/.git/config": "c", outside + "/secret": "s"} {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		root + "/in": "src/a.go", root + "/outfile": outside + "/secret", root + "/outdir": outside,
		root + "/dangling": "nowhere/x", root + "/gitlink": ".git", root + "/src/up": "..", root + "/src/up2": "../..",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestResolve(t *testing.T) {
	root, _ := tree(t)
	allowed, _ := pathpolicy.ParsePatterns([]string{"src/**", "README", "new/**", "in", "outdir/**", "dangling/**"})
	p, err := pathpolicy.New(root, allowed)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path   string
		access pathpolicy.Access
		err    string // "" = allowed
	}{
		{"src/a.go", pathpolicy.Read, ""},
		{"src/a.go", pathpolicy.Write, ""},
		{"src/new/file.go", pathpolicy.Write, ""},
		{"new/dir/x", pathpolicy.Write, ""},
		{"in", pathpolicy.Read, ""},
		{"in", pathpolicy.Write, "symlink"},
		{"README", pathpolicy.Write, ""},
		{"docs/x.md", pathpolicy.Write, "allowed paths"},
		{"docs/x.md", pathpolicy.Read, ""},
		{"outfile", pathpolicy.Read, "outside"},
		{"outdir/secret", pathpolicy.Read, "outside"},
		{"outdir/new", pathpolicy.Write, "outside"},
		{"dangling", pathpolicy.Read, "dangling"},
		{"dangling/x", pathpolicy.Write, "dangling"},
		{"gitlink/config", pathpolicy.Read, ".git"},
		{"src/up/README", pathpolicy.Read, ""},
		{"src/up/README", pathpolicy.Write, "passes through a symlink"},
		{"src/up/src/new.go", pathpolicy.Write, "passes through a symlink"},
		{"src/up", pathpolicy.Read, ""},
		{"src/up2/outside/secret", pathpolicy.Read, "outside"},
		{".", pathpolicy.Read, ""},
		{".", pathpolicy.Write, "root"},
	}
	for _, tt := range tests {
		_, abs, err := p.Resolve(tt.path, tt.access)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("Resolve(%q, %v): %v", tt.path, tt.access, err)
		case tt.err == "" && !strings.HasPrefix(abs, p.Root()):
			t.Errorf("Resolve(%q) = %q, outside %q", tt.path, abs, p.Root())
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Resolve(%q, %v) = %v, want an error mentioning %q", tt.path, tt.access, err, tt.err)
		}
	}
}

func TestResolveRootThroughSymlink(t *testing.T) {
	root, _ := tree(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	p, err := pathpolicy.New(link, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Resolve("src/a.go", pathpolicy.Read); err != nil {
		t.Errorf("a root given through a symlink refuses its own files: %v", err)
	}
	if _, _, err := p.Resolve("outfile", pathpolicy.Read); err == nil {
		t.Error("an escape is allowed when the root is a symlink")
	}
}

func TestWalkNeverFollowsSymlinks(t *testing.T) {
	root, _ := tree(t)
	p, err := pathpolicy.New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	err = p.Walk(".", func(rel string, d fs.DirEntry) error {
		seen = append(seen, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"README", "dangling", "gitlink", "in", "outdir", "outfile", "src", "src/a.go", "src/deep", "src/up", "src/up2"}
	if !slices.Equal(seen, want) {
		t.Errorf("Walk = %q, want %q", seen, want)
	}
	if err := p.Walk("outdir", func(string, fs.DirEntry) error { return nil }); err == nil {
		t.Error("Walk into a symlinked directory allowed")
	}
}

// MayHoldWritable: whether a directory can hold a path some pattern
// matches; never beneath .git or for a name Clean would rewrite.
func TestMayHoldWritable(t *testing.T) {
	tests := []struct {
		patterns []string
		dir      string
		want     bool
	}{
		{nil, "anything", true},
		{[]string{"src/**"}, ".", true},
		{[]string{"src/**"}, "src", true},
		{[]string{"src/**"}, "src/deep/er", true},
		{[]string{"src/**"}, "docs", false},
		{[]string{"src/**"}, "srcx", false},
		{[]string{"greeting.txt"}, "notes", false},
		{[]string{"a/b"}, "a", true},
		{[]string{"a/b"}, "a/b", false},
		{[]string{"*.md"}, "docs", false},
		{[]string{"*/README.md"}, "docs", true},
		{[]string{"**/x.txt"}, "any/where", true},
		{[]string{"**"}, ".git", false},
		{[]string{"**"}, "a/../b", false},
		{[]string{"docs/**", "greeting.txt"}, "docs/a", true},
	}
	for _, tt := range tests {
		pats, err := pathpolicy.ParsePatterns(tt.patterns)
		if err != nil {
			t.Fatal(err)
		}
		p, err := pathpolicy.New(t.TempDir(), pats)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.MayHoldWritable(tt.dir); got != tt.want {
			t.Errorf("%v: MayHoldWritable(%q) = %v, want %v", tt.patterns, tt.dir, got, tt.want)
		}
	}
}
