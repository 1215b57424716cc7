package hook

import "testing"

func TestGeminiArgsInteractive(t *testing.T) {
	for _, c := range []struct {
		args []string
		tty  bool
		want bool
	}{
		{nil, true, true},
		{nil, false, false},
		{[]string{"-p", "do it"}, true, false},
		{[]string{"--prompt=do it"}, true, false},
		{[]string{"--approval-mode", "yolo", "--prompt", "x"}, true, false},
		{[]string{"-i", "hello"}, false, true},
		{[]string{"--prompt-interactive=hello"}, false, true},
		{[]string{"--", "-p"}, true, true},
	} {
		if got := geminiArgsInteractive(c.args, c.tty); got != c.want {
			t.Errorf("geminiArgsInteractive(%q, %v) = %v, want %v", c.args, c.tty, got, c.want)
		}
	}
}

func TestGeminiScript(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want int
	}{
		{[]string{"node", "/usr/lib/node_modules/@google/gemini-cli/bundle/gemini.js", "-p", "x"}, 1},
		{[]string{"/usr/bin/node", "--max-old-space-size=12052", "/root/.npm/bin/gemini", "-p", "do it"}, 2},
		{[]string{"/usr/local/bin/gemini"}, 0},
		{[]string{"timeout", "120", "/usr/local/bin/gemini"}, -1},
		{[]string{"/bin/sh", "-c", "rivumi hook gemini"}, -1},
		{[]string{"node", "server.js", "gemini"}, -1},
		{nil, -1},
	} {
		if got := geminiScript(c.argv); got != c.want {
			t.Errorf("geminiScript(%q) = %d, want %d", c.argv, got, c.want)
		}
	}
}

// Blocks follows each agent's measured rules (docs/agents.md).
func TestBlocks(t *testing.T) {
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`
	bare := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`
	for _, c := range []struct {
		agent          Agent
		stdout, stderr string
		exit           int
		want           bool
	}{
		{ClaudeCode, deny, "", 0, true},
		{ClaudeCode, bare, "", 0, true},
		{ClaudeCode, "", "why", 2, true},
		{ClaudeCode, "", "", 2, true},
		{ClaudeCode, "", "why", 1, false},
		{ClaudeCode, `{"hookSpecificOutput":{"permissionDecision":"ask"}}`, "", 0, false},
		{Codex, deny, "", 0, true},
		{Codex, bare, "", 0, false},
		{Codex, "", "why", 2, true},
		{Codex, "", "", 2, false},
		{Codex, "", "why", 1, false},
		{Gemini, `{"decision":"deny","reason":"no"}`, "", 0, true},
		{Gemini, `{"decision":"block"}`, "", 0, true},
		{Gemini, `{"decision":"ask"}`, "", 0, false},
		{Gemini, `{"decision":"allow"}`, "", 2, false},
		{Gemini, "", "why", 2, true},
		{Gemini, "", "why", 127, true},
		{Gemini, "", "why", 1, false},
		{Gemini, "", "", 2, false},
		{Gemini, "", `{"decision":"deny"}`, 3, true},
		{Gemini, `{}`, "", 0, false},
	} {
		if got, _ := Blocks(c.agent, []byte(c.stdout), []byte(c.stderr), c.exit); got != c.want {
			t.Errorf("Blocks(%s, %q, %q, %d) = %v, want %v", c.agent, c.stdout, c.stderr, c.exit, got, c.want)
		}
	}
}
