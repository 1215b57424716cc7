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
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/rivumi/rivumi/internal/lazyre"
)

//go:embed programs.yaml
var source []byte

// Program is one registry entry. The slices are shared: callers must not
// modify them.
type Program struct {
	Name              string              `yaml:"-"` // canonical name (the entry's key)
	Names             []string            `yaml:"names"`
	Versioned         bool                `yaml:"versioned"`
	Shell             bool                `yaml:"shell"`
	Language          string              `yaml:"language"`
	CodeOptions       []string            `yaml:"code_options"`
	RunsAnything      bool                `yaml:"runs_anything"`
	RunnerSubcommands []string            `yaml:"runner_subcommands"`
	Options           string              `yaml:"options"`
	InOrder           bool                `yaml:"in_order"`
	Abbrev            bool                `yaml:"abbrev"`
	SingleDashLong    bool                `yaml:"single_dash_long"`
	FoldCase          bool                `yaml:"fold_case"`
	Subcommands       bool                `yaml:"subcommands"`
	Loads             []string            `yaml:"loads"`
	LoadsOnVersion    bool                `yaml:"loads_on_version"`
	Shim              bool                `yaml:"shim"`
	Network           bool                `yaml:"network"`
	Fetches           bool                `yaml:"fetches"`
	Dialects          map[string][]string `yaml:"dialects"`

	// Options and variables that run code besides the code positions.
	ShellOptions  []string `yaml:"shell_options"`
	PipeOptions   []string `yaml:"pipe_options"`
	SpliceOptions []string `yaml:"splice_options"`
	LoadOptions   []string `yaml:"load_options"`
	EnvOptions    []string `yaml:"env_options"`
	EnvFiles      []string `yaml:"env_files"`

	// What it writes and reads.
	WritesOperands bool     `yaml:"writes_operands"`
	WriteOptions   []string `yaml:"write_options"`
	ReadOptions    []string `yaml:"read_options"`
	StringOperands bool     `yaml:"string_operands"`

	// What the allow layer may cover (policies/rules/readonly.rego).
	Readonly       *string               `yaml:"readonly"`
	DynamicOK      bool                  `yaml:"dynamic_ok"`
	NoOperands     bool                  `yaml:"no_operands"`
	ReadonlyNeeds  []string              `yaml:"readonly_needs"`
	WorkspaceWrite *string               `yaml:"workspace_write"`
	VersionForms   map[string][][]string `yaml:"version_forms"`

	// What the ask layer asks about (policies/rules/packages.rego).
	RunsWorkspace bool     `yaml:"runs_workspace"`
	Ops           bool     `yaml:"ops"`
	Kinds         []string `yaml:"kinds"`

	// WrapperOptions, when set, makes it a generic wrapper: it runs its
	// first operand as a command; the value lists its short options that
	// take a value (strace -o FILE).
	WrapperOptions *string `yaml:"wrapper_options"`
	// WrapperOperands is the number of operands a generic wrapper takes
	// before the command (setarch ARCH cmd, perf stat cmd).
	WrapperOperands int `yaml:"wrapper_operands"`

	Subs map[string]*Sub `yaml:"subs"`
}

// Sub is what the registry knows of one subcommand (git push, npm install).
type Sub struct {
	Options       string   `yaml:"options"`
	Readonly      *string  `yaml:"readonly"`
	ListWords     []string `yaml:"list_words"`
	NeedsWord     bool     `yaml:"needs_word"`
	ListFlags     []string `yaml:"list_flags"`
	Installs      bool     `yaml:"installs"`
	RunsWorkspace bool     `yaml:"runs_workspace"`
}

// HasSpec reports whether the registry describes the program's command
// line: it declares options, or that options end at the first operand.
func (p *Program) HasSpec() bool { return p.Options != "" || p.InOrder || p.SingleDashLong }

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
	loadOnce.Do(func() {
		generatedMaps()
		reg = index(generated)
	})
	return reg
}

func index(all []*Program) *Registry {
	n := 0
	for _, p := range all {
		n += len(p.Names)
	}
	r := &Registry{all: all, byName: make(map[string]*Program, n)}
	for _, p := range all {
		for _, n := range p.Names {
			r.byName[n] = p
		}
	}
	return r
}

