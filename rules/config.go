package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rivumi/rivumi/internal/lockedfile"
	"github.com/rivumi/rivumi/internal/pathstat"
)

// Config is one rivumi configuration file: the user's
// ($XDG_CONFIG_HOME/rivumi/config.yaml) or a project's (.rivumi.yaml at
// the repository root).
//
//	policies: [policy/]                 # directories of Rego packs (package rivumi.user…)
//	rule_files: [rules/team.yaml]       # YAML prefix rule files
//	rules:                              # YAML prefix rules, inline
//	  - {id: team.no-tf-destroy, pattern: [terraform, destroy], decision: deny, justification: …}
//	disable:                            # built-in rules switched off, each with a reason
//	  - {id: git.hooks, reason: our hooks are reviewed like code}
//	grants:                             # standing grants: an argv prefix and the asks it cancels
//	  - {prefix: [npm, test], rules: [exec.workspace-code]}
//	programs:                           # programs rivumi does not know, described (TeamProgram)
//	  acmectl: {option_style: single-dash-long, options: "env= force", examples: […]}
//
// Relative paths are relative to the file's directory. Rules holds the
// inline rules and those of the rule files, each with its own file:line;
// Programs likewise.
type Config struct {
	Path      string
	Policies  []string // absolute directories
	RuleFiles []string // absolute files
	Rules     []YAMLRule
	Disable   []RuleSwitch
	Grants    []ConfigGrant
	Programs  []TeamProgram
}

// RuleSwitch switches a rule off.
type RuleSwitch struct {
	ID     string
	Reason string
	Line   int
}

// ConfigGrant is a standing grant.
type ConfigGrant struct {
	Prefix []string
	Rules  []string
	Line   int
}

// Where returns "file:line".
func (c *Config) Where(line int) string { return fmt.Sprintf("%s:%d", c.Path, line) }

// ConfigDir returns rivumi's configuration directory:
// $XDG_CONFIG_HOME/rivumi when that is an absolute path, else
// ~/.config/rivumi.
func ConfigDir() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "rivumi"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", fmt.Errorf("no configuration directory: set XDG_CONFIG_HOME or HOME")
	}
	return filepath.Join(home, ".config", "rivumi"), nil
}

// UserConfigPath returns the user's configuration file (which may not
// exist): config.yaml in [ConfigDir].
func UserConfigPath() (string, error) {
	d, err := ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "config.yaml"), nil
}

// ProjectConfigName is the project file's name, at the repository root.
const ProjectConfigName = ".rivumi.yaml"

// FindProjectConfig walks up from dir to the repository root (the nearest
// directory holding .git) and returns the path of its .rivumi.yaml, or ""
// when there is no repository or no such file.
func FindProjectConfig(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	// It runs for every request serve answers: pathstat's lookups
	// allocate nothing.
	for {
		if pathstat.Exists(d, ".git") {
			if pathstat.IsRegular(d, ProjectConfigName) {
				return filepath.Join(d, ProjectConfigName), nil
			}
			return "", nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", nil
		}
		d = parent
	}
}

// LoadConfig reads a configuration file and the YAML rule files it names.
// Every problem (file:line) comes back at once, as a *RuleError; the parts
// that loaded are returned with it.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, b)
}

// ParseConfig parses a configuration document; path locates it (and its
// relative paths).
func ParseConfig(path string, b []byte) (*Config, error) {
	c := &Config{Path: path}
	var problems []string
	bad := func(line int, format string, args ...any) {
		problems = append(problems, c.Where(line)+": "+fmt.Sprintf(format, args...))
	}
	top, err := topNode(path, b)
	if err != nil || top == nil {
		return c, err
	}
	if top.Kind != yaml.MappingNode {
		if top.Tag == "!!null" {
			return c, nil
		}
		return c, &RuleError{Problems: []string{c.Where(top.Line) + ": want a mapping (policies, rule_files, rules, disable, grants, programs)"}}
	}
	dir := filepath.Dir(path)
	resolve := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(dir, p)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if seen[k.Value] {
			bad(k.Line, "duplicate key %q", k.Value)
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "policies", "rule_files":
			for _, p := range stringList(v, func(line int, f string, a ...any) { bad(line, k.Value+": "+f, a...) }) {
				if k.Value == "policies" {
					c.Policies = append(c.Policies, resolve(p))
				} else {
					c.RuleFiles = append(c.RuleFiles, resolve(p))
				}
			}
		case "rules":
			rs, ps := ParseYAMLRuleList(path, v)
			c.Rules = append(c.Rules, rs...)
			problems = append(problems, ps...)
		case "disable":
			problems = append(problems, c.parseDisable(v)...)
		case "grants":
			problems = append(problems, c.parseGrants(v)...)
		case "programs":
			tp, ps := ParseTeamPrograms(path, v)
			c.Programs = append(c.Programs, tp...)
			problems = append(problems, ps...)
		default:
			bad(k.Line, "%s", unknownKey(k.Value, []string{"policies", "rule_files", "rules", "disable", "grants", "programs"}))
		}
	}
	rs, tp, err := LoadRuleFiles(c.RuleFiles...)
	c.Rules = append(c.Rules, rs...)
	c.Programs = append(c.Programs, tp...)
	problems = appendProblems(problems, err)
	if len(problems) > 0 {
		return c, &RuleError{Problems: problems}
	}
	return c, nil
}

