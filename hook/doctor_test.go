package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fails(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Fail {
			out = append(out, f.Text)
		}
	}
	return out
}

func TestClaudeHooksOff(t *testing.T) {
	for _, c := range []struct {
		name, file, body, want string
		managed                bool
	}{
		{"user", ".claude/settings.json", `{"disableAllHooks": true}`, `disableAllHooks": true: Claude Code runs no hook`, false},
		{"local", "proj/.claude/settings.local.json", `{"disableAllHooks": true}`, "settings.local.json", false},
		{"false", ".claude/settings.json", `{"disableAllHooks": false}`, "", false},
		{"managed", "managed.json", `{"disableAllHooks": true}`, "ask your administrator", true},
		{"managed only", "managed.json", `{"allowManagedHooksOnly": true}`, "allowManagedHooksOnly", true},
		{"user may not restrict", ".claude/settings.json", `{"allowManagedHooksOnly": true}`, "", false},
		{"broken", ".claude/settings.json", `{`, "cannot read its settings", false},
	} {
		dir := t.TempDir()
		write(t, filepath.Join(dir, c.file), c.body)
		var managed []string
		if c.managed {
			managed = []string{filepath.Join(dir, c.file)}
		}
		got := fails(ClaudeHooksOff(dir, filepath.Join(dir, "proj"), managed))
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: %q, want no failure", c.name, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
			t.Errorf("%s: %q, want one failure with %q", c.name, got, c.want)
		}
	}
}

func TestGeminiHooksOff(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "src", "proj")
	if err := os.MkdirAll(filepath.Join(proj, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	tf := filepath.Join(dir, ".gemini", "trustedFolders.json")
	for _, c := range []struct {
		name, settings, folders, at string
		env                         map[string]string
		want                        string // "" for no failure
	}{
		{"no rules", "", "", proj, nil, "is not a trusted folder"},
		{"trusted", "", `{"` + proj + `": "TRUST_FOLDER"}`, proj, nil, ""},
		{"below a trusted folder", "", `{"` + proj + `": "TRUST_FOLDER"}`, filepath.Join(proj, "sub"), nil, ""},
		{"parent", "", `{"` + filepath.Join(proj, "x") + `": "TRUST_PARENT"}`, proj, nil, ""},
		{"longest rule wins", "", `{"` + dir + `": "TRUST_FOLDER", "` + proj + `": "DO_NOT_TRUST"}`, proj, nil, "is not trusted"},
		{"comments", "", "{\n  // mine\n  \"" + proj + "\": \"TRUST_FOLDER\" /* ok */\n}", proj, nil, ""},
		{"trust off", `{"security": {"folderTrust": {"enabled": false}}}`, "", proj, nil, ""},
		{"hooks off", `{"hooksConfig": {"enabled": false}, "security": {"folderTrust": {"enabled": false}}}`, "", proj, nil, `"hooksConfig": {"enabled": false}`},
		{"rivumi disabled", `{"hooksConfig": {"disabled": ["rivumi"]}, "security": {"folderTrust": {"enabled": false}}}`, "", proj, nil, "hooksConfig.disabled"},
		{"env trusts", "", "", proj, map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}, ""},
		{"env distrusts", "", `{"` + proj + `": "TRUST_FOLDER"}`, proj, map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "false"}, "untrusted"},
		{"broken file", "", `{"x": `, proj, nil, "broken trusted folders file"},
	} {
		os.RemoveAll(filepath.Join(dir, ".gemini"))
		if c.settings != "" {
			write(t, filepath.Join(dir, ".gemini", "settings.json"), c.settings)
		}
		if c.folders != "" {
			write(t, tf, c.folders)
		}
		getenv := func(k string) string { return c.env[k] }
		got := fails(GeminiHooksOff(dir, c.at, getenv))
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: %q, want no failure", c.name, got)
		case c.want != "" && (len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), c.want)):
			t.Errorf("%s: %q, want a failure with %q", c.name, got, c.want)
		}
	}
}

func TestStripJSONComments(t *testing.T) {
	in := "{\"a\": \"//not\", // yes\n \"b\": /* x */ 1, \"c\": \"/*\\\"*/\"}"
	want := "{\"a\": \"//not\", \n \"b\":   1, \"c\": \"/*\\\"*/\"}"
	if got := string(stripJSONComments([]byte(in))); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
