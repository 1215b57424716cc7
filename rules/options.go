package rules

import (
	"sort"
	"strings"
	"sync"

	"github.com/rivumi/rivumi/programs"
)

// Option describes one option of a program.
type Option struct {
	// Canon is the canonical name facts use: the first long name, or the
	// short letter when the option has no long name.
	Canon string
	// Arg is ArgNone, ArgRequired or ArgOptional.
	Arg ArgKind
}

// ArgKind says whether an option takes a value.
type ArgKind uint8

// Argument kinds. An optional argument is only taken when attached
// (`--color=auto`, `-n5` is still required-style for short options).
const (
	ArgNone ArgKind = iota
	ArgRequired
	ArgOptional
)

// Spec is what rivumi knows of a program's command line.
type Spec struct {
	Short map[byte]Option   // by letter
	Long  map[string]Option // by long name, without dashes
	// Abbrev is true when the program accepts unique prefixes of long
	// options (GNU getopt_long, git's parse-options).
	Abbrev bool
	// FoldCase is true for programs whose option names are not case
	// sensitive (PowerShell: -Command, -command, -COMMAND).
	FoldCase bool
	// SingleDashLong is true for programs whose long options take one dash
	// (find -name, java -jar); such words are not split into letters.
	SingleDashLong bool
	// Subcommands is true when the first operand names a subcommand
	// (git, npm, go …); per-subcommand specs are keyed "prog sub".
	Subcommands bool
	// InOrder is true when options end at the first operand (POSIX
	// getopt: shells, interpreters, ssh, find, echo); otherwise options may
	// follow operands (GNU permutation).
	InOrder bool
	// NoOptions is true for programs that take no options: every word
	// after the program (and its subcommand) is an operand, dashes or not
	// (a team's option_style: none).
	NoOptions bool

	// The option maps are built from desc (the registry's options) on
	// first use: ~250 descriptions parsed at start-up cost half a
	// millisecond of every process, and a hook grades one or two programs.
	desc  string
	built sync.Once
}

// Style is a spec with s's way of parsing (one-dash long options, case,
// abbreviations, order) and no options of its own: a subcommand the
// registry lists no options for still parses its command line as its
// program does (terraform apply -auto-approve is one option, not eleven
// letters). Nil for nil.
func (s *Spec) Style() *Spec {
	if s == nil {
		return nil
	}
	return &Spec{Short: map[byte]Option{}, Long: map[string]Option{}, Abbrev: s.Abbrev, FoldCase: s.FoldCase,
		SingleDashLong: s.SingleDashLong, InOrder: s.InOrder, NoOptions: s.NoOptions}
}

// Bare reports whether the program takes no options ([Spec.NoOptions]);
// false for nil.
func (s *Spec) Bare() bool { return s != nil && s.NoOptions }

// build fills Short and Long from desc, once.
func (s *Spec) build() *Spec {
	s.built.Do(func() {
		if s.Short != nil || s.Long != nil {
			return // made by hand, not from a description
		}
		s.Short, s.Long = map[byte]Option{}, map[string]Option{}
		for _, ent := range strings.Fields(s.desc) {
			arg := ArgNone
			switch {
			case strings.HasSuffix(ent, "=?"):
				arg, ent = ArgOptional, strings.TrimSuffix(ent, "=?")
			case strings.HasSuffix(ent, "="):
				arg, ent = ArgRequired, strings.TrimSuffix(ent, "=")
			}
			names := strings.Split(ent, "|")
			canon := names[0]
			for _, n := range names {
				if len(n) > 1 {
					canon = n
					break
				}
			}
			o := Option{Canon: canon, Arg: arg}
			for _, n := range names {
				if len(n) == 1 {
					s.Short[n[0]] = o
				} else {
					s.Long[n] = o
				}
			}
		}
	})
	return s
}

// LookupLong resolves a long option name, honouring unique-prefix
// abbreviations when the program accepts them. It returns the option and
// true, or false when unknown or ambiguous.
func (s *Spec) LookupLong(name string) (Option, bool) {
	if s == nil {
		return Option{}, false
	}
	if o, ok := s.Long[name]; ok {
		return o, true
	}
	if !s.Abbrev || name == "" {
		return Option{}, false
	}
	var found Option
	n := 0
	seen := map[string]bool{}
	for long, o := range s.Long {
		if strings.HasPrefix(long, name) && !seen[o.Canon] {
			seen[o.Canon] = true
			found = o
			n++
		}
	}
	return found, n == 1
}

// ProgramSpec returns what rivumi knows of prog (or "prog sub" for a
// subcommand), or nil. Program names are basenames as the parser normalises
// them.
func ProgramSpec(name string) *Spec {
	s := specs()[name]
	if s == nil {
		// A versioned name of a registry program (python3.12).
		if p := programs.Lookup(name); p != nil {
			s = specs()[p.Names[0]]
		}
	}
	if s == nil {
		return nil
	}
	return s.build()
}

// KnownPrograms lists the programs with a spec, sorted; for tests and docs.
func KnownPrograms() []string {
	out := make([]string, 0, len(specs()))
	for k := range specs() {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// HasSubcommands reports whether prog takes a subcommand as its first
// operand (git push, npm install).
func HasSubcommands(prog string) bool {
	p := programs.Lookup(prog)
	return p != nil && p.Subcommands
}

// specs holds the option tables of the program registry by every name of
// an entry ("prog sub" for a subcommand's). It is built on first use, not
// at every start of every rivumi process.
var specs = sync.OnceValue(func() map[string]*Spec {
	specs := map[string]*Spec{}
	for _, p := range programs.All() {
		if !p.HasSpec() {
			continue
		}
		s := &Spec{desc: p.Options, Abbrev: p.Abbrev, InOrder: p.InOrder, SingleDashLong: p.SingleDashLong,
			FoldCase: p.FoldCase, Subcommands: p.Subcommands}
		for _, n := range p.Names {
			specs[n] = s
		}
		for sub, o := range p.Subs {
			if o.Options == "" {
				continue
			}
			for _, n := range p.Names {
				specs[n+" "+sub] = &Spec{desc: o.Options, Abbrev: p.Abbrev, InOrder: p.InOrder,
					SingleDashLong: p.SingleDashLong, FoldCase: p.FoldCase}
			}
		}
	}
	return specs
})
