package hook

import (
	"path/filepath"
	"time"
)

// OpenCode is opencode (`opencode-ai` on npm).
//
// Measured against opencode 1.18.33 (its installed binary's bundled source
// and end-to-end runs, docs/agents.md):
//
//   - opencode has no command hooks: rivumi's guard is a plugin, a module
//     in a plugin directory that opencode loads by itself (any *.js or
//     *.ts file in {plugin,plugins}/ of its global configuration directory,
//     $XDG_CONFIG_HOME/opencode (~/.config/opencode), or of a project's
//     .opencode/). Plugins run inside opencode (Bun).
//   - Before each tool runs (the model's, MCP tools, a subagent's, code
//     mode's child tools) opencode awaits every plugin's
//     `"tool.execute.before"(input, output)` with input {tool, sessionID,
//     callID} and output {args}; a hook that throws stops the tool, and
//     the error's message is the tool's result the model sees. A plugin
//     cannot ask the user from there, so an ask is denied with the reason.
//   - The plugin's context names the project: `directory` (where opencode
//     was started) and `worktree` (its git root, "/" outside a repository).
//   - Tools that run, write or read: bash (`command`, `workdir`), write,
//     edit (`filePath`), apply_patch (`patchText`, offered to GPT models
//     instead of edit and write), read (`filePath`), grep (`path`,
//     `include`). bash runs in the configured shell, else $SHELL's (not
//     fish or nu), else bash.
const OpenCode Agent = "opencode"

// OpenCodeMatcher selects the tools the opencode plugin sends to rivumi.
const OpenCodeMatcher = "bash|write|edit|multiedit|apply_patch|patch|read|grep"

// openCodePlugin is the opencode glue after the shared runner (plugin.go).
const openCodePlugin = `// opencode calls this before every tool; throwing stops the tool.
export const RivumiGuard = async ({ directory, worktree }) => {
  const project = worktree && worktree !== "/" ? worktree : directory
  return {
    "tool.execute.before": async (input, output) => {
      const r = await rivumiCheck(input.tool, output.args, input.sessionID, project, false)
      if (r.decision === "deny" || r.decision === "ask") throw new Error(r.reason)
    },
  }
}
`

func init() {
	shellTools[OpenCode] = map[string]bool{"bash": true}
	fileTools[OpenCode] = map[string]fileTool{
		"read":        {op: OpRead, fields: []string{"filePath"}},
		"write":       {op: OpWrite, fields: []string{"filePath"}},
		"edit":        {op: OpWrite, fields: []string{"filePath"}},
		"multiedit":   {op: OpWrite, fields: []string{"filePath"}},
		"apply_patch": {op: OpWrite, patch: true},
		"patch":       {op: OpWrite, patch: true},
		"grep":        {op: OpRead, dir: []string{"path"}, glob: "include"},
	}
	Matchers[OpenCode] = OpenCodeMatcher
	profiles[OpenCode] = profile{
		event:       "PreToolUse",
		projectVars: []string{"RIVUMI_AGENT_PROJECT"},
		cannotAsk:   "an opencode plugin cannot ask",
		answer:      claudeAnswer,
		settings: func(scope Scope, base string, getenv func(string) string) string {
			if scope == ScopeUser {
				return filepath.Join(xdgConfig(base, getenv), "opencode", "plugin", "rivumi.js")
			}
			return filepath.Join(base, ".opencode", "plugin", "rivumi.js")
		},
		sampleTool:     "bash",
		defaultTimeout: 30 * time.Second,
		plugin:         openCodePlugin,
		blocks:         pluginBlocks,
	}
}

// claudeAnswer is Claude Code's answer, which Qwen Code and rivumi's own
// plugins read.
func claudeAnswer(a Answer) any {
	if a.Reply == "" {
		return nil
	}
	return hookOutput(a.Reply, a.Reason)
}

// xdgConfig is $XDG_CONFIG_HOME when it is absolute, else home/.config.
func xdgConfig(home string, getenv func(string) string) string {
	if getenv != nil {
		if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
			return d
		}
	}
	return filepath.Join(home, ".config")
}
