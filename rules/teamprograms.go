package rules

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/rivumi/rivumi/internal/textdist"
	"github.com/rivumi/rivumi/programs"
)

// TeamProgram is a team's description of a program rivumi does not know,
// from the programs section of a YAML rule file or a configuration file:
//
//	programs:
//	  acmectl:
//	    names: [acmectl, acme]             # default: the key
//	    option_style: single-dash-long     # gnu (default), single-dash-long or none
//	    options: "env= force c|config="    # the registry's syntax: = takes a value
//	    subcommands:                       # the first operand is a subcommand
//	      deploy: {options: "canary= wait"}
//	      status: {}
//	    shell_options: [hook]              # options whose value is a shell command it runs
//	    language: python                   # with code_options: options whose value is code
//	    code_options: [exec]
//	    runs_anything: true                # it runs what it is handed: never grantable
//	    network: true                      # it touches the network (asks)
//	    project_files: [acme.star]         # project files it loads and runs, --version too
//	    examples:                          # checked when the engine loads
//	      - command: acmectl deploy -env=prod -force web
//	        subcommand: deploy
//	        flags: [env, force]
//	        options: {env: [prod]}
//	        operands: [web]
//
// A team entry only adds knowledge: it may not name a program the
// built-in registry knows (programs.yaml), nor one the built-in parser or
// policies treat by name (see [TeamProgramNameFree]); rivumi's own view
// of a known program changes through the registry, with its testcases.
type TeamProgram struct {
	Program *programs.Program
	// Style is the option style: "gnu", "single-dash-long" or "none".
	Style    string
	Examples []ProgramExample
	// File and Line locate the entry (its key).
	File string
	Line int
}

// Where returns "file:line" of the entry.
func (t *TeamProgram) Where() string { return fmt.Sprintf("%s:%d", t.File, t.Line) }

// ProgramExample is one example of a team program entry: a command and
// what the parser must read from its first segment. A field left out is
// not checked; flags and operands, when given, must be exactly the
// segment's (flags as a set, operands in order), options must hold the
// values given for each name given, tags must be among the segment's, and
// code lists the texts of child segments the command must have (shell
// code found in a shell option).
type ProgramExample struct {
	Command    string
	Line       int
	Subcommand *string
	Flags      []string
	Options    map[string][]string
	Operands   []string
	Tags       []string
	Code       []string
	// HasFlags and HasOperands are true when the example gives them (an
	// empty list checks that there are none).
	HasFlags, HasOperands bool
}

// Option styles of a team program.
const (
	StyleGNU            = "gnu"
	StyleSingleDashLong = "single-dash-long"
	StyleNone           = "none"
)

var teamProgramKeys = []string{"names", "option_style", "options", "in_order", "subcommands", "shell_options",
	"language", "code_options", "runs_anything", "network", "project_files", "examples"}

var teamExampleKeys = []string{"command", "subcommand", "flags", "options", "operands", "tags", "code"}

// ParseTeamPrograms parses the value of a programs key (a mapping of
// entries) in file name. It returns the entries that are valid and the
// problems of the others, as "file:line: message"; an unknown key is named
// with the nearest known one. Entries are checked alone here; names
// across entries and files, and the examples, are checked when the engine
// loads them ([NewTeamPrograms], engine.TeamPrograms).
func ParseTeamPrograms(name string, m *yaml.Node) ([]TeamProgram, []string) {
	if m.Tag == "!!null" {
		return nil, nil
	}
	if m.Kind != yaml.MappingNode {
		return nil, []string{fmt.Sprintf("%s:%d: programs: want a mapping of program name to its description", name, m.Line)}
	}
	var out []TeamProgram
	var problems []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		t, ps := parseTeamProgram(name, m.Content[i], m.Content[i+1])
		if len(ps) > 0 {
			problems = append(problems, ps...)
			continue
		}
		out = append(out, t)
	}
	return out, problems
}

func unknownKey(k string, known []string) string {
	msg := fmt.Sprintf("unknown key %q", k)
	if best, ok := textdist.Closest(k, known); ok {
		return msg + fmt.Sprintf(" (did you mean %q?)", best)
	}
	return msg + " (want " + strings.Join(known, ", ") + ")"
}