func stringList(v *yaml.Node, bad func(int, string, ...any)) []string {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		bad(v.Line, "want a list of strings")
		return nil
	}
	var out []string
	for _, e := range v.Content {
		if e.Kind != yaml.ScalarNode || e.Value == "" {
			bad(e.Line, "want a non-empty string")
			continue
		}
		out = append(out, e.Value)
	}
	return out
}

// mapping iterates a list of mappings, refusing unknown keys.
func (c *Config) mapping(v *yaml.Node, what string, keys []string, each func(n *yaml.Node, get func(string) *yaml.Node) []string) []string {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		return []string{c.Where(v.Line) + ": " + what + ": want a list"}
	}
	var problems []string
	for _, n := range v.Content {
		if n.Kind != yaml.MappingNode {
			problems = append(problems, c.Where(n.Line)+": "+what+": want a mapping with "+strings.Join(keys, ", "))
			continue
		}
		vals := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			known := false
			for _, want := range keys {
				known = known || k.Value == want
			}
			if !known {
				problems = append(problems, fmt.Sprintf("%s: %s: unknown key %q (want %s)", c.Where(k.Line), what, k.Value, strings.Join(keys, ", ")))
				continue
			}
			vals[k.Value] = n.Content[i+1]
		}
		problems = append(problems, each(n, func(k string) *yaml.Node { return vals[k] })...)
	}
	return problems
}

func (c *Config) parseDisable(v *yaml.Node) []string {
	return c.mapping(v, "disable", []string{"id", "reason"}, func(n *yaml.Node, get func(string) *yaml.Node) []string {
		s := RuleSwitch{Line: n.Line}
		if id := get("id"); id != nil && id.Kind == yaml.ScalarNode {
			s.ID = id.Value
		}
		if r := get("reason"); r != nil && r.Kind == yaml.ScalarNode {
			s.Reason = strings.TrimSpace(r.Value)
		}
		switch {
		case s.ID == "":
			return []string{c.Where(n.Line) + ": disable: no rule id"}
		case s.Reason == "":
			return []string{fmt.Sprintf("%s: disable %s: a reason is required", c.Where(n.Line), s.ID)}
		}
		c.Disable = append(c.Disable, s)
		return nil
	})
}

func (c *Config) parseGrants(v *yaml.Node) []string {
	return c.mapping(v, "grants", []string{"prefix", "rules"}, func(n *yaml.Node, get func(string) *yaml.Node) []string {
		var problems []string
		bad := func(line int, f string, a ...any) {
			problems = append(problems, c.Where(line)+": grants: "+fmt.Sprintf(f, a...))
		}
		g := ConfigGrant{Line: n.Line}
		if p := get("prefix"); p != nil {
			g.Prefix = stringList(p, bad)
		}
		if r := get("rules"); r != nil {
			g.Rules = stringList(r, bad)
		}
		if len(g.Prefix) == 0 || len(g.Rules) == 0 {
			bad(n.Line, "a grant needs a prefix and the ask rule ids it cancels")
		}
		if len(problems) == 0 {
			c.Grants = append(c.Grants, g)
		}
		return problems
	})
}

