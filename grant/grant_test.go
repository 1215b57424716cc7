package grant_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/programs"
	"github.com/rivumi/rivumi/verdict"
)

func mkGrant(prefix string, rules ...string) verdict.Grant {
	if len(rules) == 0 {
		rules = []string{"r.ask"}
	}
	return verdict.Grant{Prefix: strings.Fields(prefix), Rules: rules}
}

func TestCheckGrant(t *testing.T) {
	tests := []struct {
		g  verdict.Grant
		ok bool
	}{
		{mkGrant("npm install"), true},
		{mkGrant("go test"), true},
		{mkGrant("make"), true},
		{mkGrant("git commit"), true},
		{mkGrant("/usr/bin/npm install"), true},
		{mkGrant("cargo build"), true},
		// Programs that run anything.
		{mkGrant("bash"), false}, {mkGrant("sh -c"), false}, {mkGrant("zsh"), false}, {mkGrant("dash"), false},
		{mkGrant("ksh"), false}, {mkGrant("fish"), false}, {mkGrant("python"), false}, {mkGrant("python3"), false},
		{mkGrant("python3.12 -m"), false}, {mkGrant("node"), false}, {mkGrant("perl"), false}, {mkGrant("ruby"), false},
		{mkGrant("php"), false}, {mkGrant("env"), false}, {mkGrant("/usr/bin/env FOO=1"), false}, {mkGrant("sudo"), false},
		{mkGrant("doas"), false}, {mkGrant("su"), false}, {mkGrant("xargs"), false}, {mkGrant("parallel"), false},
		{mkGrant("eval"), false}, {mkGrant("exec"), false}, {mkGrant("command"), false}, {mkGrant("builtin"), false},
		{mkGrant("busybox"), false}, {mkGrant("find"), false}, {mkGrant("nohup"), false}, {mkGrant("timeout"), false},
		{mkGrant("nice"), false}, {mkGrant("watch"), false}, {mkGrant("ssh"), false}, {mkGrant("npx"), false},
		{mkGrant("awk"), false},
		// Issue 12: every interpreter, whatever its name, case or version suffix.
		{mkGrant("ipython"), false}, {mkGrant("ipython3"), false}, {mkGrant("ts-node"), false}, {mkGrant("tsx"), false},
		{mkGrant("zx"), false}, {mkGrant("guile"), false}, {mkGrant("racket"), false}, {mkGrant("sbcl"), false},
		{mkGrant("erl"), false}, {mkGrant("elixir"), false}, {mkGrant("groovy"), false}, {mkGrant("php-cgi"), false},
		{mkGrant("php-cgi8.2"), false}, {mkGrant("php8.2-cgi"), false}, {mkGrant("lua5.4"), false}, {mkGrant("luajit"), false},
		{mkGrant("pypy3.10"), false}, {mkGrant("python3.12"), false}, {mkGrant("node18"), false}, {mkGrant("Rscript"), false},
		{mkGrant("R"), false}, {mkGrant("pwsh"), false}, {mkGrant("pwsh.exe"), false}, {mkGrant("osascript"), false},
		{mkGrant("/usr/bin/python3.11"), false}, {mkGrant("ruby3.2"), false}, {mkGrant("perl5.36"), false},
		{mkGrant("pip3 install"), true}, {mkGrant("x264 -o"), true},
		{mkGrant("git"), false}, {mkGrant("git -c"), false}, {mkGrant("npm exec"), false}, {mkGrant("npm x"), false},
		{mkGrant("npm"), false}, {mkGrant("docker run"), false},
		// Malformed.
		{mkGrant("./build.sh"), false}, {mkGrant("bin/tool"), false}, {verdict.Grant{}, false},
		{verdict.Grant{Prefix: []string{"npm", "install"}}, false},
		{verdict.Grant{Prefix: []string{"npm", "install"}, Rules: []string{" "}}, false},
	}
	for _, tt := range tests {
		err := grant.Check(tt.g)
		var refused *grant.RefusedError
		if (err == nil) != tt.ok || (err != nil && !errors.As(err, &refused)) {
			t.Errorf("CheckGrant(%q, %q) = %v, want ok=%v", tt.g.Prefix, tt.g.Rules, err, tt.ok)
		}
	}
}