func parseTeamProgram(file string, k, v *yaml.Node) (TeamProgram, []string) {
	p := &programs.Program{Name: k.Value}
	t := TeamProgram{Program: p, Style: StyleGNU, File: file, Line: k.Line}
	var problems []string
	bad := func(line int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: program %s: ", file, line, k.Value)+fmt.Sprintf(format, args...))
	}
	if v.Kind != yaml.MappingNode {
		bad(v.Line, "want a mapping (%s)", strings.Join(teamProgramKeys, ", "))
		return t, problems
	}
	boolean := func(n *yaml.Node, key string) bool {
		switch scalar(n, func(f string, a ...any) { bad(n.Line, key+": "+f, a...) }) {
		case "true":
			return true
		case "false":
		default:
			bad(n.Line, "%s: want true or false", key)
		}
		return false
	}
	list := func(n *yaml.Node, key string) []string {
		return stringList(n, func(line int, f string, a ...any) { bad(line, key+": "+f, a...) })
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kk, vv := v.Content[i], v.Content[i+1]
		if seen[kk.Value] {
			bad(kk.Line, "duplicate key %q", kk.Value)
			continue
		}
		seen[kk.Value] = true
		switch kk.Value {
		case "names":
			p.Names = list(vv, "names")
		case "option_style":
			t.Style = scalar(vv, func(f string, a ...any) { bad(vv.Line, "option_style: "+f, a...) })
			switch t.Style {
			case StyleGNU, StyleSingleDashLong, StyleNone:
			default:
				bad(vv.Line, "option_style %q: want gnu, single-dash-long or none", t.Style)
			}
		case "options":
			p.Options = scalar(vv, func(f string, a ...any) { bad(vv.Line, "options: "+f, a...) })
			for _, ent := range strings.Fields(p.Options) {
				if strings.HasPrefix(ent, "-") {
					bad(vv.Line, "options: write %q without its dashes", ent)
				}
			}
		case "in_order":
			p.InOrder = boolean(vv, "in_order")
		case "subcommands":
			p.Subcommands = true
			p.Subs = map[string]*programs.Sub{}
			if vv.Kind != yaml.MappingNode {
				bad(vv.Line, "subcommands: want a mapping of subcommand to {options: …}")
				continue
			}
			for j := 0; j+1 < len(vv.Content); j += 2 {
				sk, sv := vv.Content[j], vv.Content[j+1]
				sub := &programs.Sub{}
				p.Subs[sk.Value] = sub
				if sv.Tag == "!!null" {
					continue
				}
				if sv.Kind != yaml.MappingNode {
					bad(sv.Line, "subcommand %s: want a mapping ({options: …} or {})", sk.Value)
					continue
				}
				for m := 0; m+1 < len(sv.Content); m += 2 {
					if sv.Content[m].Value != "options" {
						bad(sv.Content[m].Line, "subcommand %s: %s", sk.Value, unknownKey(sv.Content[m].Value, []string{"options"}))
						continue
					}
					sub.Options = scalar(sv.Content[m+1], func(f string, a ...any) { bad(sv.Content[m+1].Line, "options: "+f, a...) })
				}
			}
		case "shell_options":
			p.ShellOptions = list(vv, "shell_options")
		case "language":
			p.Language = scalar(vv, func(f string, a ...any) { bad(vv.Line, "language: "+f, a...) })
		case "code_options":
			p.CodeOptions = list(vv, "code_options")
		case "runs_anything":
			p.RunsAnything = boolean(vv, "runs_anything")
		case "network":
			p.Network = boolean(vv, "network")
		case "project_files":
			p.Loads = list(vv, "project_files")
			p.LoadsOnVersion = len(p.Loads) > 0
		case "examples":
			ex, ps := teamExamples(file, k.Value, vv)
			t.Examples = ex
			problems = append(problems, ps...)
		default:
			bad(kk.Line, "%s", unknownKey(kk.Value, teamProgramKeys))
		}
	}
	if len(p.Names) == 0 {
		p.Names = []string{p.Name}
	}
	if !slices.Contains(p.Names, p.Name) {
		bad(k.Line, "names must include the entry's own name")
	}
	for _, n := range p.Names {
		switch {
		case n == "" || n != strings.ToLower(n) || strings.ContainsAny(n, "/ \t\n\"'$`\\"):
			bad(k.Line, "name %q: a program's base name, in lower case", n)
		case !TeamProgramNameFree(n):
			bad(k.Line, "name %q: rivumi knows this program already (its registry, programs/programs.yaml, or its policies name it): "+
				"a team entry may only describe programs rivumi does not know, so that it can never lower a built-in verdict; "+
				"propose the change to the registry with its testcases", n)
		}
	}
	style := t.Style
	if style == StyleNone && (p.Options != "" || p.InOrder) {
		bad(k.Line, "option_style none takes no options (every word is an operand)")
	}
	for sub, s := range p.Subs {
		if style == StyleNone && s.Options != "" {
			bad(k.Line, "subcommand %s: option_style none takes no options", sub)
		}
	}
	p.SingleDashLong = style == StyleSingleDashLong
	all := p.Options
	for _, s := range p.Subs {
		all += " " + s.Options
	}
	for _, o := range append(append([]string{}, p.ShellOptions...), p.CodeOptions...) {
		if !teamDeclaresValue(all, o) {
			bad(k.Line, "code option %q is not a value-taking option of options (write it %q there)", o, o+"=")
		}
	}
	if len(p.CodeOptions) > 0 && p.Language == "" {
		bad(k.Line, "code_options without a language (python, node, perl, ruby, php, lua, shell …)")
	}
	if p.Language != "" {
		if len(p.CodeOptions) == 0 {
			bad(k.Line, "language without code_options")
		}
		if !p.RunsAnything {
			bad(k.Line, "a program that runs code runs anything (runs_anything: true)")
		}
	}
	if len(p.ShellOptions) > 0 && !p.RunsAnything {
		bad(k.Line, "a program with shell_options runs what it is handed (runs_anything: true)")
	}
	for _, f := range p.Loads {
		if f == "" || strings.HasPrefix(f, "/") || strings.Contains(f, "..") {
			bad(k.Line, "project file %q: a path relative to the project root", f)
		}
	}
	if len(t.Examples) == 0 {
		bad(k.Line, "no examples: give at least one command and what rivumi must read from it (subcommand, flags, options, operands)")
	}
	return t, problems
}

