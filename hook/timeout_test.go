package hook

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTimeoutProblem(t *testing.T) {
	n := func(s string) map[string]any { return map[string]any{"timeout": json.Number(s)} }
	for _, tc := range []struct {
		agent   Agent
		command string
		hook    map[string]any
		problem string // a substring; "" for none
	}{
		{ClaudeCode, "/b/rivumi hook claude-code", n("10"), ""},
		{ClaudeCode, "/b/rivumi hook claude-code", n("6"), ""},
		{ClaudeCode, "/b/rivumi hook claude-code", n("5"), "timeout 5s does not exceed rivumi's 6s"},
		{ClaudeCode, "/b/rivumi hook claude-code --timeout 30s", n("10"), "deadline 30s"},
		{ClaudeCode, "/b/rivumi hook claude-code --timeout=2s", n("3"), ""},
		{ClaudeCode, "/b/rivumi-hook hook claude-code", n("10"), "thin client"},
		{ClaudeCode, "/b/rivumi-hook hook claude-code", n("12"), ""},
		{Gemini, "/b/rivumi hook gemini", n("5000"), "5s does not exceed"},
		{Gemini, "/b/rivumi hook gemini", n("10000"), ""},
		// The thin client, the default form, in every agent's units.
		{Gemini, "/b/rivumi-hook hook gemini", n("10000"), "thin client"},
		{Gemini, "/b/rivumi-hook hook gemini", n("12000"), ""},
		{Qwen, "/b/rivumi-hook hook qwen", n("11"), "does not exceed rivumi's 12s"},
		{OpenCode, "'/b c/rivumi-hook' hook opencode", n("11999"), "thin client"},
		{OpenCode, "'/b c/rivumi-hook' hook opencode", n("12000"), ""},
		{ClaudeCode, "/b/rivumi-hook.exe hook claude-code -- --timeout 1h", n("12"), ""},
		{Codex, "/b/rivumi hook codex", map[string]any{}, ""}, // Codex's default, 600 s
		{ClaudeCode, "/b/rivumi hook claude-code --timeout", n("10"), "without a value"},
		{ClaudeCode, "/b/rivumi hook claude-code --timeout x", n("10"), "not a duration"},
		{ClaudeCode, "/b/rivumi hook claude-code", map[string]any{"timeout": "10"}, "not a number"},
	} {
		got := TimeoutProblem(tc.agent, Installed{Command: tc.command, Hook: tc.hook})
		if (tc.problem == "") != (got == "") || !strings.Contains(got, tc.problem) {
			t.Errorf("TimeoutProblem(%s, %q, %v) = %q, want %q", tc.agent, tc.command, tc.hook, got, tc.problem)
		}
	}
	if got := MinAgentTimeout(5*time.Second, true); got != 12*time.Second {
		t.Errorf("MinAgentTimeout(5s, thin) = %v, want 12s", got)
	}
}

// TestCommandArgs: the hook flags of an installed command line are read
// back exactly as HookCommand quoted them; anything a shell would expand
// or treat as an operator is refused rather than guessed.
func TestCommandArgs(t *testing.T) {
	odd := []string{"--audit", "/a b/it's \"x\"/log", "--protect", "é\x7f\r\n*", "--socket="}
	for _, tc := range []struct {
		agent   Agent
		command string
		want    []string // nil: an error
	}{
		{ClaudeCode, HookCommand("/b/rivumi-hook", ClaudeCode), []string{}},
		{Gemini, HookCommand("/b c/rivumi", Gemini, "--socket", "none"), []string{"--socket", "none"}},
		{Codex, HookCommand("/b/rivumi-hook", Codex, odd...), odd},
		{ClaudeCode, `/b/rivumi hook claude-code --audit "/x \"y\"/\$z" \ a`, []string{"--audit", `/x "y"/$z`, " a"}},
		{ClaudeCode, `/b/rivumi hook claude-code --audit $'\x41\'\\'`, []string{"--audit", `A'\`}},
		{ClaudeCode, "/b/rivumi hook gemini", nil}, // another agent
		{ClaudeCode, "/b/rivumi hook", nil},
		{ClaudeCode, "/b/rivumi hook claude-code --audit $HOME/log", nil},
		{ClaudeCode, "/b/rivumi hook claude-code; rm -rf /", nil},
		{ClaudeCode, "/b/rivumi hook claude-code --audit \"$(id)\"", nil},
		{ClaudeCode, "/b/rivumi hook claude-code --audit 'x", nil},
		{ClaudeCode, "/b/rivumi hook claude-code --audit $'\\q'", nil},
		{ClaudeCode, "/b/rivumi hook claude-code --audit \\", nil},
		{ClaudeCode, "/b/rivumi hook claude-code --protect *.env", nil},
	} {
		got, err := CommandArgs(tc.command, tc.agent)
		if tc.want == nil {
			if err == nil {
				t.Errorf("CommandArgs(%q, %s) = %q, want an error", tc.command, tc.agent, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("CommandArgs(%q, %s) = %q, %v; want %q", tc.command, tc.agent, got, err, tc.want)
		}
	}
}