// NewRegistry indexes entries that are not the built-in registry's (a
// team's, for [RegoData]); it sorts them by name. The entries must not
// share a name.
func NewRegistry(all []*Program) *Registry {
	all = slices.Clone(all)
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return index(all)
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
		problems = append(problems, p.check(v.Line)...)
		for _, o := range append(append(append([]string{}, p.ShellOptions...), p.SpliceOptions...), p.LoadOptions...) {
			if p.Options != "" && !declaresValue(p.Options, o) {
				problems = append(problems, fmt.Sprintf("line %d: %s: option %q of shell_options, splice_options or load_options is not a value-taking option of options", v.Line, p.Name, o))
			}
		}
		for _, o := range p.PipeOptions {
			if p.WrapperOptions == nil || len(o) != 1 || !strings.Contains(*p.WrapperOptions, o) {
				problems = append(problems, fmt.Sprintf("line %d: %s: pipe option %q is not a value-taking letter of wrapper_options", v.Line, p.Name, o))
			}
		}
		if len(p.EnvOptions) > 0 && !p.HasSpec() {
			problems = append(problems, fmt.Sprintf("line %d: %s: env_options without options: the parser could not read them", v.Line, p.Name))
		}
		if p.Shim && len(p.Loads) == 0 {
			problems = append(problems, fmt.Sprintf("line %d: %s: shim without loads", v.Line, p.Name))
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

// check returns the problems of an entry's facts that need no other entry.
func (p *Program) check(line int) []string {
	var out []string
	bad := func(format string, a ...any) {
		out = append(out, fmt.Sprintf("line %d: %s: ", line, p.Name)+fmt.Sprintf(format, a...))
	}
	names := map[string]bool{}
	for _, n := range p.Names {
		names[n] = true
	}
	for d, ns := range p.Dialects {
		if d != "sh" && d != "zsh" && d != "bash" {
			bad("dialect %q: the parser's dialects are bash, sh and zsh", d)
		}
		if !p.Shell {
			bad("dialects of a program that is not a shell")
		}
		for _, n := range ns {
			if !names[n] {
				bad("dialects: %q is not one of its names", n)
			}
		}
	}
	for n := range p.VersionForms {
		if !names[n] {
			bad("version_forms: %q is not one of its names", n)
		}
	}
	for _, k := range p.Kinds {
		if _, ok := Kinds[k]; !ok {
			bad("kind %q is not one of programs.Kinds", k)
		}
	}
	if p.Options != "" {
		all := p.Options
		for _, s := range p.Subs {
			all += " " + s.Options
		}
		for _, o := range append(append([]string{}, p.WriteOptions...), p.ReadOptions...) {
			if !declaresValue(all, o) {
				bad("option %q of write_options or read_options is not a value-taking option of options (or of a subcommand's)", o)
			}
		}
	}
	if len(p.ReadonlyNeeds) > 0 && p.Readonly == nil {
		bad("readonly_needs without readonly")
	}
	if p.WrapperOperands > 0 && p.WrapperOptions == nil {
		bad("wrapper_operands of a program that is not a wrapper (wrapper_options)")
	}
	if p.WrapperOptions != nil && !p.RunsAnything {
		bad("a wrapper runs anything (runs_anything: true)")
	}
	for sub, s := range p.Subs {
		if !p.Subcommands {
			bad("subs without subcommands: true")
		}
		if p.Name != "git" && (s.Readonly != nil || len(s.ListWords) > 0 || s.NeedsWord || len(s.ListFlags) > 0) {
			bad("subs: %s: readonly, list_words, needs_word and list_flags are read for git only", sub)
		}
	}
	return out
}

// Kinds are the program kinds rules test (data.rivumi.tables.kinds.KIND:
// a set of names), each with what it means: a program set a rule needs is a
// kind here and kinds: [KIND] on the registry's entries, never a literal
// set in Rego (TestNoProgramSetsElsewhere).
var Kinds = map[string]string{
	"deletes_named":     "removes exactly the files it names (rm, unlink): allowed in the workspace",
	"hands_listing":     "hands a listing to the program it runs (xargs, find -exec)",
	"formats_devices":   "destroys the data of the device it is given (mkfs aside: any mkfs.*) (wipefs, shred, blkdiscard …)",
	"disk_writer":       "writes the block device it is given (the raw floor scan's device shapes) (mke2fs, mkswap, wipefs …)",
	"credential_writer": "alters the file it names (writing /etc/shadow with it is a floor shape) (tee, rm, mv …)",
	"searches":          "reads the files of the directories it is given (grep -r, find, tar c …) (grep, egrep, fgrep …)",
	"searches_contents": "reads the contents of the trees it is given (not only names and sizes) (grep, egrep, fgrep …)",
	"reads_tree":        "reads a whole directory tree without a recursive flag (rg, ag, ack …)",
	"lists_names":       "walks a tree for names and metadata only, with its read-only options and no -exec (find, tree)",
	"deletes":           "removes its operands (rm, rmdir, unlink …)",
	"shreds":            "destroys the operand in place (shred, wipe)",
	"partitions":        "rewrites a disk's partition table (fdisk, sfdisk, cfdisk …)",
	"netcat":            "netcat: -e and -c hand a program to the network (nc)",
	"socket_relay":      "relays a pipe to a network socket (nc, telnet, socat …)",
	"dbus":              "calls D-Bus methods (busctl, dbus-send, gdbus …)",
	"power":             "powers the machine off or reboots it (shutdown, reboot, halt …)",
	"kills_by_name":     "signals processes by name (killall, pkill)",
	"permissions":       "changes permissions or ownership (chmod, chown, chattr …)",
	"archives":          "reads or writes archives (tar, bsdtar, gtar …)",
	"extracts":          "extracts archives (writes whatever they hold) (unzip, 7z, 7za …)",
	"overwrites":        "links or installs over a target (ln, install, link)",
	"uploads":           "copies to a remote host given as host:path (scp, rsync, sftp)",
	"installs":          "installs or runs packages whatever its arguments (npx, bunx, pnpx …)",
	"privilege_wrapper": "runs its command as another user or in another root (sudo, doas, run0 …)",
	"privilege":         "acts as or on another user (sudo, doas, run0 …)",
	"database":          "a database client (psql, mysql, sqlite3 …)",
	"system":            "changes system services, mounts, kernel or firewall (systemctl, launchctl, crontab …)",
	"kills":             "stops processes (kill, pkill, killall …)",
	"text_script":       "runs an awk or sed script (allowed in the parsed safe subset) (awk, sed, gsed)",
	"inline_code":       "runs the shell code it is given (eval, source, trap …) (eval, source, . …)",
	"evaluates_values":  "a builtin that may evaluate a variable's value as arithmetic or code (let, declare -i, declare -n …)",
	"reads_vars":        "a builtin that reads input into variables (read, mapfile, readarray)",
	"harmless_wrapper":  "a wrapper that may surround an allowed program (timeout, time, nice …)",
}

func decodeStrict(n *yaml.Node, p *Program) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("want a mapping")
	}
	known := map[string]bool{}
	for _, f := range yamlKeys(reflect.TypeOf(Program{})) {
		known[f] = true
	}
	subKnown := map[string]bool{}
	for _, f := range yamlKeys(reflect.TypeOf(Sub{})) {
		subKnown[f] = true
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !known[k.Value] {
			return fmt.Errorf("line %d: unknown key %q", k.Line, k.Value)
		}
		if k.Value != "subs" || v.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			sv := v.Content[j+1]
			if sv.Kind != yaml.MappingNode {
				return fmt.Errorf("line %d: subs: %s: want a mapping", sv.Line, v.Content[j].Value)
			}
			for m := 0; m+1 < len(sv.Content); m += 2 {
				if !subKnown[sv.Content[m].Value] {
					return fmt.Errorf("line %d: subs: %s: unknown key %q", sv.Content[m].Line, v.Content[j].Value, sv.Content[m].Value)
				}
			}
		}
	}
	return n.Decode(p)
}

