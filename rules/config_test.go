package rules

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const projectConfig = `policies: [policy]
rule_files: [rules/team.yaml]
rules:
  - id: team.allow-make-lint
    pattern: [make, lint]
    decision: allow
  - id: team.ask-kubectl
    pattern: [kubectl, delete]
    decision: ask
disable:
  - id: git.hooks
    reason: hooks are reviewed
grants:
  - prefix: [npm, test]
    rules: [exec.workspace-code]
`

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".rivumi.yaml")
	write(t, path, projectConfig)
	write(t, filepath.Join(dir, "rules/team.yaml"), "rules:\n  - id: team.no-destroy\n    pattern: [terraform, destroy]\n    decision: deny\n    justification: Use the pipeline.\n")
	write(t, filepath.Join(dir, "policy/p.rego"), "package rivumi.user\n")
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Policies, []string{filepath.Join(dir, "policy")}) || !reflect.DeepEqual(c.RuleFiles, []string{filepath.Join(dir, "rules/team.yaml")}) {
		t.Errorf("paths %v %v", c.Policies, c.RuleFiles)
	}
	var ids []string
	for _, r := range c.Rules {
		ids = append(ids, r.ID+"@"+r.Where())
	}
	want := []string{"team.allow-make-lint@" + path + ":4", "team.ask-kubectl@" + path + ":7", "team.no-destroy@" + filepath.Join(dir, "rules/team.yaml") + ":2"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("rules %v, want %v", ids, want)
	}
	if !reflect.DeepEqual(c.Disable, []RuleSwitch{{ID: "git.hooks", Reason: "hooks are reviewed", Line: 11}}) {
		t.Errorf("disable %+v", c.Disable)
	}
	if !reflect.DeepEqual(c.Grants, []ConfigGrant{{Prefix: []string{"npm", "test"}, Rules: []string{"exec.workspace-code"}, Line: 14}}) {
		t.Errorf("grants %+v", c.Grants)
	}

	kept, dropped := c.Untrusted()
	if len(kept.Rules) != 2 || kept.Rules[0].ID != "team.ask-kubectl" || len(kept.Policies)+len(kept.Disable)+len(kept.Grants) != 0 {
		t.Errorf("kept %+v", kept)
	}
	if len(dropped) != 4 || !strings.Contains(dropped[0], "allow rule team.allow-make-lint") {
		t.Errorf("dropped %q", dropped)
	}

	// The digest covers the file and everything it names.
	d1, err := c.Digest()
	if err != nil || !strings.HasPrefix(d1, "sha256:") {
		t.Fatal(d1, err)
	}
	write(t, filepath.Join(dir, "policy/p.rego"), "package rivumi.user\n\n# changed\n")
	d2, _ := c.Digest()
	write(t, filepath.Join(dir, "rules/team.yaml"), "rules: []\n")
	d3, _ := c.Digest()
	if d1 == d2 || d2 == d3 {
		t.Errorf("digest does not follow named files: %s %s %s", d1, d2, d3)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"polices: [x]\n", `c.yaml:1: unknown key "polices"`},
		{"disable:\n  - id: git.hooks\n", "c.yaml:2: disable git.hooks: a reason is required"},
		{"disable:\n  - {id: git.hooks, reason: x, why: y}\n", `c.yaml:2: disable: unknown key "why"`},
		{"grants:\n  - prefix: [npm]\n", "c.yaml:2: grants: a grant needs a prefix and the ask rule ids"},
		{"rules:\n  - id: x\n    pattern: [ls]\n    decision: maybe\n", `c.yaml:2: rule x: decision "maybe"`},
		{"rule_files: [missing.yaml]\n", "missing.yaml"},
		{"- a list\n", "c.yaml:1: want a mapping"},
	} {
		dir := t.TempDir()
		_, err := ParseConfig(filepath.Join(dir, "c.yaml"), []byte(tc.src))
		var re *RuleError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
	if c, err := ParseConfig("empty.yaml", nil); err != nil || c == nil {
		t.Errorf("empty file: %v", err)
	}
}

func TestFindProjectConfig(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, _ := FindProjectConfig(sub); p != "" {
		t.Errorf("no repository: %q", p)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, _ := FindProjectConfig(sub); p != "" {
		t.Errorf("no file: %q", p)
	}
	write(t, filepath.Join(root, ".rivumi.yaml"), "{}\n")
	// A .rivumi.yaml below the root is not the project file.
	write(t, filepath.Join(root, "a", ".rivumi.yaml"), "{}\n")
	if p, _ := FindProjectConfig(sub); p != filepath.Join(root, ".rivumi.yaml") {
		t.Errorf("found %q", p)
	}
}

func TestConfigDirAndTrust(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "relative/ignored")
	if d, _ := ConfigDir(); d != filepath.Join(home, ".config", "rivumi") {
		t.Errorf("ConfigDir %q", d)
	}
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	if p, _ := UserConfigPath(); p != filepath.Join(xdg, "rivumi", "config.yaml") {
		t.Errorf("UserConfigPath %q", p)
	}
	path, _ := TrustStorePath()
	s, err := LoadTrust(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.IsTrusted("/p/.rivumi.yaml", "sha256:1") {
		t.Error("empty store trusts")
	}
	if err := s.Trust("/p/.rivumi.yaml", "sha256:1"); err != nil {
		t.Fatal(err)
	}
	s, _ = LoadTrust(path)
	if !s.IsTrusted("/p/.rivumi.yaml", "sha256:1") || s.IsTrusted("/p/.rivumi.yaml", "sha256:2") {
		t.Error("trust not recorded by digest")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	if ok, err := s.Revoke("/p/.rivumi.yaml"); !ok || err != nil {
		t.Errorf("revoke %v %v", ok, err)
	}
	s, _ = LoadTrust(path)
	if s.IsTrusted("/p/.rivumi.yaml", "sha256:1") {
		t.Error("revoked file still trusted")
	}
}

// Twenty writers that each loaded the store before any of them saved (as
// twenty `rivumi trust` processes do) all keep their record.
func TestTrustConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rivumi", "trusted.json")
	const n = 20
	stores := make([]*TrustStore, n)
	for i := range stores {
		s, err := LoadTrust(path)
		if err != nil {
			t.Fatal(err)
		}
		stores[i] = s
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, s := range stores {
		wg.Go(func() { errs[i] = s.Trust(fmt.Sprintf("/p%02d/.rivumi.yaml", i), fmt.Sprintf("sha256:%d", i)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	s, err := LoadTrust(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Trusted) != n {
		t.Fatalf("%d of %d trust records survived", len(s.Trusted), n)
	}
	// Revoking one with a stale store keeps the others.
	if ok, err := stores[0].Revoke("/p05/.rivumi.yaml"); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	s, _ = LoadTrust(path)
	if len(s.Trusted) != n-1 || s.IsTrusted("/p05/.rivumi.yaml", "sha256:5") {
		t.Fatalf("after revoke: %v", s.Trusted)
	}
	// A malformed store is an error and stays as it was.
	if err := os.WriteFile(path, []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := stores[1].Trust("/x/.rivumi.yaml", "sha256:x"); err == nil {
		t.Error("trust over a malformed store succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "{oops" {
		t.Errorf("malformed store rewritten: %q", b)
	}
}
