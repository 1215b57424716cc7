// Command floor is the floor a hook call is measured against in
// scripts/bench: a static Go program that reads a Claude Code hook payload
// on stdin, decodes it and prints an answer, grading nothing. A hook that
// costs about this much spends nothing beyond starting a Go process.
package main

import (
	"encoding/json"
	"io"
	"os"
)

func main() {
	b, err := io.ReadAll(io.LimitReader(os.Stdin, 4<<20))
	if err != nil {
		os.Exit(2)
	}
	var p struct {
		ToolName  string `json:"tool_name"`
		ToolInput struct {
			Command string `json:"command"`
		} `json:"tool_input"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		os.Exit(2)
	}
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": "PreToolUse", "permissionDecision": "ask",
		"permissionDecisionReason": "floor: " + p.ToolName + " " + p.ToolInput.Command,
	}})
	os.Stdout.Write(append(out, '\n'))
}