// Digest returns "sha256:<hex>" over the file and everything it names (rule
// files, and the *.rego files of its policy directories): trusting a
// project file trusts exactly this content, and a change to any part
// makes it untrusted again.
func (c *Config) Digest() (string, error) {
	h := sha256.New()
	add := func(name string) error {
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(b))
		h.Write(b)
		return nil
	}
	if err := add(c.Path); err != nil {
		return "", err
	}
	for _, f := range c.RuleFiles {
		if err := add(f); err != nil {
			return "", err
		}
	}
	for _, d := range c.Policies {
		var files []string
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !e.IsDir() && strings.HasSuffix(p, ".rego") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		sort.Strings(files)
		for _, f := range files {
			if err := add(f); err != nil {
				return "", err
			}
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Untrusted returns what a project file may do without the user's trust
// (deny and ask rules only) and a description of each part it drops:
// allow rules, policy directories (Rego can allow), switches, grants and
// program descriptions (a description changes how the user's own rules
// read that program's command lines).
func (c *Config) Untrusted() (kept *Config, dropped []string) {
	kept = &Config{Path: c.Path, RuleFiles: c.RuleFiles}
	for _, r := range c.Rules {
		if r.Decision == "allow" {
			dropped = append(dropped, fmt.Sprintf("allow rule %s (%s)", r.ID, r.Where()))
			continue
		}
		kept.Rules = append(kept.Rules, r)
	}
	for _, p := range c.Policies {
		dropped = append(dropped, "policy directory "+p)
	}
	for _, s := range c.Disable {
		dropped = append(dropped, fmt.Sprintf("disable %s (%s)", s.ID, c.Where(s.Line)))
	}
	for _, g := range c.Grants {
		dropped = append(dropped, fmt.Sprintf("grant %s (%s)", strings.Join(g.Prefix, " "), c.Where(g.Line)))
	}
	for _, p := range c.Programs {
		dropped = append(dropped, fmt.Sprintf("program %s (%s)", p.Program.Name, p.Where()))
	}
	return kept, dropped
}

// TrustStore records the project files the user trusts: path → digest
// ($XDG_CONFIG_HOME/rivumi/trusted.json). Trust and Revoke re-read the file
// under its lock and write it atomically (see internal/lockedfile), so
// concurrent `rivumi trust` runs keep each other's records.
type TrustStore struct {
	path    string
	Trusted map[string]string `json:"trusted"`
}

// TrustStorePath returns trusted.json in [ConfigDir].
func TrustStorePath() (string, error) {
	d, err := ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "trusted.json"), nil
}

// LoadTrust reads a trust store; a missing file is an empty store.
func LoadTrust(path string) (*TrustStore, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		b = nil
	} else if err != nil {
		return nil, err
	}
	return decodeTrust(path, b)
}

func decodeTrust(path string, b []byte) (*TrustStore, error) {
	s := &TrustStore{path: path, Trusted: map[string]string{}}
	if b == nil {
		return s, nil
	}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Trusted == nil {
		s.Trusted = map[string]string{}
	}
	return s, nil
}

// IsTrusted reports whether the file at path is trusted with this digest.
func (s *TrustStore) IsTrusted(path, digest string) bool {
	return digest != "" && s.Trusted[path] == digest
}

// Trust records digest for path and saves the store, keeping what other
// processes recorded meanwhile.
func (s *TrustStore) Trust(path, digest string) error {
	return s.update(func(m map[string]string) bool {
		if m[path] == digest {
			return false
		}
		m[path] = digest
		return true
	})
}

// Revoke forgets path and saves the store. It reports whether path was
// there.
func (s *TrustStore) Revoke(path string) (bool, error) {
	var found bool
	err := s.update(func(m map[string]string) bool {
		_, found = m[path]
		delete(m, path)
		return found
	})
	return found, err
}

// update applies change to the store's current contents under its lock,
// writes them (readable by the user only) if change reports a
// modification, and leaves s holding them. A malformed store is an error
// and is left alone.
func (s *TrustStore) update(change func(map[string]string) bool) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	return lockedfile.Update(s.path, 0o600, func(old []byte, exists bool) ([]byte, error) {
		cur, err := decodeTrust(s.path, old)
		if err != nil {
			return nil, err
		}
		s.Trusted = cur.Trusted
		if !change(cur.Trusted) {
			return old, nil
		}
		b, err := json.MarshalIndent(cur, "", "  ")
		if err != nil {
			return nil, err
		}
		return append(b, '\n'), nil
	})
}
