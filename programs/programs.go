// Package programs is rivumi's program registry: what it knows about a
// program (names and versioned aliases, options, subcommands, where code is
// and in which language, whether it runs whatever it is handed, which
// project files it loads and runs, whether it touches the network), read
// from the embedded, reviewed programs.yaml. The parser, the option tables,
// grant refusal, the code scanners and the Rego data derive from it; see
// programs.yaml for the format.
package programs

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

//go:embed programs.yaml
var source []byte

// Program is one registry entry. The slices are shared: callers must not
// modify them.
type Program struct {
	Name              string   `yaml:"-"` // canonical name (the entry's key)
	Names             []string `yaml:"names"`
	Versioned         bool     `yaml:"versioned"`
	Shell             bool     `yaml:"shell"`
	Language          string   `yaml:"language"`
	CodeOptions       []string `yaml:"code_options"`
	RunsAnything      bool     `yaml:"runs_anything"`
	RunnerSubcommands []string `yaml:"runner_subcommands"`
	Options           string   `yaml:"options"`
	InOrder           bool     `yaml:"in_order"`
	Abbrev            bool     `yaml:"abbrev"`
	SingleDashLong    bool     `yaml:"single_dash_long"`
	FoldCase          bool     `yaml:"fold_case"`
	Subcommands       bool     `yaml:"subcommands"`
	Loads             []string `yaml:"loads"`
	LoadsOnVersion    bool     `yaml:"loads_on_version"`
	Network           bool     `yaml:"network"`
	Fetches           bool     `yaml:"fetches"`
}

// HasCode reports whether the program runs code it is given: a shell or an
// interpreter with a language.
func (p *Program) HasCode() bool { return p.Shell || p.Language != "" }

// Registry is a parsed registry document.
type Registry struct {
	all    []*Program          // sorted by name
	byName map[string]*Program // every name of every entry
}

var (
	loadOnce sync.Once
	reg      *Registry
)

// load indexes the registry once. It uses the Go form of programs.yaml
// generated into zz_generated.go (parsing the YAML costs milliseconds of
// every process); TestGeneratedCurrent fails while it is stale
// (go test ./programs -update-programs rewrites it).
func load() *Registry {
	loadOnce.Do(func() { reg = index(generated) })
	return reg
}

func index(all []*Program) *Registry {
	r := &Registry{all: all, byName: map[string]*Program{}}
	for _, p := range all {
		for _, n := range p.Names {
			r.byName[n] = p
		}
	}
	return r
}

// Entries returns the parsed entries, sorted by name.
func (r *Registry) Entries() []*Program { return r.all }

// Parse reads a registry document. Unknown keys, a name claimed by two
// entries, an option of code_options that options does not declare with a
// value, and a language without code_options or shell are errors with
// line numbers.
func Parse(src []byte) (*Registry, error) {
	var doc struct {
		Programs yaml.Node `yaml:"programs"`
	}
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	n := &doc.Programs
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("programs: want a mapping of entries")
	}
	r := &Registry{byName: map[string]*Program{}}
	var problems []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p := &Program{Name: k.Value}
		if err := decodeStrict(v, p); err != nil {
			problems = append(problems, fmt.Sprintf("line %d: %s: %v", v.Line, k.Value, err))
			continue
		}
		if len(p.Names) == 0 {
			p.Names = []string{p.Name}
		}
		for _, name := range p.Names {
			if name != strings.ToLower(name) {
				problems = append(problems, fmt.Sprintf("line %d: %s: name %q: names are lower case", v.Line, p.Name, name))
			}
			if prev, dup := r.byName[name]; dup {
				problems = append(problems, fmt.Sprintf("line %d: %s: name %q already belongs to %s", v.Line, p.Name, name, prev.Name))
			}
			r.byName[name] = p
		}
		if !strings.Contains(" "+strings.Join(p.Names, " ")+" ", " "+p.Name+" ") {
			problems = append(problems, fmt.Sprintf("line %d: %s: names must include the entry's own name", v.Line, p.Name))
		}
		if len(p.CodeOptions) > 0 && p.Options == "" {
			problems = append(problems, fmt.Sprintf("line %d: %s: code_options without options: the parser would not know they take a value", v.Line, p.Name))
		}
		for _, o := range p.CodeOptions {
			if p.Options != "" && !declaresValue(p.Options, o) {
				problems = append(problems, fmt.Sprintf("line %d: %s: code option %q is not a value-taking option of options", v.Line, p.Name, o))
			}
		}
		if (p.Language != "" || p.Shell) && !p.RunsAnything {
			problems = append(problems, fmt.Sprintf("line %d: %s: a program that runs code runs anything (runs_anything: true)", v.Line, p.Name))
		}
		if p.LoadsOnVersion && len(p.Loads) == 0 {
			problems = append(problems, fmt.Sprintf("line %d: %s: loads_on_version without loads", v.Line, p.Name))
		}
		r.all = append(r.all, p)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	sort.Slice(r.all, func(i, j int) bool { return r.all[i].Name < r.all[j].Name })
	return r, nil
}

