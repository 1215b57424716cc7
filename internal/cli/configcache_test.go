package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/rivumi/rivumi/rules"
)

// The remembered configuration of a directory is never the one before an
// edit, a trust or a revocation: after every change, foundConfigs answers
// what reading everything again answers, and it does answer from memory
// while nothing changes.
func TestFoundConfigsInvalidation(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("configurations are remembered on Linux only")
	}
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	const window = 40 * time.Millisecond
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = window
	foundConfigs.reset()
	t.Cleanup(foundConfigs.reset)
	proj := filepath.Join(dir, "proj")
	sub := filepath.Join(proj, "sub")
	for _, d := range []string{proj + "/.git", sub, proj + "/policy", dir + "/config/rivumi"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rule := func(id string) string {
		return "rules:\n  - id: team." + id + "\n    pattern: [cowsay]\n    decision: allow\n    justification: Cows.\n    match: [cowsay hi]\n"
	}
	cfgPath := filepath.Join(proj, rules.ProjectConfigName)
	write(cfgPath, "policies: [policy/]\n"+rule("aaa"))
	write(filepath.Join(proj, "policy", "a.rego"), "package rivumi.user.a\n")
	ctx := withWarnings(context.Background(), io.Discard)
	var last string
	// check: after a change (changed: the id must differ), the cached
	// answer is the fresh one; once the files are older than the window,
	// asking again is a hit.
	check := func(what, d string, changed bool) {
		t.Helper()
		_, _, want := loadConfigsID(ctx, d)
		if got := foundConfigs.find(ctx, d).id; got != want {
			t.Fatalf("%s: remembered %s, reading again gives %s", what, got, want)
		}
		if changed && want == last {
			t.Fatalf("%s: the id did not change", what)
		}
		last = want
		time.Sleep(window + 20*time.Millisecond)
		foundConfigs.find(ctx, d) // remembered now
		h := foundConfigs.hits.Load()
		if got := foundConfigs.find(ctx, d).id; got != want || foundConfigs.hits.Load() != h+1 {
			t.Fatalf("%s: not answered from memory (id %s, want %s)", what, got, want)
		}
	}
	check("start", sub, false)
	write(cfgPath, "policies: [policy/]\n"+rule("bbb")) // same size, same inode
	check("edit in place", sub, true)
	tmp := cfgPath + ".new"
	write(tmp, "policies: [policy/]\n"+rule("ccc"))
	if err := os.Rename(tmp, cfgPath); err != nil {
		t.Fatal(err)
	}
	check("replaced", sub, true)
	sp, _ := rules.TrustStorePath()
	store, err := rules.LoadTrust(sp)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := rules.LoadConfig(cfgPath)
	digest, err := c.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Trust(cfgPath, digest); err != nil {
		t.Fatal(err)
	}
	check("trusted", sub, true)
	if f := foundConfigs.find(ctx, sub); len(f.cfgs) != 1 || len(f.cfgs[0].Policies) != 1 {
		t.Fatalf("trusted config lost its policy directory: %+v", f.cfgs)
	}
	write(filepath.Join(proj, "policy", "a.rego"), "package rivumi.user.b\n") // same size
	check("policy file edited (trust lost)", sub, true)
	if err := store.Trust(cfgPath, mustDigest(t, cfgPath)); err != nil {
		t.Fatal(err)
	}
	check("trusted again", sub, true)
	write(filepath.Join(proj, "policy", "z.rego"), "package rivumi.user.z\n")
	check("policy file added", sub, true)
	if err := os.MkdirAll(filepath.Join(proj, "policy", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	check("directory added (no .rego yet)", sub, false)
	write(filepath.Join(proj, "policy", "deep", "d.rego"), "package rivumi.user.d\n")
	check("policy file added deeper", sub, false) // untrusted since z.rego came
	if err := store.Trust(cfgPath, mustDigest(t, cfgPath)); err != nil {
		t.Fatal(err)
	}
	check("trusted with everything", sub, true)
	if _, err := store.Revoke(cfgPath); err != nil {
		t.Fatal(err)
	}
	check("revoked", sub, true)
	write(filepath.Join(dir, "config", "rivumi", "config.yaml"), rule("user"))
	check("user file created", sub, true)
	check("no directory: the user's file alone", "", true)
	if err := os.Mkdir(filepath.Join(sub, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	check("a nearer repository root", sub, true)
	if err := os.Remove(filepath.Join(dir, "config", "rivumi", "config.yaml")); err != nil {
		t.Fatal(err)
	}
	check("user file removed", sub, true)
}

func mustDigest(t *testing.T, path string) string {
	t.Helper()
	c, err := rules.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A file written within the racy window is read again for every request.
func TestFoundConfigsRacy(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	foundConfigs.reset()
	t.Cleanup(foundConfigs.reset)
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(proj+"/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, rules.ProjectConfigName), []byte("rules: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h := foundConfigs.hits.Load()
	for range 3 {
		foundConfigs.find(ctx, proj)
	}
	if foundConfigs.hits.Load() != h {
		t.Fatal("a file written just now was answered from memory")
	}
}

// Concurrent requests share the remembered configurations safely.
func TestFoundConfigsConcurrent(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0
	foundConfigs.reset()
	t.Cleanup(foundConfigs.reset)
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(proj+"/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := withWarnings(context.Background(), io.Discard)
	_, _, want := loadConfigsID(ctx, proj)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if got := foundConfigs.find(ctx, proj).id; got != want {
					t.Errorf("id %s, want %s", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// The remembered user paths follow the environment: a changed
// XDG_CONFIG_HOME or HOME gives the paths rules computes for it.
func TestUserPathsFollowEnv(t *testing.T) {
	for _, env := range []struct{ xdg, home string }{
		{"/x1", "/h1"}, {"/x1", "/h1"}, {"/x2", "/h1"}, {"", "/h1"}, {"", "/h2"}, {"relative", "/h3"}, {"", ""},
	} {
		t.Setenv("XDG_CONFIG_HOME", env.xdg)
		t.Setenv("HOME", env.home)
		user, uerr := rules.UserConfigPath()
		trust, _ := rules.TrustStorePath()
		p := userPaths()
		if p.user != user || (p.err == nil) != (uerr == nil) || (uerr == nil && p.trust != trust) {
			t.Errorf("XDG_CONFIG_HOME=%q HOME=%q: got %q %q %v, want %q %q %v", env.xdg, env.home, p.user, p.trust, p.err, user, trust, uerr)
		}
	}
}
