package hook

import (
	"context"
	"slices"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/server"
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
	by := map[string]engine.Decision{"bash": engine.Allow, "zsh": engine.Ask, "sh": engine.Allow}
	var seen []string
	cfg := &Config{Agent: Codex, NewGrader: func(context.Context) (Grader, error) {
		return func(_ context.Context, r server.Request) (engine.Verdict, error) {
			seen = append(seen, r.Shell)
			return engine.Verdict{Decision: by[r.Shell]}, nil
		}, nil
	}}
	for _, tc := range []struct {
		c    call
		want engine.Decision
		seen []string
	}{
		{call{shell: true, command: "x", shells: AllShells}, engine.Ask, AllShells},
		{call{shell: true, command: "x", shells: []string{"bash"}}, engine.Allow, []string{"bash"}},
		{call{shell: true, command: "x", shells: AllShells, shellUnknown: "fish"}, engine.Ask, AllShells},
		{call{shell: true, argv: []string{"ls"}, shells: AllShells}, engine.Allow, []string{"bash"}},
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
	by["zsh"] = engine.Allow
	v, err := gradeShell(context.Background(), cfg, call{shell: true, command: "x", shells: AllShells, shellUnknown: "fish"}, "/w")
	if err != nil || v.Decision != engine.Ask || v.Reasons[len(v.Reasons)-1].Rule != RuleShellUnknown {
		t.Errorf("unknown shell: %v %v %+v, want ask by %s", v.Decision, err, v.Reasons, RuleShellUnknown)
	}
}
