package hook

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/rivumi/rivumi/policies"
	"github.com/rivumi/rivumi/verdict"
)

func TestPathPolicy(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	home := filepath.Join(root, "home")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{ws + "/src/a", ws + "/.git", home + "/.ssh", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []struct{ target, link string }{
		{outside, ws + "/out"},                          // a symlink in the workspace pointing out
		{ws + "/.git/config", ws + "/innocent"},         // into .git
		{home + "/.bashrc", ws + "/dangling"},           // dangling: a write creates ~/.bashrc
		{"src", ws + "/srclink"},                        // relative, stays inside
		{"../outside", ws + "/rel-out"},                 // relative, points out
		{ws + "/loop2", ws + "/loop1"},                  // a loop
		{ws + "/loop1", ws + "/loop2"},                  //
		{filepath.Join(home, ".ssh"), ws + "/keys"},     // into ~/.ssh
		{filepath.Join(outside, "x.env"), ws + "/.env"}, // a secret reached through a link
	} {
		if err := os.Symlink(l.target, l.link); err != nil {
			t.Fatal(err)
		}
	}
	p := &PathPolicy{Workspace: ws, Home: home, Protected: []string{"src/*.go", "~/notes/**"}, Secrets: []string{"**/*.secret"}}
	for _, c := range []struct {
		op   Op
		path string
		cwd  string
		want verdict.Decision
		rule string
	}{
		{OpWrite, "src/main.go", ws, verdict.Deny, RuleProtectedPattern}, // src/*.go is protected
		{OpWrite, "src/a/b.go", ws, verdict.Allow, RuleWriteWorkspace},   // * does not cross /
		{OpWrite, ws + "/src/a/b.go", "/", verdict.Allow, RuleWriteWorkspace},
		{OpWrite, "../x", ws, verdict.Ask, RuleWriteOutside},
		{OpWrite, "src/../../x", ws, verdict.Ask, RuleWriteOutside},
		{OpWrite, outside + "/y", ws, verdict.Ask, RuleWriteOutside},
		{OpWrite, "/tmp/scratch.txt", ws, verdict.Ask, RuleWriteOutside},
		{OpWrite, "out/file", ws, verdict.Ask, RuleWriteOutside},     // symlink in the workspace pointing out
		{OpWrite, "rel-out/file", ws, verdict.Ask, RuleWriteOutside}, // relative symlink pointing out
		{OpWrite, "srclink/a/c.txt", ws, verdict.Allow, RuleWriteWorkspace},
		{OpWrite, "innocent", ws, verdict.Deny, RuleProtectedWrite}, // resolves into .git
		{OpWrite, "dangling", ws, verdict.Deny, RuleProtectedWrite}, // dangling link to ~/.bashrc
		{OpWrite, ".git/config", ws, verdict.Deny, RuleProtectedWrite},
		{OpWrite, ".git/hooks/pre-commit", ws, verdict.Deny, RuleProtectedWrite},
		{OpWrite, ".claude/settings.json", ws, verdict.Deny, RuleProtectedWrite},
		{OpWrite, ".gemini/settings.json", ws, verdict.Deny, RuleProtectedWrite},
		{OpWrite, ".codex/hooks.json", ws, verdict.Deny, RuleProtectedWrite},
		{OpWrite, ".github/workflows/ci.yml", ws, verdict.Deny, RuleProtectedWrite},
		{OpWrite, ".envrc", ws, verdict.Deny, RuleProtectedWrite},
		{OpWrite, "~/.bashrc", ws, verdict.Deny, RuleProtectedWrite},
		{OpWrite, "~/.ssh/authorized_keys", ws, verdict.Deny, RuleProtectedWrite},
		{OpWrite, "keys/authorized_keys", ws, verdict.Deny, RuleProtectedWrite},
		{OpWrite, "~/.config/rivumi/policies/x.rego", ws, verdict.Deny, RuleProtectedWrite},
		{OpWrite, "~/notes/todo.md", ws, verdict.Deny, RuleProtectedPattern},
		{OpWrite, "/etc/passwd", ws, verdict.Deny, RuleCriticalWrite},
		{OpWrite, "/dev/sda", ws, verdict.Deny, RuleCriticalWrite},
		{OpWrite, "/dev/null", ws, verdict.Allow, RuleWriteWorkspace},
		{OpWrite, "loop1/x", ws, verdict.Deny, RuleBadPath},
		{OpWrite, "relative/without/cwd", "", verdict.Deny, RuleBadPath},
		{OpWrite, "", ws, verdict.Deny, RuleBadPath},
		{OpRead, "src/main.go", ws, verdict.Allow, RuleRead},
		{OpRead, "/etc/hosts", ws, verdict.Allow, RuleRead},
		{OpRead, ".env", ws, verdict.Ask, RuleReadSecret},
		{OpRead, "config/.env.local", ws, verdict.Ask, RuleReadSecret},
		{OpRead, ".env.example", ws, verdict.Allow, RuleRead},
		{OpRead, "~/.ssh/id_ed25519", ws, verdict.Ask, RuleReadSecret},
		{OpRead, "keys/id_ed25519", ws, verdict.Ask, RuleReadSecret}, // through a link
		{OpRead, "certs/server.pem", ws, verdict.Ask, RuleReadSecret},
		{OpRead, "~/.aws/credentials", ws, verdict.Ask, RuleReadSecret},
		{OpRead, "/etc/shadow", ws, verdict.Ask, RuleReadSecret},
		{OpRead, "db/prod.secret", ws, verdict.Ask, RuleReadSecret},
	} {
		v := p.Check(c.op, c.path, c.cwd)
		if v.Decision != c.want || len(v.Reasons) != 1 || v.Reasons[0].Rule != c.rule {
			t.Errorf("%s %q (cwd %q) = %s %+v, want %s %s", c.op, c.path, c.cwd, v.Decision, v.Reasons, c.want, c.rule)
		}
	}
}

func TestResolve(t *testing.T) {
	root := t.TempDir()
	real, _ := filepath.EvalSymlinks(root)
	os.MkdirAll(filepath.Join(root, "a/b"), 0o755)
	os.Symlink(filepath.Join(root, "a/b"), filepath.Join(root, "l"))
	for in, want := range map[string]string{
		root + "/a/b/c":         real + "/a/b/c",
		root + "/l/c":           real + "/a/b/c",
		root + "/l/../x":        real + "/a/x", // .. after a link applies to its target
		root + "/missing/../x":  real + "/x",
		root + "/a/b/f/../../g": real + "/a/g",
	} {
		got, err := Resolve(in)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestClassSetsMatchRego keeps the Go class sets equal to the sets the
// shell path policy uses in policies/lib/segment.rego (the secret classes
// are parser.SecretClasses on both sides, the Rego reading them as data).
func TestClassSetsMatchRego(t *testing.T) {
	b, err := fs.ReadFile(policies.FS, "lib/segment.rego")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ast.ParseModuleWithOpts("segment.rego", string(b), ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string]map[string]bool{"protected_classes": protectedClasses}
	for _, r := range m.Rules {
		name := r.Head.Name.String()
		if name == "" {
			name = r.Head.Reference.String()
		}
		want, ok := sets[name]
		if !ok {
			continue
		}
		delete(sets, name)
		set, ok := r.Head.Value.Value.(ast.Set)
		if !ok {
			t.Fatalf("%s is not a set literal", name)
		}
		var got, exp []string
		set.Foreach(func(x *ast.Term) { got = append(got, string(x.Value.(ast.String))) })
		for k := range want {
			exp = append(exp, k)
		}
		sort.Strings(got)
		sort.Strings(exp)
		if len(got) != len(exp) {
			t.Errorf("%s: Rego %v, Go %v", name, got, exp)
			continue
		}
		for i := range got {
			if got[i] != exp[i] {
				t.Errorf("%s: Rego %v, Go %v", name, got, exp)
				break
			}
		}
	}
	if len(sets) > 0 {
		t.Errorf("not found in segment.rego: %v", sets)
	}
}

// Gemini CLI's plan directory is the agent's own scratch: writes there are
// allowed, the rest of ~/.gemini stays protected, and a symlink in the plan
// directory pointing out is judged where it points.
func TestPathPolicyScratch(t *testing.T) {
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	plans := filepath.Join(home, ".gemini", "tmp", "proj-1a2b", "plans")
	for _, d := range []string{ws, plans} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, ".bashrc"), filepath.Join(plans, "rc.md")); err != nil {
		t.Fatal(err)
	}
	p := &PathPolicy{Workspace: ws, Home: home, Scratch: agentScratch[Gemini]}
	for _, c := range []struct {
		path string
		want verdict.Decision
		rule string
	}{
		{plans + "/plan.md", verdict.Allow, RuleAgentScratch},
		{plans + "/sub/step.md", verdict.Allow, RuleAgentScratch},
		{"~/.gemini/tmp/other/plans/p.md", verdict.Allow, RuleAgentScratch},
		{plans + "/rc.md", verdict.Deny, RuleProtectedWrite},                  // a link to ~/.bashrc
		{plans + "/../../../settings.json", verdict.Deny, RuleProtectedWrite}, // .. out of the plans
		{home + "/.gemini/settings.json", verdict.Deny, RuleProtectedWrite},
		{home + "/.gemini/tmp/proj-1a2b/chats/x.json", verdict.Deny, RuleProtectedWrite},
	} {
		v := p.Check(OpWrite, c.path, ws)
		if v.Decision != c.want || len(v.Reasons) == 0 || v.Reasons[0].Rule != c.rule {
			t.Errorf("write %s: %v %+v, want %v by %s", c.path, v.Decision, v.Reasons, c.want, c.rule)
		}
	}
	// Other agents have no scratch there.
	p.Scratch = agentScratch[ClaudeCode]
	if v := p.Check(OpWrite, plans+"/plan.md", ws); v.Decision != verdict.Deny {
		t.Errorf("claude-code writing Gemini's plans: %v, want deny", v.Decision)
	}
}
