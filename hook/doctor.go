package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// A Finding is the outcome of one check of an agent's configuration.
type Finding struct {
	// Fail is true when the guard would not run (or not as installed).
	Fail bool
	// Text says what was found and, for a failure, the fix.
	Text string
}

// HooksOff returns what doctor reports about the settings that keep an
// agent with an adapter of its own (qwen.go, …) from running the hook:
// failures when the hook would not run, notes for the ways a session can
// turn hooks off that no file shows. Claude Code, Gemini CLI and Codex
// have their own functions ([ClaudeHooksOff], [GeminiHooksOff]).
func HooksOff(agent Agent, home, root string, getenv func(string) string) []Finding {
	if getenv == nil {
		getenv = os.Getenv
	}
	if p, ok := profiles[agent]; ok && p.hooksOff != nil {
		return p.hooksOff(home, root, getenv)
	}
	return nil
}

func ok(format string, a ...any) Finding { return Finding{Text: fmt.Sprintf(format, a...)} }
func fail(format string, a ...any) Finding {
	return Finding{Fail: true, Text: fmt.Sprintf(format, a...)}
}

// readJSONObject reads a settings file; a missing one is nil, nil. Gemini
// CLI's files may hold // and /* */ comments.
func readJSONObject(path string, comments bool) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if comments {
		b = stripJSONComments(b)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return m, nil
}

// stripJSONComments blanks // and /* */ comments outside strings.
func stripJSONComments(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr:
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			i += 2
			for i+1 < len(b) && !(b[i] == '*' && b[i+1] == '/') {
				i++
			}
			i++
			out = append(out, ' ')
		default:
			out = append(out, c)
		}
	}
	return out
}

// ClaudeManagedSettings returns Claude Code's managed settings files on
// this system: managed-settings.json and the drop-ins beside it.
func ClaudeManagedSettings() []string {
	dir := "/etc/claude-code"
	switch runtime.GOOS {
	case "darwin":
		dir = "/Library/Application Support/ClaudeCode"
	case "windows":
		dir = `C:\Program Files\ClaudeCode`
	}
	files := []string{filepath.Join(dir, "managed-settings.json")}
	drop, _ := filepath.Glob(filepath.Join(dir, "managed-settings.d", "*.json"))
	sort.Strings(drop)
	return append(files, drop...)
}