// teamDeclaresValue reports whether an option description declares canon
// with a value.
func teamDeclaresValue(desc, canon string) bool {
	for _, ent := range strings.Fields(desc) {
		if !strings.HasSuffix(ent, "=") && !strings.HasSuffix(ent, "=?") {
			continue
		}
		if slices.Contains(strings.Split(strings.TrimRight(ent, "=?"), "|"), canon) {
			return true
		}
	}
	return false
}

func teamExamples(file, prog string, v *yaml.Node) ([]ProgramExample, []string) {
	var problems []string
	bad := func(line int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: program %s: example: ", file, line, prog)+fmt.Sprintf(format, args...))
	}
	if v.Kind != yaml.SequenceNode {
		bad(v.Line, "want a list of {command: …, subcommand, flags, options, operands, tags, code}")
		return nil, problems
	}
	var out []ProgramExample
	for _, n := range v.Content {
		ex := ProgramExample{Line: n.Line}
		if n.Kind != yaml.MappingNode {
			bad(n.Line, "want a mapping with command and what it must read")
			continue
		}
		list := func(n *yaml.Node, key string) []string {
			l := stringList(n, func(line int, f string, a ...any) { bad(line, key+": "+f, a...) })
			if l == nil {
				l = []string{}
			}
			return l
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			switch k.Value {
			case "command":
				ex.Command = scalar(val, func(f string, a ...any) { bad(val.Line, "command: "+f, a...) })
			case "subcommand":
				s := scalar(val, func(f string, a ...any) { bad(val.Line, "subcommand: "+f, a...) })
				ex.Subcommand = &s
			case "flags":
				ex.Flags, ex.HasFlags = list(val, "flags"), true
			case "operands":
				ex.Operands, ex.HasOperands = list(val, "operands"), true
			case "tags":
				ex.Tags = list(val, "tags")
			case "code":
				ex.Code = list(val, "code")
			case "options":
				ex.Options = map[string][]string{}
				if val.Kind != yaml.MappingNode {
					bad(val.Line, "options: want a mapping of option name to its values")
					continue
				}
				for j := 0; j+1 < len(val.Content); j += 2 {
					ok, ov := val.Content[j], val.Content[j+1]
					if ov.Kind == yaml.ScalarNode {
						ex.Options[ok.Value] = []string{ov.Value}
					} else {
						ex.Options[ok.Value] = list(ov, "options: "+ok.Value)
					}
				}
			default:
				bad(k.Line, "%s", unknownKey(k.Value, teamExampleKeys))
			}
		}
		if strings.TrimSpace(ex.Command) == "" {
			bad(n.Line, "no command")
			continue
		}
		out = append(out, ex)
	}
	return out, problems
}

