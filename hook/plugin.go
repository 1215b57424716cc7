package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rivumi/rivumi/internal/lockedfile"
	"github.com/rivumi/rivumi/internal/shquote"
)

// Agents whose guard is a JavaScript plugin (opencode) or extension (pi,
// oh-my-pi) that rivumi writes: the agent loads it and calls it before
// each tool runs, and it runs `rivumi hook AGENT` (or the thin client) with
// a payload in Claude Code's shape on stdin:
//
//	{"session_id": …, "cwd": PROJECT, "hook_event_name": "PreToolUse",
//	 "tool_name": TOOL, "tool_input": ARGS}
//
// with RIVUMI_AGENT_PROJECT set to the agent's project directory (the one
// it was started for, never a directory the model chose) and
// RIVUMI_AGENT_CAN_ASK to 1 when the session can ask the user (a pi session
// with a UI), else 0. It reads Claude
// Code's answer: exit 0 with `hookSpecificOutput.permissionDecision` deny
// blocks the tool with the reason, ask asks where the agent can (else it
// blocks), allow or no answer lets it run. Unlike the agents' own hook
// runners, the plugin fails closed: any other exit, a signal, its
// timeout, unreadable output, or a binary that cannot start (after the
// thin client, the full binary beside it is tried) blocks the tool.

// pluginMarker starts the line of a plugin file that holds its
// configuration as JSON ([pluginConfig]); doctor reads it back.
const pluginMarker = "const RIVUMI = "

// pluginConfig is the configuration line of a plugin file.
type pluginConfig struct {
	Agent string `json:"agent"`
	// Command is the hook's argv; Fallback, when set, the full binary's,
	// run when Command cannot start.
	Command  []string `json:"command"`
	Fallback []string `json:"fallback,omitempty"`
	// TimeoutMS is how long the plugin waits for an answer; past it, it
	// kills the hook and blocks the tool.
	TimeoutMS int64 `json:"timeout_ms"`
	// Tools is the regular expression of the tool names sent to rivumi
	// (anchored by the plugin); the others run without a call.
	Tools string `json:"tools"`
}

// pluginRunner is the JavaScript shared by the plugins: it runs rivumi on
// a payload and returns {decision, reason}, decision one of allow, ask,
// deny or none. Everything that is not a clear answer is deny.
const pluginRunner = `import { spawn } from "node:child_process"

function rivumiSpawn(argv, input) {
  return new Promise((resolve) => {
    let child
    try {
      child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "pipe"], env: input.env })
    } catch (error) {
      resolve({ error })
      return
    }
    let stdout = "", stderr = "", done = false
    const finish = (r) => { if (!done) { done = true; clearTimeout(timer); resolve(r) } }
    const timer = setTimeout(() => {
      try { child.kill("SIGKILL"); child.stdout.destroy(); child.stderr.destroy() } catch {}
      finish({ error: new Error("no answer within " + RIVUMI.timeout_ms + " ms") })
    }, RIVUMI.timeout_ms)
    child.stdout.on("data", (d) => { if (stdout.length < 1 << 20) stdout += d })
    child.stderr.on("data", (d) => { if (stderr.length < 1 << 20) stderr += d })
    child.on("error", (error) => finish({ error }))
    child.on("close", (code, signal) => finish({ code, signal, stdout, stderr }))
    child.stdin.on("error", () => {})
    child.stdin.end(input.payload)
  })
}

// rivumiCheck asks rivumi about one tool call. It never throws.
// canAsk says whether the plugin can put an ask to the user.
async function rivumiCheck(tool, args, sessionID, project, canAsk) {
  const deny = (why) => ({ decision: "deny", reason: "rivumi blocked this tool call: " + why + " (rivumi fails closed)" })
  try {
    if (!new RegExp("^(?:" + RIVUMI.tools + ")$").test(tool)) return { decision: "none", reason: "" }
    const payload = JSON.stringify({ session_id: String(sessionID ?? ""), cwd: project, hook_event_name: "PreToolUse",
      tool_name: tool, tool_input: args ?? null })
    const env = { ...process.env, RIVUMI_AGENT_PROJECT: project, RIVUMI_AGENT_CAN_ASK: canAsk ? "1" : "0" }
    let r = await rivumiSpawn(RIVUMI.command, { payload, env })
    if (r.error && r.error.code === "ENOENT" && RIVUMI.fallback) r = await rivumiSpawn(RIVUMI.fallback, { payload, env })
    if (r.error) return deny("the hook did not run: " + r.error.message)
    const err = (r.stderr || "").trim()
    if (r.signal) return deny("the hook died by " + r.signal + (err ? ": " + err : ""))
    if (r.code === 2) return { decision: "deny", reason: err || "rivumi blocked this tool call" }
    if (r.code !== 0) return deny("the hook exited " + r.code + (err ? ": " + err : ""))
    const out = (r.stdout || "").trim()
    if (out === "") return { decision: "none", reason: "" }
    const h = JSON.parse(out).hookSpecificOutput || {}
    const reason = String(h.permissionDecisionReason || "")
    switch (h.permissionDecision) {
      case "allow": return { decision: "allow", reason }
      case "ask": return { decision: "ask", reason }
      case "deny": return { decision: "deny", reason: reason || "rivumi denies" }
    }
    return deny("unreadable answer: " + out.slice(0, 200))
  } catch (e) {
    return deny("internal error in the rivumi plugin: " + (e && e.message ? e.message : String(e)))
  }
}
`

