package hook

import (
	"github.com/rivumi/rivumi/internal/lazyre"
	"path/filepath"
	"strings"
	"time"
)

// Pi is pi (`@mariozechner/pi-coding-agent`).
//
// Measured against pi 0.73.1 (its installed source and end-to-end runs,
// docs/agents.md):
//
//   - pi has no command hooks: rivumi's guard is an extension, a module
//     pi discovers by itself in the extensions directory of its agent
//     directory ($PI_CODING_AGENT_DIR, else ~/.pi/agent) or in
//     .pi/extensions/ of the directory it starts in (*.ts or *.js, loaded
//     through jiti). `pi --no-extensions` (-ne) loads none.
//   - Before each tool runs, pi awaits every extension's "tool_call"
//     handler with event {toolName, toolCallId, input} and a context with
//     cwd (the session's directory), hasUI (false in print and JSON mode)
//     and ui.confirm. A handler that returns {block: true, reason} or
//     throws stops the tool; the reason is the tool's result the model
//     sees. With a UI the extension asks the user (ui.confirm); without
//     one an ask is denied with the reason.
//   - Tools: read, bash, edit, write (the default set), grep, find, ls.
//     bash (`command`) runs /bin/bash -c (else bash on PATH, else sh) in
//     the session's directory; file tools take `path`, relative to it,
//     with "~" expanded, a leading "@" dropped and Unicode spaces made
//     plain; grep takes `path` and `glob`.
const Pi Agent = "pi"

// PiMatcher selects the tools the pi extension sends to rivumi.
const PiMatcher = "bash|read|write|edit|grep"

// piExtension is the glue of pi's extension (and oh-my-pi's, whose
// extension API is pi's) after the shared runner (plugin.go).
const piExtension = `// pi awaits this before every tool; {block: true} stops the tool.
export default function rivumiGuard(pi) {
  pi.on("tool_call", async (event, ctx) => {
    let session = ""
    try { session = ctx.sessionManager.getSessionId() } catch {}
    const r = await rivumiCheck(event.toolName, event.input, session, ctx.cwd, ctx.hasUI)
    if (r.decision === "deny") return { block: true, reason: r.reason }
    if (r.decision === "ask") {
      if (!ctx.hasUI) return { block: true, reason: r.reason }
      let ok = false
      try { ok = await ctx.ui.confirm("rivumi asks", r.reason) } catch {}
      if (!ok) return { block: true, reason: "the user did not confirm: " + r.reason }
    }
    return undefined
  })
}
`

func init() {
	registerPiLike(Pi, "PI_CODING_AGENT_DIR", ".pi", "a pi session without a UI (print or JSON mode) cannot ask")
}

// registerPiLike registers pi or a fork of it: the environment variable
// naming its agent directory, its configuration directory's name.
func registerPiLike(agent Agent, dirVar, configDir, cannotAsk string) {
	shellTools[agent] = map[string]bool{"bash": true}
	fileTools[agent] = map[string]fileTool{
		"read":  {op: OpRead, fields: []string{"path"}},
		"write": {op: OpWrite, fields: []string{"path"}},
		"edit":  {op: OpWrite, fields: []string{"path"}},
		"grep":  {op: OpRead, dir: []string{"path"}, glob: "glob"},
	}
	Matchers[agent] = PiMatcher
	profiles[agent] = profile{
		event:       "PreToolUse",
		projectVars: []string{"RIVUMI_AGENT_PROJECT"},
		shell:       "bash",
		askable:     func(cfg *Config) bool { return cfg.Getenv("RIVUMI_AGENT_CAN_ASK") == "1" },
		cannotAsk:   cannotAsk,
		answer:      claudeAnswer,
		settings: func(scope Scope, base string, getenv func(string) string) string {
			if scope == ScopeUser {
				dir := filepath.Join(base, configDir, "agent")
				if getenv != nil {
					if d := getenv(dirVar); d != "" {
						dir = expandTilde(d, base)
					}
				}
				return filepath.Join(dir, "extensions", "rivumi.js")
			}
			return filepath.Join(base, configDir, "extensions", "rivumi.js")
		},
		sampleTool:     "bash",
		defaultTimeout: 30 * time.Second,
		plugin:         piExtension,
		blocks:         pluginBlocks,
		fixInput:       piPaths,
	}
}

// piSpaces are the Unicode spaces pi reads as a plain space in a path.
var piSpaces = lazyre.New("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")

// piPaths rewrites the path of a file tool as pi reads it: without a
// leading "@", Unicode spaces as plain ones ("~" is expanded by the path
// policy itself).
func piPaths(tool string, in map[string]any) {
	if tool == "bash" {
		return
	}
	if p, ok := in["path"].(string); ok {
		in["path"] = piSpaces().ReplaceAllString(strings.TrimPrefix(p, "@"), " ")
	}
}

// expandTilde expands a leading "~" or "~/" against home.
func expandTilde(p, home string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}
