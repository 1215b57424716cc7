package hook

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/verdict"
)

// With --gate, a Bash command the grading lets through (allow, or ask the
// user confirms) comes back as updatedInput running it under `rivumi run
// --gate`, with the tool's other fields kept; a deny is never rewritten;
// agents whose protocol cannot rewrite refuse the option.
func TestGateWrap(t *testing.T) {
	bashPath, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	verdicts := map[string]verdict.Decision{"make test": verdict.Ask, "ls": verdict.Allow, "rm -rf ~": verdict.Deny}
	cfg := Config{
		Agent: ClaudeCode, Shell: "bash",
		Getenv:   func(k string) string { return map[string]string{"CLAUDE_PROJECT_DIR": "/work/proj"}[k] },
		GateWrap: &GateWrap{Mode: "deny", Rivumi: "/opt/rivumi bin/rivumi"},
		NewGrader: graderOf(func(_ context.Context, r verdict.Request) (verdict.Verdict, error) {
			return verdict.Verdict{Decision: verdicts[*r.Command]}, nil
		}),
	}
	for _, tc := range []struct {
		command, decision string
		wrapped           bool
	}{
		{"ls", "allow", true},
		{"make test", "ask", true},
		{"rm -rf ~", "deny", false},
	} {
		t.Run(tc.command, func(t *testing.T) {
			in := `{"cwd": "/work/proj", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": ` +
				quoteJSON(tc.command) + `, "timeout": 60000, "description": "d"}}`
			out, stderr, code := run(t, cfg, strings.NewReader(in))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var got struct {
				HookSpecificOutput struct {
					PermissionDecision string         `json:"permissionDecision"`
					UpdatedInput       map[string]any `json:"updatedInput"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			h := got.HookSpecificOutput
			if h.PermissionDecision != tc.decision {
				t.Errorf("decision %q, want %q", h.PermissionDecision, tc.decision)
			}
			if !tc.wrapped {
				if h.UpdatedInput != nil {
					t.Errorf("a %s was rewritten: %v", tc.decision, h.UpdatedInput)
				}
				return
			}
			want := "'/opt/rivumi bin/rivumi' run --gate deny --asks-approved --headless --sandbox landlock -- " + bashPath + " -c " + shellWord(tc.command)
			if h.UpdatedInput["command"] != want || h.UpdatedInput["timeout"] != float64(60000) || h.UpdatedInput["description"] != "d" {
				t.Errorf("updatedInput %v\nwant command %s", h.UpdatedInput, want)
			}
			// The rewritten command, read back by bash, is the argv intended.
			argv, err := exec.Command(bashPath, "-c", `printf '%s\n' `+h.UpdatedInput["command"].(string)).Output()
			if err != nil || !strings.HasSuffix(string(argv), "\n-c\n"+tc.command+"\n") {
				t.Errorf("bash reads the command back as %q (%v)", argv, err)
			}
		})
	}
	for _, agent := range []Agent{Codex, Gemini} {
		if err := CheckGateWrap(agent, &GateWrap{Mode: "deny", Rivumi: "/r"}); err == nil {
			t.Errorf("%s: --gate accepted, but its protocol cannot rewrite a command", agent)
		}
	}
	if err := CheckGateWrap(ClaudeCode, &GateWrap{Mode: "sometimes", Rivumi: "/r"}); err == nil {
		t.Error("an unknown gate mode was accepted")
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func shellWord(s string) string {
	if strings.ContainsAny(s, " ~") {
		return "'" + s + "'"
	}
	return s
}
