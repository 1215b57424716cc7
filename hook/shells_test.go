package hook

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rivumi/rivumi/verdict"
)

func TestCodexShells(t *testing.T) {
	for _, tc := range []struct {
		in      map[string]any
		shells  []string
		unknown string
		err     bool
	}{
		{map[string]any{}, AllShells, "", false}, // Codex 0.171 drops the field
		{map[string]any{"shell": "zsh"}, []string{"zsh"}, "", false},
		{map[string]any{"shell": "/usr/bin/zsh"}, []string{"zsh"}, "", false},
		{map[string]any{"shell": "/bin/bash"}, []string{"bash"}, "", false},
		{map[string]any{"shell": "dash"}, []string{"sh"}, "", false},
		{map[string]any{"shell": "sh"}, []string{"sh"}, "", false},
		{map[string]any{"shell": ""}, AllShells, "", false},
		{map[string]any{"shell": "fish"}, AllShells, "fish", false},
		{map[string]any{"shell": "pwsh"}, AllShells, "pwsh", false},
		{map[string]any{"shell": 3}, nil, "", true},
	} {
		shells, unknown, err := codexShells(tc.in)
		if (err != nil) != tc.err || !slices.Equal(shells, tc.shells) || unknown != tc.unknown {
			t.Errorf("codexShells(%v) = %q, %q, %v; want %q, %q, err %v", tc.in, shells, unknown, err, tc.shells, tc.unknown, tc.err)
		}
	}
}

// TestGradeShellStrictest: a command graded in several shells gets the
// strictest verdict, whichever shell gives it.
func TestGradeShellStrictest(t *testing.T) {
	by := map[string]verdict.Decision{"bash": verdict.Allow, "zsh": verdict.Ask, "sh": verdict.Allow}
	var seen []string
	cfg := &Config{Agent: Codex, NewGrader: func(context.Context) (Grader, error) {
		return func(_ context.Context, r verdict.Request) (verdict.Verdict, error) {
			seen = append(seen, r.Shell)
			return verdict.Verdict{Decision: by[r.Shell]}, nil
		}, nil
	}}
	for _, tc := range []struct {
		c    call
		want verdict.Decision
		seen []string
	}{
		{call{shell: true, command: "x", shells: AllShells}, verdict.Ask, AllShells},
		{call{shell: true, command: "x", shells: []string{"bash"}}, verdict.Allow, []string{"bash"}},
		{call{shell: true, command: "x", shells: AllShells, shellUnknown: "fish"}, verdict.Ask, AllShells},
		{call{shell: true, argv: []string{"ls"}, shells: AllShells}, verdict.Allow, []string{"bash"}},
	} {
		seen = nil
		if tc.c.argv != nil {
			cfg.Shell = "bash"
		}
		v, err := gradeShell(context.Background(), cfg, tc.c, "/w")
		if err != nil || v.Decision != tc.want || !slices.Equal(seen, tc.seen) {
			t.Errorf("gradeShell(%+v) = %v, %v (graded in %q); want %v in %q", tc.c, v.Decision, err, seen, tc.want, tc.seen)
		}
	}
	// Every shell allows, but the agent named one rivumi cannot parse: ask.
	by["zsh"] = verdict.Allow
	v, err := gradeShell(context.Background(), cfg, call{shell: true, command: "x", shells: AllShells, shellUnknown: "fish"}, "/w")
	if err != nil || v.Decision != verdict.Ask || v.Reasons[len(v.Reasons)-1].Rule != RuleShellUnknown {
		t.Errorf("unknown shell: %v %v %+v, want ask by %s", v.Decision, err, v.Reasons, RuleShellUnknown)
	}
}

func TestCodexWorkspace(t *testing.T) {
	dir := t.TempDir()
	proj, home := filepath.Join(dir, "proj"), filepath.Join(dir, "home")
	for _, d := range []string{filepath.Join(proj, ".git"), filepath.Join(proj, "sub"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	session := write("s.jsonl", `{"type":"session_meta","payload":{"cwd":"`+proj+`/sub"}}`+"\n"+`{"type":"x"}`+"\n")
	other := write("o.jsonl", `{"type":"response_item","payload":{"cwd":"`+proj+`"}}`+"\n")
	relative := write("r.jsonl", `{"type":"session_meta","payload":{"cwd":"proj"}}`)
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name       string
		workspace  string
		transcript *string
		cwd        string
		want       string
		unknown    bool
	}{
		{"session record, workdir outside", "", str(session), home, proj, false},
		{"session record, workdir inside", "", str(session), filepath.Join(proj, "sub"), proj, false},
		{"no record, repository", "", nil, filepath.Join(proj, "sub"), proj, false},
		{"no record, no repository", "", nil, home, home, true},
		{"record unreadable", "", str(filepath.Join(dir, "gone")), home, home, true},
		{"not a session_meta line", "", str(other), home, home, true},
		{"relative session cwd", "", str(relative), home, home, true},
		{"configured workspace wins", proj, str(session), home, proj, false},
	} {
		cfg := &Config{Agent: Codex, Workspace: tc.workspace, Getenv: func(string) string { return "" }, GOOS: "linux"}
		ws, unknown, err := codexWorkspace(cfg, tc.transcript, tc.cwd)
		if err != nil || ws != tc.want || unknown != tc.unknown {
			t.Errorf("%s: codexWorkspace = %q, unknown %v, %v; want %q, unknown %v", tc.name, ws, unknown, err, tc.want, tc.unknown)
		}
	}
}