func decodeStrict(n *yaml.Node, p *Program) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("want a mapping")
	}
	known := map[string]bool{}
	for _, f := range []string{"names", "versioned", "shell", "language", "code_options", "runs_anything",
		"runner_subcommands", "options", "in_order", "abbrev", "single_dash_long", "fold_case", "subcommands",
		"loads", "loads_on_version", "network", "fetches"} {
		known[f] = true
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !known[n.Content[i].Value] {
			return fmt.Errorf("line %d: unknown key %q", n.Content[i].Line, n.Content[i].Value)
		}
	}
	return n.Decode(p)
}

// declaresValue reports whether the option description desc has an entry
// spelled canon that takes a value.
func declaresValue(desc, canon string) bool {
	for _, ent := range strings.Fields(desc) {
		if !strings.HasSuffix(ent, "=") && !strings.HasSuffix(ent, "=?") {
			continue
		}
		for _, n := range strings.Split(strings.TrimRight(ent, "=?"), "|") {
			if n == canon {
				return true
			}
		}
	}
	return false
}

// All returns every entry, sorted by name.
func All() []*Program { return load().all }

// Lookup returns the entry a program name belongs to, or nil. name is a
// basename as the parser normalises it (lower case, no ".exe"); a versioned
// entry also owns its names followed by a version: python3.12, pypy3.10,
// lua5.4, node18, php8.2, php-cgi8.2, php8.2-cgi.
func Lookup(name string) *Program {
	r := load()
	if p := r.byName[name]; p != nil {
		return p
	}
	n := strings.TrimSuffix(strings.ToLower(name), ".exe")
	if p := r.byName[n]; p != nil {
		return p
	}
	for {
		m := versionSuffix.FindStringIndex(n)
		if m == nil || m[0] == 0 {
			break
		}
		n = n[:m[0]]
		if p := r.byName[n]; p != nil && p.Versioned {
			return p
		}
	}
	if i := versionInfix.FindStringSubmatchIndex(n); i != nil {
		if p := r.byName[n[:i[2]]+n[i[3]:]]; p != nil && p.Versioned {
			return p // php8.2-cgi
		}
	}
	return nil
}

var (
	versionSuffix = regexp.MustCompile(`[-_.]?[0-9][0-9.]*$`)
	versionInfix  = regexp.MustCompile(`^[a-z]+([0-9][0-9.]*)-[a-z]+$`)
)

// Names returns every name of the entries for which keep is true, sorted.
func Names(keep func(*Program) bool) []string {
	var out []string
	for _, p := range All() {
		if keep(p) {
			out = append(out, p.Names...)
		}
	}
	sort.Strings(out)
	return out
}

// Source returns the embedded registry document.
func Source() []byte { return source }

// RegoData renders the registry's facts the Rego packs read, as the JSON of
// policies/tables/programs.json: data.rivumi.tables.network (programs that
// touch the network), .project_loaders (program → files it loads even for
// --version) and .programs.shells / .interpreters / .runs_anything (name
// sets). Every name of an entry is a key.
func RegoData(r *Registry) []byte {
	network, loaders := map[string]bool{}, map[string][]string{}
	shells, interps, runners := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range r.all {
		for _, n := range p.Names {
			if p.Network {
				network[n] = true
			}
			if p.LoadsOnVersion {
				loaders[n] = p.Loads
			}
			if p.Shell {
				shells[n] = true
			}
			if p.Language != "" {
				interps[n] = true
			}
			if p.RunsAnything {
				runners[n] = true
			}
		}
	}
	doc := map[string]any{"rivumi": map[string]any{"tables": map[string]any{
		"network": network, "project_loaders": loaders,
		"programs": map[string]any{"shells": shells, "interpreters": interps, "runs_anything": runners},
	}}}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}
