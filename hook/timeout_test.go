package hook

import (
	"encoding/json"
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