// ClaudeHooksOff checks whether Claude Code would run its hooks: the
// user's settings (home), the project's (root) and managed ones. A
// "disableAllHooks": true anywhere switches every hook off;
// "allowManagedHooksOnly": true in managed settings switches off those in
// user and project settings (where rivumi installs).
func ClaudeHooksOff(home, root string, managed []string) []Finding {
	var out []Finding
	var files []string
	if home != "" {
		files = append(files, filepath.Join(home, ".claude", "settings.json"))
	}
	if root != "" {
		files = append(files, filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json"))
	}
	isManaged := map[string]bool{}
	for _, m := range managed {
		isManaged[m] = true
	}
	for _, f := range append(files, managed...) {
		s, err := readJSONObject(f, false)
		if err != nil {
			out = append(out, fail("claude-code: %v: Claude Code cannot read its settings", err))
			continue
		}
		if v, _ := s["disableAllHooks"].(bool); v {
			fix := "remove it"
			if isManaged[f] {
				fix = "ask your administrator to remove it"
			}
			out = append(out, fail(`claude-code: %s sets "disableAllHooks": true: Claude Code runs no hook, rivumi included; %s`, f, fix))
		}
		if v, _ := s["allowManagedHooksOnly"].(bool); v && isManaged[f] {
			out = append(out, fail(`claude-code: %s sets "allowManagedHooksOnly": true: hooks in user and project settings do not run; the administrator must install rivumi's hook in managed settings`, f))
		}
	}
	return out
}

// GeminiHooksOff checks whether Gemini CLI runs hooks in the folder dir:
// hooksConfig.enabled false or the rivumi hook listed in
// hooksConfig.disabled (user settings in home), and folder trust — on by
// default; in a folder that is not trusted no hook runs, the user's
// included. Trust comes from GEMINI_CLI_TRUST_WORKSPACE or the trusted
// folders file (GEMINI_CLI_TRUSTED_FOLDERS_PATH, else
// ~/.gemini/trustedFolders.json), longest matching rule first, as Gemini
// CLI 0.61 decides it.
func GeminiHooksOff(home, dir string, getenv func(string) string) []Finding {
	if getenv == nil {
		getenv = os.Getenv
	}
	if h := getenv("GEMINI_CLI_HOME"); h != "" {
		home = h
	}
	var out []Finding
	settingsPath := filepath.Join(home, ".gemini", "settings.json")
	s, err := readJSONObject(settingsPath, true)
	if err != nil {
		return []Finding{fail("gemini: %v: Gemini CLI cannot read its settings", err)}
	}
	hc, _ := s["hooksConfig"].(map[string]any)
	if v, ok := hc["enabled"].(bool); ok && !v {
		out = append(out, fail(`gemini: %s sets "hooksConfig": {"enabled": false}: Gemini CLI runs no hook; remove it`, settingsPath))
	}
	if list, _ := hc["disabled"].([]any); len(list) > 0 {
		for _, x := range list {
			if n, _ := x.(string); n == "rivumi" || IsRivumiHook(n, Gemini) {
				out = append(out, fail(`gemini: %s lists %q in "hooksConfig.disabled": the rivumi hook does not run; remove it`, settingsPath, n))
			}
		}
	}
	trustOn := true
	if sec, _ := s["security"].(map[string]any); sec != nil {
		if ft, _ := sec["folderTrust"].(map[string]any); ft != nil {
			if v, ok := ft["enabled"].(bool); ok {
				trustOn = v
			}
		}
	}
	switch {
	case getenv("GEMINI_RESTRICTED_MODE") == "true" || getenv("GEMINI_CLI_TRUST_WORKSPACE") == "false":
		return append(out, fail("gemini: the environment marks every folder untrusted (GEMINI_RESTRICTED_MODE / GEMINI_CLI_TRUST_WORKSPACE): Gemini CLI runs no hook"))
	case getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true":
		return append(out, ok("gemini: GEMINI_CLI_TRUST_WORKSPACE=true trusts %s", dir))
	case !trustOn:
		return append(out, ok("gemini: folder trust is off (%s): hooks run in every folder", settingsPath))
	}
	tf := getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if tf == "" {
		tf = filepath.Join(home, ".gemini", "trustedFolders.json")
	}
	rules, err := readJSONObject(tf, true)
	if err != nil {
		return append(out, fail("gemini: %v: Gemini CLI refuses to start with a broken trusted folders file", err))
	}
	trusted, rule := geminiTrusted(rules, dir)
	fix := fmt.Sprintf(`trust it when gemini asks in that folder (or /permissions), or add "%s": "TRUST_FOLDER" to %s`, dir, tf)
	switch trusted {
	case "yes":
		out = append(out, ok("gemini: %s is a trusted folder (%s in %s)", dir, rule, tf))
	case "no":
		out = append(out, fail("gemini: %s is not trusted (%s in %s): Gemini CLI runs no hook there, rivumi's included; %s", dir, rule, tf, fix))
	default:
		out = append(out, fail("gemini: %s is not a trusted folder (folder trust is on): Gemini CLI runs no hook there, rivumi's included; %s", dir, fix))
	}
	return out
}

// geminiTrusted applies the trusted folders rules to dir: "yes", "no" or
// "" (no rule), and the rule that decided.
func geminiTrusted(rules map[string]any, dir string) (string, string) {
	dir = realPath(dir)
	best, verdict, which := -1, "", ""
	for p, v := range rules {
		level, _ := v.(string)
		eff := p
		if level == "TRUST_PARENT" {
			eff = filepath.Dir(p)
		}
		eff = realPath(eff)
		if !(dir == eff || strings.HasPrefix(dir, strings.TrimSuffix(eff, string(filepath.Separator))+string(filepath.Separator))) {
			continue
		}
		if len(p) > best {
			best, which = len(p), fmt.Sprintf("%q: %q", p, level)
			switch level {
			case "TRUST_FOLDER", "TRUST_PARENT":
				verdict = "yes"
			case "DO_NOT_TRUST":
				verdict = "no"
			default:
				verdict = ""
			}
		}
	}
	return verdict, which
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
