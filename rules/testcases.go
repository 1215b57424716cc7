package rules

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"gopkg.in/yaml.v3"
)

// Testcase is one expected verdict, as written in a testcases YAML file.
type Testcase struct {
	Command   string   `yaml:"command"`
	Decision  string   `yaml:"decision"`            // allow, ask or deny
	Rules     []string `yaml:"rules,omitempty"`     // rule ids that must be among the verdict's reasons
	NotRules  []string `yaml:"not_rules,omitempty"` // rule ids that must not be
	Cwd       string   `yaml:"cwd,omitempty"`
	Workspace string   `yaml:"workspace,omitempty"`
	Home      string   `yaml:"home,omitempty"`
	Shell     string   `yaml:"shell,omitempty"`
	Grants    []struct {
		Prefix []string `yaml:"prefix"`
		Rules  []string `yaml:"rules"`
	} `yaml:"grants,omitempty"`
	Note string `yaml:"note,omitempty"`

	// File and Line locate the case, for messages.
	File string `yaml:"-"`
	Line int    `yaml:"-"`
}

// Name is "file:line" of the case.
func (t *Testcase) Name() string { return fmt.Sprintf("%s:%d", t.File, t.Line) }

type testcaseFile struct {
	Defaults struct {
		Workspace string `yaml:"workspace"`
		Cwd       string `yaml:"cwd"`
		Home      string `yaml:"home"`
	} `yaml:"defaults"`
	Cases []yaml.Node `yaml:"cases"`
}

// LoadTestcases reads testcase files: each path is a YAML file or a
// directory whose *.yaml files are read (sorted). Unknown keys and bad
// decisions are errors with file:line.
func LoadTestcases(paths ...string) ([]Testcase, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			m, _ := filepath.Glob(filepath.Join(p, "*.yaml"))
			sort.Strings(m)
			files = append(files, m...)
		} else {
			files = append(files, p)
		}
	}
	var out []Testcase
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		cs, err := ParseTestcases(f, b)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}

// ParseTestcases parses one testcases document.
func ParseTestcases(name string, b []byte) ([]Testcase, error) {
	var doc testcaseFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := make([]Testcase, 0, len(doc.Cases))
	for _, n := range doc.Cases {
		var tc Testcase
		if err := decodeStrict(&n, &tc); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n.Line, err)
		}
		tc.File, tc.Line = name, n.Line
		switch tc.Decision {
		case "allow", "ask", "deny":
		default:
			return nil, fmt.Errorf("%s:%d: decision %q: want allow, ask or deny", name, n.Line, tc.Decision)
		}
		if tc.Workspace == "" {
			tc.Workspace = doc.Defaults.Workspace
		}
		if tc.Cwd == "" {
			tc.Cwd = doc.Defaults.Cwd
		}
		if tc.Home == "" {
			tc.Home = doc.Defaults.Home
		}
		out = append(out, tc)
	}
	return out, nil
}

// decodeStrict decodes a node refusing unknown keys.
func decodeStrict(n *yaml.Node, v any) error {
	b, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	return dec.Decode(v)
}
