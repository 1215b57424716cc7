package hook

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestExpandBraces(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"*.go", []string{"*.go"}},
		{"{.env,README.md}", []string{".env", "README.md"}},
		{"*.{ts,tsx}", []string{"*.ts", "*.tsx"}},
		{"{a,{b,c}}x", []string{"ax", "bx", "cx"}},
		{"{a,b", nil},
		{"a}", nil},
	} {
		got, ok := expandBraces(c.in)
		if !slices.Equal(got, c.want) || ok != (c.want != nil) {
			t.Errorf("expandBraces(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}

func TestGlobSelector(t *testing.T) {
	for _, c := range []struct {
		glob string
		rel  string
		want bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "sub/dir/a.go", true}, // no slash: a base name at any depth
		{"*.go", "a.gox", false},
		{".e*", ".env", true},
		{"*", ".env", true}, // dot files too
		{"{.env,README.md}", "sub/.env", true},
		{"src/**/*.ts", "src/a/b/c.ts", true},
		{"src/**/*.ts", "src/c.ts", true},
		{"src/**/*.ts", "lib/c.ts", false},
		{"src/*.ts", "src/a/c.ts", false},
		{"config", "config/.env", true}, // a directory selects what is below it
		{"[.]env", "xenv", false},
		{"[.]e*", ".env", true},
		{"[!a]env", "xenv", true},
	} {
		sel := globSelector(c.glob)
		if sel == nil {
			t.Fatalf("globSelector(%q) = nil", c.glob)
		}
		if got := sel(c.rel); got != c.want {
			t.Errorf("globSelector(%q)(%q) = %v, want %v", c.glob, c.rel, got, c.want)
		}
	}
	if globSelector("{a,b") != nil {
		t.Errorf("an unbalanced glob must select everything (nil)")
	}
}

// TestSearchToolSecrets: a search tool over a directory holding a secret
// asks when its glob selects it — the glob read as a glob, not as a
// literal name — and the files are looked at on disk.
func TestSearchToolSecrets(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{".env", "src/a.go", "README.md"} {
		p := filepath.Join(ws, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("KEY=1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	clean := filepath.Join(ws, "src")
	for _, c := range []struct {
		agent       Agent
		tool, input string
		reply       string
	}{
		{Gemini, "grep_search", `{"pattern":"KEY","include_pattern":".e*"}`, "ask"},
		{Gemini, "grep_search", `{"pattern":"KEY","include_pattern":"{.env,README.md}"}`, "ask"},
		{Gemini, "grep_search", `{"pattern":"KEY","include_pattern":"*.go"}`, "allow"},
		{Gemini, "grep_search", `{"pattern":"KEY"}`, "ask"},
		{Gemini, "grep_search", `{"pattern":"KEY","dir_path":"` + clean + `"}`, "allow"},
		{Gemini, "grep_search", `{"pattern":"KEY","dir_path":"` + clean + `","include_pattern":".e*"}`, "allow"}, // nothing there
		{ClaudeCode, "Grep", `{"pattern":"KEY","glob":"*"}`, "ask"},
		{ClaudeCode, "Grep", `{"pattern":"KEY","path":"src"}`, "allow"},
	} {
		t.Run(string(c.agent)+" "+c.input, func(t *testing.T) {
			event := "PreToolUse"
			if c.agent == Gemini {
				event = "BeforeTool"
			}
			payload := `{"session_id":"s","cwd":"` + ws + `","hook_event_name":"` + event + `","tool_name":"` + c.tool + `","tool_input":` + c.input + `}`
			cfg := Config{Agent: c.agent, Workspace: ws, Home: t.TempDir(), GOOS: "linux", Getenv: func(string) string { return "" }}
			a := Decide(context.Background(), cfg, strings.NewReader(payload))
			if a.Failure != "" || a.Verdict.Decision.String() != c.reply {
				t.Errorf("verdict %v (%s %s), want %q; paths %q", a.Verdict.Decision, a.Reason, a.Failure, c.reply, a.paths)
			}
		})
	}
}