func TestGrantCovers(t *testing.T) {
	tests := []struct {
		g    string
		argv string
		want bool
	}{
		{"npm install", "npm install", true},
		{"npm install", "npm install lodash", true},
		{"npm install", "npm publish", false},
		{"npm install", "npm", false},
		{"npm install", "npm installx", false},
		{"npm install", "/usr/bin/npm install", true},
		{"npm install", "/usr/local/bin/npm install", true},
		{"npm install", "./npm install", false},
		{"npm install", "/home/me/bin/npm install", false},
		{"/opt/npm install", "/opt/npm install", true},
		{"/opt/npm install", "npm install", false},
		{"go test", "go test ./...", true},
		{"go test", "go tool", false},
	}
	for _, tt := range tests {
		if got := grant.Covers(mkGrant(tt.g), strings.Fields(tt.argv)); got != tt.want {
			t.Errorf("GrantCovers(%q, %q) = %v, want %v", tt.g, tt.argv, got, tt.want)
		}
	}
}

func TestGrantsFor(t *testing.T) {
	v := verdict.Verdict{Decision: verdict.Ask, Reasons: []verdict.Reason{
		{Rule: "pkg.b", Decision: verdict.Ask, Prefix: []string{"npm", "install"}, Grantable: true},
		{Rule: "pkg.a", Decision: verdict.Ask, Prefix: []string{"npm", "install"}, Grantable: true},
		{Rule: "pkg.a", Decision: verdict.Ask, Prefix: []string{"npm", "install"}, Grantable: true},
		{Rule: "shape.redirect", Decision: verdict.Ask, Prefix: []string{"npm", "install"}},  // not grantable
		{Rule: "fs.write", Decision: verdict.Deny, Prefix: []string{"tee"}, Grantable: true}, // not an ask
		{Rule: "go.test", Decision: verdict.Ask, Prefix: []string{"go", "test"}, Grantable: true},
		{Rule: "x.noprefix", Decision: verdict.Ask, Grantable: true},
	}}
	got := grant.For(v)
	want := []verdict.Grant{{Prefix: []string{"npm", "install"}, Rules: []string{"pkg.a", "pkg.b"}}, {Prefix: []string{"go", "test"}, Rules: []string{"go.test"}}}
	if !equalGrants(got, want) {
		t.Errorf("GrantsFor = %v, want %v", got, want)
	}
}

func TestGrantStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "grants.json")
	s, err := grant.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.List()) != 0 {
		t.Fatal("new store not empty")
	}
	if err := s.Add(mkGrant("npm install", "pkg.b")); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(mkGrant("npm install", "pkg.a", "pkg.b")); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(mkGrant("go test", "go.test")); err != nil {
		t.Fatal(err)
	}
	var refused *grant.RefusedError
	if err := s.Add(mkGrant("bash")); !errors.As(err, &refused) {
		t.Errorf("Add(bash) = %v, want refused", err)
	}
	want := []verdict.Grant{mkGrant("npm install", "pkg.a", "pkg.b"), mkGrant("go test", "go.test")}
	if !equalGrants(s.List(), want) {
		t.Errorf("List = %v", s.List())
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	// Reloaded from disk.
	s2, err := grant.Load(path)
	if err != nil || !equalGrants(s2.List(), want) {
		t.Fatalf("reload: %v %v", s2.List(), err)
	}
	// Remove.
	if ok, err := s2.Remove([]string{"npm", "install"}); !ok || err != nil {
		t.Errorf("Remove = %v, %v", ok, err)
	}
	if ok, err := s2.Remove([]string{"npm", "install"}); ok || err != nil {
		t.Errorf("second Remove = %v, %v", ok, err)
	}
	// s still holds the stale list, but its next Add re-reads the file:
	// the removal by s2 is kept.
	if err := s.Add(mkGrant("cargo build", "cargo.build")); err != nil {
		t.Fatal(err)
	}
	if !equalGrants(s.List(), []verdict.Grant{mkGrant("go test", "go.test"), mkGrant("cargo build", "cargo.build")}) {
		t.Errorf("after concurrent change: %v", s.List())
	}
	// No temp files left behind.
	ents, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("leftover %s", e.Name())
		}
	}
}