// TeamPrograms is the set of team program entries one configuration loads:
// an overlay on the built-in registry, for one engine (never global: two
// projects graded by one server each keep their own). A nil *TeamPrograms
// is valid and knows no program. It is immutable once built and safe for
// concurrent use.
type TeamPrograms struct {
	entries []TeamProgram
	byName  map[string]*programs.Program
	specs   map[string]*Spec // by name and "name sub"
	canon   map[string]any   // what the policy hash covers
}

// NewTeamPrograms indexes entries. A name claimed by two entries, or one
// a team may not describe ([TeamProgramNameFree]: entries made in Go skip
// [ParseTeamPrograms]), is a problem ("file:line: message") and the
// entry is left out. It returns nil when there are no entries.
func NewTeamPrograms(entries []TeamProgram) (*TeamPrograms, []string) {
	if len(entries) == 0 {
		return nil, nil
	}
	t := &TeamPrograms{byName: map[string]*programs.Program{}, specs: map[string]*Spec{}, canon: map[string]any{}}
	var problems []string
	where := map[string]string{}
	for _, e := range entries {
		p := exposed(e)
		e.Program = p
		dup := len(p.Names) == 0
		for _, n := range p.Names {
			if w, ok := where[n]; ok {
				problems = append(problems, fmt.Sprintf("%s: program %s: name %q already described at %s", e.Where(), p.Name, n, w))
				dup = true
			}
			if !TeamProgramNameFree(n) {
				problems = append(problems, fmt.Sprintf("%s: program %s: name %q: rivumi knows this program already: a team entry may not describe it", e.Where(), p.Name, n))
				dup = true
			}
		}
		if dup {
			continue
		}
		t.entries = append(t.entries, e)
		spec := &Spec{desc: p.Options, InOrder: p.InOrder, SingleDashLong: p.SingleDashLong, Subcommands: p.Subcommands,
			NoOptions: e.Style == StyleNone}
		for _, n := range p.Names {
			where[n] = e.Where()
			t.byName[n] = p
			t.specs[n] = spec
			for sub, s := range p.Subs {
				if s.Options != "" {
					t.specs[n+" "+sub] = &Spec{desc: s.Options, InOrder: p.InOrder, SingleDashLong: p.SingleDashLong}
				}
			}
		}
		subs := map[string]any{}
		for sub, s := range p.Subs {
			subs[sub] = s.Options
		}
		t.canon[p.Name] = map[string]any{"names": p.Names, "style": e.Style, "options": p.Options, "in_order": p.InOrder,
			"subcommands": subs, "has_subcommands": p.Subcommands, "shell_options": p.ShellOptions, "language": p.Language,
			"code_options": p.CodeOptions, "runs_anything": p.RunsAnything, "network": p.Network, "project_files": p.Loads}
	}
	return t, problems
}

// exposed copies the facts a team may state of e's program, and only
// those: an entry made in Go cannot carry a registry field the YAML does
// not offer (readonly, kinds, wrappers …), which could allow.
func exposed(e TeamProgram) *programs.Program {
	p := e.Program
	if p == nil {
		return &programs.Program{Name: "(none)"}
	}
	q := &programs.Program{Name: p.Name, Names: slices.Clone(p.Names), Options: p.Options, InOrder: p.InOrder,
		SingleDashLong: e.Style == StyleSingleDashLong, Subcommands: p.Subcommands, ShellOptions: slices.Clone(p.ShellOptions),
		Language: p.Language, CodeOptions: slices.Clone(p.CodeOptions), RunsAnything: p.RunsAnything || p.Language != "" || len(p.ShellOptions) > 0,
		Network: p.Network, Loads: slices.Clone(p.Loads), LoadsOnVersion: len(p.Loads) > 0}
	if len(p.Subs) > 0 {
		q.Subs = map[string]*programs.Sub{}
		for k, s := range p.Subs {
			q.Subs[k] = &programs.Sub{Options: s.Options}
		}
	}
	return q
}

// Entries returns the entries in load order.
func (t *TeamPrograms) Entries() []TeamProgram {
	if t == nil {
		return nil
	}
	return t.entries
}

// Lookup returns the team's entry for a program name (a base name as the
// parser normalises it), or nil.
func (t *TeamPrograms) Lookup(name string) *programs.Program {
	if t == nil {
		return nil
	}
	return t.byName[name]
}

