package hook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/rivumi/rivumi/internal/lockedfile"
)

// Codex (0.171) runs a hook from hooks.json only once the user has
// trusted it: config.toml holds, per hook,
//
//	[hooks.state."<hooks.json path>:pre_tool_use:<group>:<handler>"]
//	trusted_hash = "sha256:…"
//
// and a hook whose hash differs (or that has none) is skipped, silently
// in `codex exec`. The hash is Codex's own (codex-rs/hooks discovery.rs,
// config fingerprint.rs): SHA-256 of the compact JSON, keys sorted, of
// {"event_name": "pre_tool_use", "matcher": …, "hooks": [handler]} where
// the handler is normalized (type, command, timeout defaulting to 600 s and
// at least 1, async, statusMessage when set) and absent values are left
// out. The end-to-end test checks it against `codex app-server`'s
// hooks/list.

// CodexConfigFile returns the Codex config.toml holding hook trust: in
// $CODEX_HOME, else ~/.codex.
func CodexConfigFile(home string, getenv func(string) string) string {
	if getenv != nil && getenv("CODEX_HOME") != "" {
		return filepath.Join(getenv("CODEX_HOME"), "config.toml")
	}
	return filepath.Join(home, ".codex", "config.toml")
}

// CodexHookKey is the key of a hook's trust state in config.toml.
func CodexHookKey(hooksFile string, group, handler int) string {
	return fmt.Sprintf("%s:pre_tool_use:%d:%d", hooksFile, group, handler)
}

