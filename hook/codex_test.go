package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hash `codex app-server` (0.171.0) reported in hooks/list for this
// hooks.json entry.
func TestCodexHookHashMatchesCodex(t *testing.T) {
	e := Installed{
		File: "/tmp/cx/home/.codex/hooks.json", Command: "/usr/bin/rivumi hook codex",
		Matcher: "Bash", HasMatcher: true, Hook: map[string]any{"type": "command", "command": "/usr/bin/rivumi hook codex", "timeout": json.Number("10")},
	}
	got, err := CodexHookHash(e)
	if err != nil {
		t.Fatal(err)
	}
	if want := "sha256:9d3531802ace36c4fe8d2550a1afe929cc4641fd5dafb20c717826831f7cd34e"; got != want {
		t.Errorf("hash %s, want %s", got, want)
	}
	// Any change to what Codex hashes changes the hash.
	for _, change := range []func(*Installed){
		func(e *Installed) { e.Command += " --shadow" },
		func(e *Installed) { e.Matcher = "Bash|apply_patch" },
		func(e *Installed) { e.Hook = map[string]any{"timeout": json.Number("11")} },
		func(e *Installed) { e.Hook = map[string]any{"timeout": json.Number("10"), "async": true} },
	} {
		c := e
		change(&c)
		if h, _ := CodexHookHash(c); h == got {
			t.Errorf("%+v: same hash", c)
		}
	}
}

func TestCanonicalJSON(t *testing.T) {
	for in, want := range map[string]string{
		"a\"b\\c":      `"a\"b\\c"`,
		"\n\t\r\b\f":   `"\n\t\r\b\f"`,
		"\x01\x1f":     `"\u0001\u001f"`,
		"<&> é \u2028": "\"<&> é \u2028\"",
	} {
		var b bytes.Buffer
		jsonString(&b, in)
		if got := b.String(); got != want {
			t.Errorf("jsonString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestTrustCodexHook(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks.json")
	e := Installed{File: hooks, Command: "/opt/rivumi hook codex", Matcher: "Bash", HasMatcher: true,
		Hook: map[string]any{"timeout": json.Number("10")}}
	key := CodexHookKey(hooks, 0, 0)
	for _, c := range []struct {
		name, before string
		ok           bool
	}{
		{"no file", "", true},
		{"other settings and comments", "# mine\nmodel = \"o3\"\n\n[features]\nhooks = true\n", true},
		{"stale hash", "[hooks.state." + tomlString(key) + "]\ntrusted_hash = \"sha256:00\"\n[other]\nx = 1\n", true},
		{"inline table", "[hooks.state]\n" + tomlString(key) + " = { trusted_hash = \"sha256:00\" }\n", false},
		{"not TOML", "model = \n", false},
	} {
		cfg := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".toml")
		if c.before != "" {
			if err := os.WriteFile(cfg, []byte(c.before), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		changed, err := TrustCodexHook(cfg, e)
		if !c.ok {
			if err == nil || !strings.Contains(err.Error(), "trusted_hash = ") {
				t.Errorf("%s: err %v, want one that shows the lines to add", c.name, err)
			}
			if b, _ := os.ReadFile(cfg); string(b) != c.before {
				t.Errorf("%s: file changed to %q", c.name, b)
			}
			continue
		}
		if err != nil || !changed {
			t.Fatalf("%s: changed %v, err %v", c.name, changed, err)
		}
		tr, err := CodexTrustOf(cfg, e)
		if err != nil || !tr.Trusted() {
			t.Errorf("%s: after trust: %+v, %v", c.name, tr, err)
		}
		b, _ := os.ReadFile(cfg)
		for _, keep := range []string{"# mine", "[other]", "hooks = true"} {
			if strings.Contains(c.before, keep) && !strings.Contains(string(b), keep) {
				t.Errorf("%s: lost %q:\n%s", c.name, keep, b)
			}
		}
		if changed, err := TrustCodexHook(cfg, e); changed || err != nil {
			t.Errorf("%s: second run changed %v, err %v", c.name, changed, err)
		}
		// Another hook command is not trusted by it.
		other := e
		other.Command += " --shadow"
		if tr, _ := CodexTrustOf(cfg, other); tr.Trusted() || !strings.Contains(tr.Problem(), "changed") {
			t.Errorf("%s: changed hook: %+v %q", c.name, tr, tr.Problem())
		}
	}
}
