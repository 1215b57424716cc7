package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/rivumi/rivumi/internal/lockedfile"
	"github.com/rivumi/rivumi/internal/shquote"
)

// Scope says which settings file an install writes.
type Scope string

// The scopes.
const (
	ScopeProject Scope = "project"
	ScopeUser    Scope = "user"
)

// SettingsFile returns the settings file holding agent's hooks for scope:
// for the project rooted at dir, or for the user with home directory home.
//
//	claude-code  .claude/settings.json   ~/.claude/settings.json
//	gemini       .gemini/settings.json   ~/.gemini/settings.json
//	codex        .codex/hooks.json       $CODEX_HOME/hooks.json (~/.codex)
func SettingsFile(agent Agent, scope Scope, dir, home string, getenv func(string) string) string {
	base := dir
	if scope == ScopeUser {
		base = home
	}
	if p, ok := profiles[agent]; ok && p.settings != nil {
		return p.settings(scope, base, getenv)
	}
	switch agent {
	case Gemini:
		return filepath.Join(base, ".gemini", "settings.json")
	case Codex:
		if scope == ScopeUser && getenv != nil && getenv("CODEX_HOME") != "" {
			return filepath.Join(getenv("CODEX_HOME"), "hooks.json")
		}
		return filepath.Join(base, ".codex", "hooks.json")
	}
	return filepath.Join(base, ".claude", "settings.json")
}

// Matchers are the tools each agent's entry hooks.
var Matchers = map[Agent]string{
	ClaudeCode: "Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Grep|Skill|CronCreate",
	Gemini:     "run_shell_command|read_file|read_many_files|write_file|replace|grep_search|search_file_content",
	Codex:      CodexMatcher,
}

// Entry is the hook entry Install writes.
type Entry struct {
	Agent   Agent
	Command string // the full command line, absolute binary path first
	// Argv is Command's words (the plugin agents run it without a shell).
	Argv    []string
	Matcher string
	Timeout time.Duration
}

// HookCommand returns the command line that runs `rivumi hook AGENT`
// with the binary at exe (absolute) and extra flags, quoted for a shell.
func HookCommand(exe string, agent Agent, flags ...string) string {
	parts := []string{shquote.Word(exe), "hook", string(agent)}
	for _, f := range flags {
		parts = append(parts, shquote.Word(f))
	}
	return strings.Join(parts, " ")
}

// group renders the entry as the agent's matcher group.
func (e Entry) group() map[string]any {
	h := map[string]any{"type": "command", "command": e.Command}
	switch e.Agent {
	case Gemini:
		h["name"] = "rivumi"
		h["timeout"] = e.Timeout.Milliseconds() // Gemini counts milliseconds
	default:
		h["timeout"] = int64(e.Timeout / time.Second)
	}
	return map[string]any{"matcher": e.Matcher, "hooks": []any{h}}
}

// Snippet returns the settings JSON holding only the entry, as docs show it.
func (e Entry) Snippet() string {
	b, _ := json.MarshalIndent(map[string]any{"hooks": map[string]any{e.Agent.event(): []any{e.group()}}}, "", "  ")
	return string(b)
}

// IsRivumiHook reports whether a hook command line runs `rivumi hook
// agent` (any binary path whose name starts with rivumi).
func IsRivumiHook(command string, agent Agent) bool {
	f := strings.Fields(command)
	for i := 0; i+2 < len(f); i++ {
		if f[i+1] == "hook" && f[i+2] == string(agent) && strings.HasPrefix(filepath.Base(strings.Trim(f[i], `'"`)), "rivumi") {
			return true
		}
	}
	return false
}

