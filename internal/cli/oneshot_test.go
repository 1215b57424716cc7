package cli

import "testing"

func TestOneShot(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"hook", "claude-code"}, true},
		{[]string{"hook", "codex", "--socket", "none"}, true},
		{[]string{"hook", "gemini"}, true},
		{[]string{"policy", "eval", "ls -la"}, true},
		{[]string{"policy", "explain", "ls"}, true},
		{[]string{"policy", "eval", "--batch", "-"}, false},
		{[]string{"policy", "eval", "--batch=f.jsonl"}, false},
		{[]string{"serve", "--socket"}, false},
		{[]string{"hook", "install", "claude-code"}, false},
		{[]string{"policy", "test"}, false},
		{[]string{"run", "--", "ls"}, false},
		{[]string{"mcp"}, false},
		{nil, false},
	} {
		if got := OneShot(tc.args); got != tc.want {
			t.Errorf("OneShot(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