func TestGrantStoreConcurrentAdds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			s, err := grant.Load(path) // separate stores: like separate processes
			if err != nil {
				t.Error(err)
				return
			}
			if err := s.Add(mkGrant(fmt.Sprintf("tool%d run", i), "r")); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	s, err := grant.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.List()); n != 20 {
		t.Errorf("%d grants after 20 concurrent adds", n)
	}
}

func TestGrantStoreCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	for _, content := range []string{"{", `{"version":2,"grants":[]}`, `{"version":1,"grants":[{"prefix":["npm"],"rules":[]}]}`} {
		os.WriteFile(path, []byte(content), 0o600)
		if _, err := grant.Load(path); err == nil {
			t.Errorf("LoadGrants(%s) succeeded", content)
		}
	}
	// A store loaded before the file went bad refuses to write over it.
	os.Remove(path)
	s, err := grant.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte("{"), 0o600)
	if err := s.Add(mkGrant("npm test", "r")); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Add over a corrupt file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{" {
		t.Errorf("corrupt file rewritten: %q", b)
	}
}

func TestDefaultGrantsPath(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	p1, err := grant.DefaultPath("/work/proj")
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := grant.DefaultPath("/work/proj/")
	p3, _ := grant.DefaultPath("/work/other")
	if p1 != p2 || p1 == p3 || !strings.HasPrefix(p1, filepath.Join(cfg, "rivumi", "grants")+"/") || !strings.HasSuffix(p1, ".json") {
		t.Errorf("paths %s %s %s", p1, p2, p3)
	}
	if want := "277ae841cc3b560965751e85133e18c505b4e4c1be6ad0c5821a4a0a2e6ab282.json"; filepath.Base(p1) != want { // sha256 of "/work/proj"
		t.Errorf("file name %s, want %s", filepath.Base(p1), want)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "/home/someone")
	p4, _ := grant.DefaultPath("/work/proj")
	if !strings.HasPrefix(p4, "/home/someone/.config/rivumi/grants/") {
		t.Errorf("fallback path %s", p4)
	}
}

func TestProjectRoot(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(sub, 0o755)
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	if got, err := grant.ProjectRoot(sub); err != nil || got != root {
		t.Errorf("ProjectRoot(%s) = %s, %v; want %s", sub, got, err, root)
	}
}

// TestCheckGrantRefusesEveryRunner: every program the registry says runs
// whatever it is handed is refused as a grant, in any case, with ".exe" or
// a version suffix (issue 12).
func TestCheckGrantRefusesEveryRunner(t *testing.T) {
	n := 0
	for _, p := range programs.All() {
		if !p.RunsAnything {
			continue
		}
		for _, name := range p.Names {
			if name == "." {
				continue // the source builtin: no versions, no case
			}
			for _, spelling := range []string{name, strings.ToUpper(name), name + ".exe", name + "3", name + "3.12", name + "-2.1", "/usr/bin/" + name} {
				n++
				if err := grant.Check(verdict.Grant{Prefix: []string{spelling}, Rules: []string{"shell.script-file"}}); err == nil {
					t.Errorf("grant for %q accepted", spelling)
				}
			}
		}
	}
	t.Logf("%d spellings refused", n)
}

func equalGrants(a, b []verdict.Grant) bool {
	return slices.EqualFunc(a, b, func(x, y verdict.Grant) bool {
		return slices.Equal(x.Prefix, y.Prefix) && slices.Equal(x.Rules, y.Rules)
	})
}