// yamlKeys lists the yaml keys of a struct type's fields.
func yamlKeys(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if k := t.Field(i).Tag.Get("yaml"); k != "" && k != "-" {
			out = append(out, k)
		}
	}
	return out
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
	// The regular expressions below match only names ending in a digit or
	// a dot, or holding a digit and a dash: test that first, as most names
	// looked up and not found (git status, ls) do neither.
	if !versioned(n) {
		return nil
	}
	for {
		m := versionSuffix().FindStringIndex(n)
		if m == nil || m[0] == 0 {
			break
		}
		n = n[:m[0]]
		if p := r.byName[n]; p != nil && p.Versioned {
			return p
		}
	}
	if i := versionInfix().FindStringSubmatchIndex(n); i != nil {
		if p := r.byName[n[:i[2]]+n[i[3]:]]; p != nil && p.Versioned {
			return p // php8.2-cgi
		}
	}
	return nil
}

// versioned reports whether n could match versionSuffix (it ends in a digit
// or a dot) or versionInfix (it holds a digit and a dash).
func versioned(n string) bool {
	if n == "" {
		return false
	}
	if c := n[len(n)-1]; c == '.' || '0' <= c && c <= '9' {
		return true
	}
	return strings.IndexByte(n, '-') >= 0 && strings.ContainsAny(n, "0123456789")
}

var (
	versionSuffix = lazyre.New(`[-_.]?[0-9][0-9.]*$`)
	versionInfix  = lazyre.New(`^[a-z]+([0-9][0-9.]*)-[a-z]+$`)
)

