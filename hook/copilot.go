package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/rivumi/rivumi/internal/strictjson"
)

// Copilot is GitHub Copilot CLI (`@github/copilot`).
//
// Measured against Copilot CLI 1.0.102 (its help, changelog and end-to-end
// runs with a custom OpenAI-compatible provider, docs/agents.md):
//
//   - Wiring: `hooks.preToolUse` in the user's settings,
//     $COPILOT_HOME/settings.json (~/.copilot/settings.json), or the
//     repository's .github/copilot/settings.json (or .github/hooks/*.json);
//     Claude Code's nested `{"matcher": REGEXP, "hooks": [{"type":
//     "command", "command": …, "timeout": SECONDS}]}` groups are accepted.
//     `disableAllHooks: true` turns every hook off.
//   - Payload: `{"sessionId", "timestamp", "cwd", "toolName", "toolArgs"}`,
//     toolArgs an object (a JSON string in older versions); the hook's
//     environment has COPILOT_PROJECT_DIR and CLAUDE_PROJECT_DIR.
//   - Answer: top-level `{"permissionDecision": "allow"|"deny"|"ask",
//     "permissionDecisionReason": …}` (Claude Code's hookSpecificOutput is
//     ignored: the tool runs). deny blocks; ask prompts in an interactive
//     session and is denied where nobody can answer (-p); exit 2 blocks
//     (without stderr as the reason). Copilot fails closed: a hook that
//     exits 1, dies by a signal or cannot start denies the tool.
//   - Tools that run, write or read: bash (`command`), write_bash (`input`
//     typed into a running shell), create, edit (`path`), view (`path`),
//     grep (`paths`, one directory or several, and `glob`). Commands run
//     in bash.
const Copilot Agent = "copilot"

// CopilotMatcher is the matcher `rivumi hook install copilot` writes.
const CopilotMatcher = "bash|write_bash|create|edit|view|grep"

func init() {
	shellTools[Copilot] = map[string]bool{"bash": true, "write_bash": true}
	fileTools[Copilot] = map[string]fileTool{
		"view":   {op: OpRead, fields: []string{"path"}},
		"create": {op: OpWrite, fields: []string{"path"}},
		"edit":   {op: OpWrite, fields: []string{"path"}},
		"grep":   {op: OpRead, dir: []string{"paths", "path"}, glob: "glob"},
	}
	Matchers[Copilot] = CopilotMatcher
	profiles[Copilot] = profile{
		event:       "preToolUse",
		projectVars: []string{"COPILOT_PROJECT_DIR", "CLAUDE_PROJECT_DIR"},
		shell:       "bash",
		// Copilot asks in an interactive session and denies the ask in a
		// headless one.
		askable: func(*Config) bool { return true },
		answer: func(a Answer) any {
			if a.Reply == "" {
				return nil
			}
			return map[string]string{"permissionDecision": a.Reply, "permissionDecisionReason": a.Reason}
		},
		settings: func(scope Scope, base string, getenv func(string) string) string {
			if scope == ScopeUser {
				if getenv != nil {
					if h := getenv("COPILOT_HOME"); filepath.IsAbs(h) {
						return filepath.Join(h, "settings.json")
					}
				}
				return filepath.Join(base, ".copilot", "settings.json")
			}
			return filepath.Join(base, ".github", "copilot", "settings.json")
		},
		sampleTool:     "bash",
		defaultTimeout: 30 * time.Second,
		translate:      copilotPayload,
		fixInput: func(tool string, in map[string]any) {
			if tool == "write_bash" {
				// What is typed into the running shell is a command.
				in["command"] = in["input"]
			}
		},
		hooksOff: copilotHooksOff,
		blocks:   copilotBlocks,
	}
}

// copilotBlocks is [Blocks] for Copilot CLI 1.0.102 (measured): any exit
// but 0 denies (2, 1, a signal, a command that cannot start); exit 0 with a
// top-level permissionDecision of deny denies; anything else runs the tool.
func copilotBlocks(stdout, stderr []byte, exit int) (bool, string) {
	if exit != 0 {
		return true, fmt.Sprintf("exit status %d denies (Copilot CLI fails closed)", exit)
	}
	stdout = bytes.TrimSpace(stdout)
	if len(stdout) == 0 {
		return false, "no answer"
	}
	var out struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		return false, "answer is not JSON: " + err.Error()
	}
	return out.PermissionDecision == "deny", out.PermissionDecisionReason
}

// copilotPayload turns Copilot CLI's payload into the common shape.
func copilotPayload(b []byte) ([]byte, error) {
	var p struct {
		SessionID string          `json:"sessionId"`
		Cwd       *string         `json:"cwd"`
		ToolName  *string         `json:"toolName"`
		ToolArgs  json.RawMessage `json:"toolArgs"`
	}
	if err := strictjson.Decode(b, &p, strictjson.AllowUnknown()); err != nil {
		return nil, err
	}
	if p.ToolName == nil {
		return nil, errors.New(`no "toolName"`)
	}
	args := p.ToolArgs
	var s string
	if json.Unmarshal(args, &s) == nil { // a JSON string holding the object
		args = json.RawMessage(s)
	}
	out := map[string]any{"session_id": p.SessionID, "hook_event_name": "preToolUse", "tool_name": *p.ToolName, "tool_input": args}
	if p.Cwd != nil {
		out["cwd"] = *p.Cwd
	}
	return json.Marshal(out)
}

// copilotHooksOff finds "disableAllHooks" in Copilot CLI's user and
// repository settings.
func copilotHooksOff(home, root string, getenv func(string) string) []Finding {
	files := []string{filepath.Join(home, ".copilot", "settings.json")}
	if h := getenv("COPILOT_HOME"); filepath.IsAbs(h) {
		files[0] = filepath.Join(h, "settings.json")
	}
	if root != "" {
		files = append(files, filepath.Join(root, ".github", "copilot", "settings.json"), filepath.Join(root, ".github", "copilot", "settings.local.json"))
	}
	var out []Finding
	for _, f := range files {
		s, err := readJSONObject(f, false)
		if err != nil {
			out = append(out, fail("copilot: %v: Copilot CLI cannot read its settings", err))
			continue
		}
		if v, _ := s["disableAllHooks"].(bool); v {
			out = append(out, fail(`copilot: %s sets "disableAllHooks": true: Copilot CLI runs no hook, rivumi included; remove it`, f))
		}
	}
	if strings.TrimSpace(getenv("COPILOT_ALLOW_ALL")) != "" {
		out = append(out, ok("copilot: COPILOT_ALLOW_ALL is set: Copilot approves tools without asking, but still runs preToolUse hooks"))
	}
	return out
}
