package hook

import (
	"path/filepath"
	"time"
)

// Qwen is Qwen Code (`@qwen-code/qwen-code`, a fork of Gemini CLI whose
// hooks follow Claude Code's protocol).
//
// Measured against Qwen Code 0.24.4 (its installed source and end-to-end
// runs, docs/agents.md):
//
//   - Wiring: `hooks.PreToolUse` in ~/.qwen/settings.json (project:
//     .qwen/settings.json), Claude Code's shape: `{"matcher": …, "hooks":
//     [{"type": "command", "command": …, "timeout": SECONDS}]}`; a timeout
//     of 1000 or more is read as milliseconds (the old form); default 60 s.
//     Qwen runs the command with bash.
//   - Payload: `session_id`, `transcript_path`, `cwd`, `hook_event_name:
//     "PreToolUse"`, `timestamp`, `permission_mode` (default, plan,
//     auto-edit, auto, yolo), `prompt_id`, `tool_name`, `tool_input`,
//     `tool_use_id`, `tool_call_id`. The hook's environment has
//     QWEN_PROJECT_DIR (and GEMINI_PROJECT_DIR, CLAUDE_PROJECT_DIR) = the
//     project.
//   - Answer: Claude Code's `hookSpecificOutput.permissionDecision` (or a
//     top-level `decision`). deny blocks, with the reason to the model; ask
//     shows Qwen's confirmation in an interactive session, whatever the
//     approval mode (yolo too), and is denied in a headless one; exit 2
//     blocks with stderr as the reason. Any other exit, a timeout, a hook
//     killed by a signal, or one that cannot start lets the tool run.
//   - Tools that run, write or read: run_shell_command and monitor
//     (`command`, `directory`), write_file, edit (`file_path`),
//     notebook_edit (`notebook_path`), read_file (`file_path`), grep_search
//     (`path`, `glob`). Deferred tools called through `tool_call` reach the
//     hook under their own name.
const Qwen Agent = "qwen"

// QwenMatcher is the matcher `rivumi hook install qwen` writes.
const QwenMatcher = "run_shell_command|monitor|write_file|edit|notebook_edit|read_file|grep_search"

func init() {
	shellTools[Qwen] = map[string]bool{"run_shell_command": true, "monitor": true}
	fileTools[Qwen] = map[string]fileTool{
		"read_file":     {op: OpRead, fields: []string{"file_path", "absolute_path"}},
		"write_file":    {op: OpWrite, fields: []string{"file_path"}},
		"edit":          {op: OpWrite, fields: []string{"file_path"}},
		"replace":       {op: OpWrite, fields: []string{"file_path"}},
		"notebook_edit": {op: OpWrite, fields: []string{"notebook_path"}},
		"grep_search":   {op: OpRead, dir: []string{"path"}, glob: "glob"},
	}
	Matchers[Qwen] = QwenMatcher
	profiles[Qwen] = profile{
		event:       "PreToolUse",
		projectVars: []string{"QWEN_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"},
		shell:       "bash",
		// Qwen asks in an interactive session and denies in a headless
		// one, in every approval mode.
		askable: func(*Config) bool { return true },
		answer:  claudeAnswer,
		settings: func(_ Scope, base string, _ func(string) string) string {
			return filepath.Join(base, ".qwen", "settings.json")
		},
		sampleTool:     "run_shell_command",
		defaultTimeout: 60 * time.Second,
		hooksOff:       qwenHooksOff,
	}
}

// qwenHooksOff finds what turns Qwen Code's hooks off: "disableAllHooks"
// in its user or project settings, and its shell execution sandbox
// ("tools.executionSandbox"), with which Qwen 0.24 runs no hook at all.
// `qwen --bare` and safe mode turn them off too, which no file shows.
func qwenHooksOff(home, root string, _ func(string) string) []Finding {
	var files []string
	if home != "" {
		files = append(files, filepath.Join(home, ".qwen", "settings.json"))
	}
	if root != "" && root != home {
		files = append(files, filepath.Join(root, ".qwen", "settings.json"))
	}
	var out []Finding
	for _, f := range files {
		s, err := readJSONObject(f, true)
		if err != nil {
			out = append(out, fail("qwen: %v: Qwen Code cannot read its settings", err))
			continue
		}
		if v, _ := s["disableAllHooks"].(bool); v {
			out = append(out, fail(`qwen: %s sets "disableAllHooks": true: Qwen Code runs no hook, rivumi included; remove it`, f))
		}
		if tools, _ := s["tools"].(map[string]any); tools != nil {
			if sb, ok := tools["executionSandbox"]; ok && sb != nil && sb != false && sb != "" {
				out = append(out, fail(`qwen: %s sets "tools.executionSandbox": Qwen Code 0.24 runs no hook while its execution sandbox is on, rivumi included`, f))
			}
		}
	}
	return append(out, ok("qwen: `qwen --bare` and safe mode run no hook at all: rivumi does not guard such sessions"))
}