// Install merges e into the settings file path: an existing rivumi entry
// for the agent is replaced in place (so installing twice changes
// nothing), other hooks and settings are kept. When the file changes, the
// previous version is kept as path.bak. The file is read and written under
// its lock (path.lock beside it), atomically and with fsync, so concurrent
// installs keep each other's entries. It reports whether the file changed.
// A file that is not a JSON object is left alone (an error).
func Install(path string, e Entry) (changed bool, err error) {
	if p := profiles[e.Agent]; p.plugin != "" {
		return installPlugin(path, e, p.plugin)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	// Under the file's lock (internal/lockedfile), so concurrent installs
	// keep each other's entries, and written atomically with fsync.
	err = lockedfile.Update(path, 0o644, func(old []byte, existed bool) ([]byte, error) {
		settings := map[string]any{}
		if existed && len(bytes.TrimSpace(old)) > 0 {
			if err := json.Unmarshal(old, &settings); err != nil {
				return nil, fmt.Errorf("%s: not a JSON object (%v); add the hook by hand:\n%s", path, err, e.Snippet())
			}
		}
		if err := merge(settings, e); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		b, err := json.MarshalIndent(settings, "", "  ")
		if err != nil {
			return nil, err
		}
		b = append(b, '\n')
		if existed && bytes.Equal(b, old) {
			return old, nil
		}
		if existed {
			mode := os.FileMode(0o644)
			if fi, err := os.Stat(path); err == nil {
				mode = fi.Mode().Perm()
			}
			if err := lockedfile.WriteAtomic(path+".bak", old, mode); err != nil {
				return nil, fmt.Errorf("backup: %v", err)
			}
		}
		changed = true
		return b, nil
	})
	return changed, err
}

// merge puts e's group into settings["hooks"][event].
func merge(settings map[string]any, e Entry) error {
	hooks, ok := settings["hooks"].(map[string]any)
	if settings["hooks"] != nil && !ok {
		return errors.New(`"hooks" is not an object`)
	}
	if hooks == nil {
		hooks = map[string]any{}
		settings["hooks"] = hooks
	}
	event := e.Agent.event()
	groups, ok := hooks[event].([]any)
	if hooks[event] != nil && !ok {
		return fmt.Errorf(`"hooks.%s" is not an array`, event)
	}
	for i, g := range groups {
		gm, _ := g.(map[string]any)
		hs, _ := gm["hooks"].([]any)
		for _, h := range hs {
			hm, _ := h.(map[string]any)
			if c, _ := hm["command"].(string); IsRivumiHook(c, e.Agent) {
				groups[i] = e.group()
				hooks[event] = groups
				return nil
			}
		}
	}
	hooks[event] = append(groups, e.group())
	return nil
}

// Installed is a rivumi hook entry found in a settings file.
type Installed struct {
	File    string
	Matcher string
	Command string
	// Group and Handler are the entry's position: the index of its
	// matcher group under the event, and of the hook inside the group.
	Group, Handler int
	// Hook is the hook object as written (type, command, timeout …).
	Hook map[string]any
	// HasMatcher is false when the group has no "matcher" key.
	HasMatcher bool
}

// FindInstalled returns the rivumi entries for agent in the settings
// file path (none when the file does not exist).
func FindInstalled(path string, agent Agent) ([]Installed, error) {
	if p := profiles[agent]; p.plugin != "" {
		return findPlugin(path, agent)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var settings struct {
		Hooks map[string][]struct {
			Matcher *string          `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&settings); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var out []Installed
	for gi, g := range settings.Hooks[agent.event()] {
		for hi, h := range g.Hooks {
			c, _ := h["command"].(string)
			if IsRivumiHook(c, agent) {
				e := Installed{File: path, Command: c, Group: gi, Handler: hi, Hook: h}
				if g.Matcher != nil {
					e.Matcher, e.HasMatcher = *g.Matcher, true
				}
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// CommandPath returns the program of a hook command line, unquoted.
func CommandPath(command string) string {
	command = strings.TrimSpace(command)
	if strings.HasPrefix(command, "'") {
		if i := strings.Index(command[1:], "'"); i >= 0 {
			return command[1 : i+1]
		}
	}
	if strings.HasPrefix(command, `"`) {
		if i := strings.Index(command[1:], `"`); i >= 0 {
			return command[1 : i+1]
		}
	}
	if f := strings.Fields(command); len(f) > 0 {
		return f[0]
	}
	return ""
}

// SamplePayload returns a hook input for agent running the shell command
// in cwd, as the agent would send it.
func SamplePayload(agent Agent, command, cwd string) []byte {
	tool := "Bash"
	if agent == Gemini {
		tool = "run_shell_command"
	}
	if p, ok := profiles[agent]; ok && p.sampleTool != "" {
		tool = p.sampleTool
	}
	if agent == Copilot { // its own shape (copilotPayload reads it)
		b, _ := json.Marshal(map[string]any{"sessionId": "rivumi-doctor", "timestamp": 0, "cwd": cwd,
			"toolName": tool, "toolArgs": map[string]any{"command": command}})
		return b
	}
	b, _ := json.Marshal(map[string]any{
		"session_id": "rivumi-doctor", "cwd": cwd, "hook_event_name": agent.event(),
		"tool_name": tool, "tool_input": map[string]any{"command": command},
	})
	return b
}

// Blocks reports whether a hook's output (stdout, stderr and exit code)
// blocks the tool call in agent's protocol, as measured against the real
// CLIs (docs/agents.md), and the reason given.
//
//   - Claude Code: exit 2 blocks (stderr is the reason); exit 0 with
//     permissionDecision deny blocks; any other exit runs the tool.
//   - Codex: exit 2 blocks only with text on stderr; exit 0 with
//     permissionDecision deny and a non-empty reason blocks; anything
//     else runs the tool (ask, and allow without updatedInput, too).
//   - Gemini CLI: the answer is stdout, else stderr: JSON is read for its
//     decision (deny or block blocks) whatever the exit code; plain text
//     blocks unless the exit code is 0 or 1; no output at all never
//     blocks.
func Blocks(agent Agent, stdout, stderr []byte, exit int) (bool, string) {
	if p := profiles[agent]; p.blocks != nil {
		return p.blocks(stdout, stderr, exit)
	}
	stdout, stderr = bytes.TrimSpace(stdout), bytes.TrimSpace(stderr)
	if agent == Gemini {
		text := stdout
		if len(text) == 0 {
			text = stderr
		}
		if len(text) == 0 {
			return false, fmt.Sprintf("exit status %d with no output does not block", exit)
		}
		var out struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		}
		if json.Unmarshal(text, &out) == nil {
			return out.Decision == "deny" || out.Decision == "block", out.Reason
		}
		if exit == 0 || exit == 1 {
			return false, fmt.Sprintf("plain text with exit status %d does not block", exit)
		}
		return true, string(text)
	}
	if exit == 2 {
		if agent == Codex && len(stderr) == 0 {
			return false, "exit status 2 without stderr does not block"
		}
		return true, string(stderr)
	}
	if exit != 0 {
		return false, fmt.Sprintf("exit status %d does not block", exit)
	}
	var out struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if len(stdout) == 0 {
		return false, "no answer"
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		return false, "answer is not JSON: " + err.Error()
	}
	h := out.HookSpecificOutput
	if agent == Codex && h.PermissionDecisionReason == "" {
		return false, "a deny without a reason does not block"
	}
	return h.PermissionDecision == "deny", h.PermissionDecisionReason
}

// EscapeGlob quotes the glob metacharacters of a literal path.
func EscapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CodexMatcher is the matcher `rivumi hook install codex` writes: every
// tool of Codex that writes or runs. Codex 0.171 sends exec_command,
// shell, local_shell and unified_exec to hooks as "Bash", its native
// apply_patch (and code_mode's tools.apply_patch) as "apply_patch"; the
// other names are listed for the versions that send them as they are
// (write_stdin fires no hook in 0.171).
const CodexMatcher = "Bash|apply_patch|exec_command|shell|local_shell|unified_exec|write_stdin"

// CodexApplyPatchMatcher is the matcher `--apply-patch` used to select;
// it is the default now ([CodexMatcher]), and the flag is kept so that
// scripts which pass it keep working.
const CodexApplyPatchMatcher = CodexMatcher

// CodexGuardedTools are the tool names a Codex entry's matcher must cover:
// the shell ("Bash", the name Codex sends its shell tools under) and the
// native apply_patch, which Codex also matches by the aliases "Write" and
// "Edit". Doctor fails an entry whose matcher misses one.
var CodexGuardedTools = map[string][]string{"Bash": nil, "apply_patch": {"Write", "Edit"}}

// CodexMatcherMisses returns, sorted, the tools of [CodexGuardedTools]
// that the hook matcher m does not select (by the name or an alias). An
// empty matcher or "*" selects every tool; any other is a regular
// expression, checked here as matching the whole name: a stricter reading
// than an unanchored match, so a tool reported covered is covered however
// Codex anchors it. A matcher that is not a valid regular expression
// misses every tool.
func CodexMatcherMisses(m string) []string {
	if m == "" || m == "*" {
		return nil
	}
	re, err := regexp.Compile("^(?:" + m + ")$")
	var miss []string
	for t, aliases := range CodexGuardedTools {
		covered := false
		for _, n := range append([]string{t}, aliases...) {
			covered = covered || (err == nil && re.MatchString(n))
		}
		if !covered {
			miss = append(miss, t)
		}
	}
	sort.Strings(miss)
	return miss
}