// CodexHookHash returns the trust hash Codex computes for the hook e.
func CodexHookHash(e Installed) (string, error) {
	h := map[string]any{"type": "command", "command": e.Command, "async": false, "timeout": int64(600)}
	if t, ok := e.Hook["type"].(string); ok && t != "command" {
		return "", fmt.Errorf("hook type %q is not command", t)
	}
	switch t := e.Hook["timeout"].(type) {
	case nil:
	case json.Number:
		n, err := t.Int64()
		if err != nil || n < 0 {
			return "", fmt.Errorf("timeout %v is not a whole number of seconds", t)
		}
		h["timeout"] = max(n, 1)
	default:
		return "", fmt.Errorf("timeout %v is not a number", t)
	}
	if a, ok := e.Hook["async"].(bool); ok {
		h["async"] = a
	}
	if m, ok := e.Hook["statusMessage"].(string); ok {
		h["statusMessage"] = m
	}
	id := map[string]any{"event_name": "pre_tool_use", "hooks": []any{h}}
	if e.HasMatcher {
		id["matcher"] = e.Matcher
	}
	var b bytes.Buffer
	canonicalJSON(&b, id)
	sum := sha256.Sum256(b.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// canonicalJSON writes v as serde_json writes it: compact, object keys
// sorted by their bytes, strings with serde_json's escapes.
func canonicalJSON(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			jsonString(b, k)
			b.WriteByte(':')
			canonicalJSON(b, v[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			canonicalJSON(b, x)
		}
		b.WriteByte(']')
	case string:
		jsonString(b, v)
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	default:
		panic(fmt.Sprintf("canonicalJSON: %T", v))
	}
}

func jsonString(b *bytes.Buffer, s string) {
	const hexd = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hexd[c>>4])
				b.WriteByte(hexd[c&0xf])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// CodexTrust is the trust state of one hook in config.toml.
type CodexTrust struct {
	Key         string
	Hash        string // the hash of the hook as it is now
	TrustedHash string // the hash the user trusted ("" for none)
	Disabled    bool   // enabled = false
}

// Trusted reports whether Codex runs the hook.
func (t CodexTrust) Trusted() bool { return !t.Disabled && t.TrustedHash == t.Hash }

// Problem says why Codex skips the hook, and what to do ("" when it runs).
func (t CodexTrust) Problem() string {
	switch {
	case t.Disabled:
		return "the hook is disabled (enabled = false) in config.toml"
	case t.TrustedHash == "":
		return "the hook is not trusted: Codex skips it (silently in codex exec)"
	case t.TrustedHash != t.Hash:
		return "the hook changed since it was trusted: Codex skips it (silently in codex exec)"
	}
	return ""
}

type codexConfig struct {
	Features map[string]any `toml:"features"`
	Hooks    struct {
		State map[string]struct {
			TrustedHash *string `toml:"trusted_hash"`
			Enabled     *bool   `toml:"enabled"`
		} `toml:"state"`
	} `toml:"hooks"`
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
}

func readCodexConfig(path string) (codexConfig, []byte, error) {
	var c codexConfig
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil, nil
	}
	if err != nil {
		return c, nil, err
	}
	if _, err := toml.Decode(string(b), &c); err != nil {
		return c, b, fmt.Errorf("%s: %v", path, err)
	}
	return c, b, nil
}

// CodexTrustOf returns the trust state of the hook e (found in hooks
// file e.File) recorded in the config file configPath.
func CodexTrustOf(configPath string, e Installed) (CodexTrust, error) {
	t := CodexTrust{Key: CodexHookKey(e.File, e.Group, e.Handler)}
	var err error
	if t.Hash, err = CodexHookHash(e); err != nil {
		return t, err
	}
	c, _, err := readCodexConfig(configPath)
	if err != nil {
		return t, err
	}
	if s, ok := c.Hooks.State[t.Key]; ok {
		if s.TrustedHash != nil {
			t.TrustedHash = *s.TrustedHash
		}
		t.Disabled = s.Enabled != nil && !*s.Enabled
	}
	return t, nil
}

// CodexFeatureOff returns the name of the feature switch in config.toml
// that turns Codex hooks off ("hooks", or its legacy alias "codex_hooks"),
// or "" when hooks are on (the default since they became stable).
func CodexFeatureOff(configPath string) (string, error) {
	c, _, err := readCodexConfig(configPath)
	if err != nil {
		return "", err
	}
	for _, k := range []string{"hooks", "codex_hooks"} {
		if v, ok := c.Features[k].(bool); ok && !v {
			return k, nil
		}
	}
	return "", nil
}

// CodexProjectTrusted reports whether config.toml trusts the project at
// root (Codex reads a project's .codex/hooks.json only then).
func CodexProjectTrusted(configPath, root string) (bool, error) {
	c, _, err := readCodexConfig(configPath)
	if err != nil {
		return false, err
	}
	return c.Projects[root].TrustLevel == "trusted", nil
}

// TrustCodexHook records in config.toml (configPath) that the hook e is
// trusted, exactly as Codex's own review does: its key gets trusted_hash
// = the hook's current hash. Other settings, comments and hooks' states
// are kept; the previous file is kept as configPath.bak. It reports
// whether the file changed. A config.toml that is not valid TOML, or one
// where the edit would not read back as intended, is left alone (an error
// that shows the lines to add).
func TrustCodexHook(configPath string, e Installed) (changed bool, err error) {
	key := CodexHookKey(e.File, e.Group, e.Handler)
	hash, err := CodexHookHash(e)
	if err != nil {
		return false, err
	}
	header := "[hooks.state." + tomlString(key) + "]"
	line := "trusted_hash = " + tomlString(hash)
	snippet := header + "\n" + line
	t, err := CodexTrustOf(configPath, e)
	if err != nil {
		return false, fmt.Errorf("%v; add by hand:\n%s", err, snippet)
	}
	if t.Trusted() {
		return false, nil
	}
	if t.Disabled {
		return false, fmt.Errorf("%s: the rivumi hook is disabled there (enabled = false); remove that line to let Codex run it", configPath)
	}
	if err := os.MkdirAll(filepath.Dir(configPath), 0o700); err != nil {
		return false, err
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(configPath); err == nil {
		mode = fi.Mode().Perm()
	}
	// Under the file's lock (concurrent installs) and written atomically;
	// Codex itself does not take the lock, so the file is read again here.
	err = lockedfile.Update(configPath, mode, func(old []byte, existed bool) ([]byte, error) {
		var c codexConfig
		if _, err := toml.Decode(string(old), &c); err != nil {
			return nil, fmt.Errorf("%s: %v; add by hand:\n%s", configPath, err, snippet)
		}
		if !plainHookState(string(old)) {
			return nil, fmt.Errorf("%s: cannot record the trust safely (the file sets hooks or hooks.state with inline tables or dotted keys, which a table cannot extend); add by hand:\n%s", configPath, snippet)
		}
		text := editTrust(string(old), header, line)
		c = codexConfig{}
		if _, err := toml.Decode(text, &c); err != nil || c.Hooks.State[key].TrustedHash == nil || *c.Hooks.State[key].TrustedHash != hash {
			return nil, fmt.Errorf("%s: cannot record the trust safely (the file defines hooks.state in a form rivumi does not edit); add by hand:\n%s", configPath, snippet)
		}
		if existed {
			if err := lockedfile.WriteAtomic(configPath+".bak", old, mode); err != nil {
				return nil, fmt.Errorf("backup: %v", err)
			}
		}
		changed = true
		return []byte(text), nil
	})
	return changed, err
}

// plainHookState reports whether text defines hooks and hooks.state only
// with table headers ([hooks], [hooks.state."…"]), so that adding a
// [hooks.state."…"] table keeps the file valid TOML for Codex's parser,
// which refuses a table that extends an inline table or a dotted key.
func plainHookState(text string) bool {
	table := ""
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if strings.HasPrefix(l, "[") {
			table = strings.TrimSpace(strings.Trim(strings.SplitN(l, "#", 2)[0], "[] \t"))
			continue
		}
		key, _, _ := strings.Cut(l, "=")
		key = strings.Trim(strings.TrimSpace(key), `"'`)
		switch {
		case table == "" && (key == "hooks" || strings.HasPrefix(key, "hooks.") || strings.HasPrefix(key, `hooks".`)):
			return false
		case table == "hooks" && (key == "state" || strings.HasPrefix(key, "state.") || strings.HasPrefix(key, `state".`)):
			return false
		case table == "hooks.state":
			return false
		}
	}
	return true
}

// editTrust sets line (trusted_hash = …) in the table header of text,
// adding the table at the end when it is not there.
func editTrust(text, header, line string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != header {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			s := strings.TrimSpace(lines[j])
			if strings.HasPrefix(s, "[") {
				break
			}
			if k, _, ok := strings.Cut(s, "="); ok && strings.TrimSpace(k) == "trusted_hash" {
				lines[j] = line
				return strings.Join(lines, "\n")
			}
		}
		lines = append(lines[:i+1], append([]string{line}, lines[i+1:]...)...)
		return strings.Join(lines, "\n")
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	return text + header + "\n" + line + "\n"
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