// Spec returns the option table of a team program (or "prog sub"), or nil.
func (t *TeamPrograms) Spec(name string) *Spec {
	if t == nil {
		return nil
	}
	if s := t.specs[name]; s != nil {
		return s.build()
	}
	return nil
}

// RunsAnything reports whether the team describes prog as running what it
// is handed.
func (t *TeamPrograms) RunsAnything(prog string) bool {
	p := t.Lookup(strings.TrimSuffix(strings.ToLower(prog), ".exe"))
	return p != nil && p.RunsAnything
}

// RegoData returns the entries' facts as the built-in registry's appear
// under data.rivumi.tables (network, project_loaders, the shells,
// interpreters and runs_anything sets: see [programs.RegoData]), and the
// whole description under data.rivumi.team_programs, so that the policy
// hash covers every fact that can change a verdict. Nil for nil.
func (t *TeamPrograms) RegoData() map[string]any {
	if t == nil {
		return nil
	}
	progs := make([]*programs.Program, 0, len(t.entries))
	for _, e := range t.entries {
		progs = append(progs, e.Program)
	}
	var doc map[string]any
	if err := json.Unmarshal(programs.RegoData(programs.NewRegistry(progs)), &doc); err != nil {
		panic(err) // our own JSON
	}
	root := doc["rivumi"].(map[string]any)
	canon := map[string]any{}
	for k, v := range t.canon {
		canon[k] = v
	}
	root["team_programs"] = canon
	return doc
}

// IsProjectCode reports whether a file at path (slash-separated, any
// case) is one of the team programs' project_files: like a shim's files
// ([IsProjectCode]), writing one is writing code the program runs, so the
// parser classes it project-code. A project file is matched by its base
// name, or, when it holds a slash, as a path suffix.
func (t *TeamPrograms) IsProjectCode(path string) bool {
	if t == nil {
		return false
	}
	lp := strings.ToLower(strings.TrimRight(path, "/"))
	base := lp[strings.LastIndexByte(lp, '/')+1:]
	for _, e := range t.entries {
		for _, f := range e.Program.Loads {
			f = strings.ToLower(f)
			if strings.Contains(f, "/") {
				if strings.HasSuffix(lp, "/"+f) || lp == f {
					return true
				}
			} else if base == f {
				return true
			}
		}
	}
	return false
}

// TeamProgramNameFree reports whether a team entry may describe name: the
// built-in registry does not know it (in any spelling it looks names up
// by, versioned ones included), and the parser and policies do not treat
// it by name.
func TeamProgramNameFree(name string) bool {
	if programs.Lookup(name) != nil || RunsAnything(name) {
		return false
	}
	if _, reserved := builtinNamed()[name]; reserved {
		return false
	}
	for _, p := range builtinPrefixes {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	return true
}

// builtinPrefixes are the name prefixes the policies match a program by
// (floor.mkfs: any mkfs.*; TestBuiltinNamed reads them from the sources).
var builtinPrefixes = []string{"mkfs"}

// builtinNamed are the words the parser and the policies compare a program
// (or a subcommand) with by name, outside the registry (TestBuiltinNamed
// reads them from the sources): a team entry for one of them could change
// how a built-in rule reads it. Built on first use: every process pays for
// what its packages build at initialisation.
var builtinNamed = sync.OnceValue(func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, n := range strings.Fields(`add agent-config apply_patch applypatch archive arg-file args badblocks base32 basenc
		bisect blame branch break bunzip2 busybox-awk bzip2 cat-file changes chdir checkout ci clean command_not_found_handle
		commit config continue create delete-ns delimiter destination destroy dst ec emergency emulate enable
		encodedcommand envrc eof ex execdir filter-branch filter-repo fls format fprint fprint0 fprintf from-file gc
		gunzip gvim gzip hdparm help hibernate indent init instructions is-active is-enabled is-failed jsonargs kexec
		killall5 labelclear less lessopen library-path list-dependencies log max-args max-lines more most new
		new-session new-window neww no-wall null nvim ok okdir probe project-code prune readonly rebase reflog replace
		rescue reset respawn-pane respawn-window restore ro run run-shell run-tests sanitize send send-keys sg shell
		show silent soft-reboot split-window splitw src stash status submodule suspend switch tag target unxz unzstd
		update-ref uudecode var verbose vi view vim vimdiff workspace worktree write-zeroes xz zcat zstd`) {
		m[n] = struct{}{}
	}
	return m
})