// pluginHeader is the first line of every plugin file rivumi writes.
const pluginHeader = "// rivumi's guard, written by `rivumi hook install %s`; `rivumi hook doctor %s` checks it. Edit with care: it is what blocks the agent's tools.\n"

// renderPlugin returns a plugin file: the header, the configuration line,
// the shared runner and the agent's glue (body).
func renderPlugin(c pluginConfig, body string) ([]byte, error) {
	j, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, pluginHeader, c.Agent, c.Agent)
	b.WriteString(pluginMarker)
	b.Write(j)
	b.WriteString("\n\n")
	b.WriteString(pluginRunner)
	b.WriteString("\n")
	b.WriteString(body)
	return b.Bytes(), nil
}

// pluginEntry turns an install entry into a plugin's configuration: the
// thin client's fallback is the full binary beside it.
func pluginEntry(e Entry) (pluginConfig, error) {
	if len(e.Argv) == 0 {
		return pluginConfig{}, errors.New("no hook command")
	}
	if _, err := regexp.Compile("^(?:" + e.Matcher + ")$"); err != nil {
		return pluginConfig{}, fmt.Errorf("matcher %q: %v", e.Matcher, err)
	}
	c := pluginConfig{Agent: string(e.Agent), Command: e.Argv, TimeoutMS: e.Timeout.Milliseconds(), Tools: e.Matcher}
	if b := filepath.Base(e.Argv[0]); strings.HasPrefix(b, "rivumi-hook") {
		full := filepath.Join(filepath.Dir(e.Argv[0]), "rivumi"+strings.TrimPrefix(b, "rivumi-hook"))
		c.Fallback = append([]string{full}, e.Argv[1:]...)
	}
	return c, nil
}

// installPlugin writes the agent's plugin file at path (under its lock,
// atomically, the previous version kept as path.bak); it reports whether
// the file changed. A file there that rivumi did not write is left alone.
func installPlugin(path string, e Entry, body string) (changed bool, err error) {
	c, err := pluginEntry(e)
	if err != nil {
		return false, err
	}
	b, err := renderPlugin(c, body)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	err = lockedfile.Update(path, 0o644, func(old []byte, existed bool) ([]byte, error) {
		if existed && len(old) > 0 && !bytes.HasPrefix(old, []byte("// rivumi's guard")) {
			return nil, fmt.Errorf("%s exists and was not written by rivumi: move it away, or install with another scope", path)
		}
		if existed && bytes.Equal(old, b) {
			return old, nil
		}
		if existed {
			if err := lockedfile.WriteAtomic(path+".bak", old, 0o644); err != nil {
				return nil, fmt.Errorf("backup: %v", err)
			}
		}
		changed = true
		return b, nil
	})
	return changed, err
}

// findPlugin reads the plugin file at path back as an installed entry (none
// when there is no file). Its Hook holds the timeout in milliseconds.
func findPlugin(path string, agent Agent) ([]Installed, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := parsePlugin(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if c.Agent != string(agent) {
		return nil, fmt.Errorf("%s: a plugin for %q, not %s", path, c.Agent, agent)
	}
	// Any other change (the code that decides what blocks) is refused:
	// the file must be exactly what install writes for its configuration.
	if want, err := renderPlugin(c, profiles[agent].plugin); err != nil || !bytes.Equal(b, want) {
		return nil, fmt.Errorf("%s was changed since rivumi wrote it (or by another rivumi version): run `rivumi hook install %s` again", path, agent)
	}
	words := make([]string, len(c.Command))
	for i, w := range c.Command {
		words[i] = shquote.Word(w)
	}
	h := map[string]any{"timeout": json.Number(fmt.Sprint(c.TimeoutMS))}
	if c.Fallback != nil {
		h["fallback"] = c.Fallback
	}
	return []Installed{{File: path, Matcher: c.Tools, HasMatcher: true, Command: strings.Join(words, " "), Hook: h}}, nil
}

// parsePlugin reads the configuration line of a plugin file.
func parsePlugin(b []byte) (pluginConfig, error) {
	var c pluginConfig
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, pluginMarker); ok {
			if err := json.Unmarshal([]byte(rest), &c); err != nil {
				return c, fmt.Errorf("the rivumi configuration line: %v", err)
			}
			if len(c.Command) == 0 || c.TimeoutMS <= 0 {
				return c, errors.New("the rivumi configuration line names no command or timeout")
			}
			return c, nil
		}
	}
	return c, errors.New("no rivumi configuration line (" + strings.TrimSpace(pluginMarker) + " …): not a plugin rivumi wrote")
}

// pluginBlocks is [Blocks] for the plugin agents: the plugin lets the tool
// run only on exit 0 with no answer or an allow (and an ask where the
// agent asks, which doctor's floor probe never gets).
func pluginBlocks(stdout, stderr []byte, exit int) (bool, string) {
	if exit == 2 {
		return true, string(bytes.TrimSpace(stderr))
	}
	if exit != 0 {
		return true, fmt.Sprintf("exit status %d (the plugin blocks)", exit)
	}
	stdout = bytes.TrimSpace(stdout)
	if len(stdout) == 0 {
		return false, "no answer"
	}
	var out struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		return true, "answer is not JSON (the plugin blocks): " + err.Error()
	}
	h := out.HookSpecificOutput
	switch h.PermissionDecision {
	case "allow", "ask":
		return false, h.PermissionDecisionReason
	case "deny":
		return true, h.PermissionDecisionReason
	}
	return true, "unknown answer (the plugin blocks)"
}