// Dialect returns the parser dialect ("sh", "zsh" or "bash") a shell run by
// name (a basename, lower case) parses in: the registry's dialects; bash
// for every other name.
func Dialect(name string) string {
	if p := Lookup(name); p != nil {
		for d, names := range p.Dialects {
			if slices.Contains(names, name) {
				return d
			}
		}
	}
	return "bash"
}

// Dialects returns the parser dialects a shell may be graded in: bash (every
// name the registry gives no dialect) and the registry's dialects, sorted.
func Dialects() []string {
	out := []string{"bash"}
	for _, p := range All() {
		for d := range p.Dialects {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return out
}

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
// policies/tables/programs.json, under data.rivumi.tables. Every name of an
// entry is a key:
//   - network: programs that touch the network;
//   - project_loaders: program → files it loads even for --version;
//   - programs.shells / .interpreters / .runs_anything: name sets;
//   - readonly: program → {"any": true} or {"flags": set}, "dynamic_ok",
//     "no_operands", "needs" (the options one of which it needs to be
//     read-only: ssh-keygen -l, tar -t) (the allow layer's read-only programs);
//   - writers: program → flag set (covered when every write stays inside
//     the workspace);
//   - version_forms: program → exact argv forms that print a version;
//   - ops_tools, workspace_runners (true, or the subcommands that run
//     workspace code), package_managers (the subcommands that install);
//   - git_readonly, git_list_words, git_needs_word, git_list_flags: git's
//     subcommands;
//   - kinds: kind → name set (see [Kinds]).
//
// A table with no entries is left out.
func RegoData(r *Registry) []byte {
	t := map[string]map[string]any{}
	put := func(table, key string, v any) {
		if t[table] == nil {
			t[table] = map[string]any{}
		}
		t[table][key] = v
	}
	progs := map[string]map[string]bool{"shells": {}, "interpreters": {}, "runs_anything": {}}
	kinds := map[string]map[string]bool{}
	for _, p := range r.all {
		for _, n := range p.Names {
			if p.Network {
				put("network", n, true)
			}
			if p.LoadsOnVersion {
				put("project_loaders", n, p.Loads)
			}
			if p.Shell {
				progs["shells"][n] = true
			}
			if p.Language != "" {
				progs["interpreters"][n] = true
			}
			if p.RunsAnything {
				progs["runs_anything"][n] = true
			}
			if p.Readonly != nil {
				e := flagSet(*p.Readonly)
				e["dynamic_ok"] = p.DynamicOK
				if p.NoOperands {
					e["no_operands"] = true
				}
				if len(p.ReadonlyNeeds) > 0 {
					e["needs"] = flagSet(strings.Join(p.ReadonlyNeeds, " "))["flags"]
				}
				put("readonly", n, e)
			}
			if p.WorkspaceWrite != nil {
				put("writers", n, flagSet(*p.WorkspaceWrite))
			}
			if f, ok := p.VersionForms[n]; ok {
				put("version_forms", n, f)
			}
			if p.Ops {
				put("ops_tools", n, true)
			}
			var runs, installs []string
			for _, sub := range sortedKeys(p.Subs) {
				if p.Subs[sub].RunsWorkspace {
					runs = append(runs, sub)
				}
				if p.Subs[sub].Installs {
					installs = append(installs, sub)
				}
			}
			if p.RunsWorkspace {
				put("workspace_runners", n, true)
			} else if len(runs) > 0 {
				put("workspace_runners", n, runs)
			}
			if len(installs) > 0 {
				put("package_managers", n, installs)
			}
			for _, k := range p.Kinds {
				if kinds[k] == nil {
					kinds[k] = map[string]bool{}
				}
				kinds[k][n] = true
			}
		}
		if p.Name != "git" {
			continue
		}
		for sub, s := range p.Subs {
			if s.Readonly != nil {
				put("git_readonly", sub, flagSet(*s.Readonly))
			}
			if len(s.ListWords) > 0 {
				put("git_list_words", sub, s.ListWords)
			}
			if s.NeedsWord {
				put("git_needs_word", sub, true)
			}
			if len(s.ListFlags) > 0 {
				put("git_list_flags", sub, s.ListFlags)
			}
		}
	}
	tables := map[string]any{"programs": progs}
	for k, v := range t {
		tables[k] = v
	}
	if len(kinds) > 0 {
		tables["kinds"] = kinds
	}
	doc := map[string]any{"rivumi": map[string]any{"tables": tables}}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// flagSet is the Rego form of an allowed-option list: "*" is any option.
func flagSet(spec string) map[string]any {
	if spec == "*" {
		return map[string]any{"any": true}
	}
	flags := map[string]bool{}
	for _, f := range strings.Fields(spec) {
		flags[f] = true
	}
	return map[string]any{"flags": flags}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
