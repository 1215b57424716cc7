package engine

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/rules"
)

// TeamPrograms adds a team's descriptions of programs rivumi does not know
// ([rules.TeamProgram]: option style, options, subcommands, code options,
// runs-anything, network, project files). They belong to this engine
// alone: every command it parses reads them ([Engine.ParserOptions]), the
// policy hash covers them, and the Rego reads their facts from the data.
// When New loads them, a name claimed twice is a load error, and each
// entry's examples are parsed: an example the parser reads otherwise than
// it says is a load error with file:line.
func TeamPrograms(ps ...rules.TeamProgram) Option {
	return func(c *config) { c.authoring.programs = append(c.authoring.programs, ps...) }
}

// ParserOptions returns the parser options of the engine's configuration
// (its team programs): a caller that parses a command itself before
// [Engine.Evaluate] passes them, with its own cwd, workspace and shell, so
// that the command is read as the engine reads it.
func (e *Engine) ParserOptions() []parser.Option {
	if e.c.team == nil {
		return nil
	}
	return []parser.Option{parser.Programs(e.c.team)}
}

// parserOptions is the evaluation's parser options and the engine's.
func (e *Engine) parserOptions(c *evalConfig) []parser.Option {
	return append(c.parserOptions(), e.ParserOptions()...)
}

// addTeamPrograms indexes the configuration's team programs into
// cfg.authoring.team and merges their facts into data (hashed with it).
func addTeamPrograms(cfg *config, data map[string]any) []string {
	a := &cfg.authoring
	team, problems := rules.NewTeamPrograms(a.programs)
	a.team = team
	if d := team.RegoData(); d != nil {
		merge(data, d)
	}
	return problems
}

// checkProgramExamples parses every team program example as the engine
// will (with the team's programs, in [ExampleWorkspace]) and returns each
// difference from what the example says, as "file:line: message".
func checkProgramExamples(team *rules.TeamPrograms) (problems []string) {
	opts := []parser.Option{parser.Programs(team), parser.Cwd(ExampleWorkspace), parser.Workspace(ExampleWorkspace), parser.Home(ExampleHome)}
	for _, t := range team.Entries() {
		for _, ex := range t.Examples {
			bad := func(format string, args ...any) {
				problems = append(problems, fmt.Sprintf("%s:%d: program %s: example %q: ", t.File, ex.Line, t.Program.Name, ex.Command)+
					fmt.Sprintf(format, args...))
			}
			cmd, err := parser.Parse(ex.Command, opts...)
			if err != nil {
				bad("does not parse: %v", err)
				continue
			}
			var seg *parser.Segment
			for _, s := range cmd.Segments {
				if s.Parent == -1 && slices.Contains(t.Program.Names, s.Program) {
					seg = s
					break
				}
			}
			if seg == nil {
				bad("no command of the program (its names: %s)", strings.Join(t.Program.Names, ", "))
				continue
			}
			if ex.Subcommand != nil && seg.Subcommand != *ex.Subcommand {
				bad("subcommand %q, want %q", seg.Subcommand, *ex.Subcommand)
			}
			if ex.HasFlags {
				if got, want := uniqSorted(seg.Flags), uniqSorted(ex.Flags); !slices.Equal(got, want) {
					bad("flags %v, want %v", got, want)
				}
			}
			for _, k := range sortedKeys(ex.Options) {
				if got := seg.Options[k]; !slices.Equal(got, ex.Options[k]) {
					bad("option %s: values %q, want %q", k, got, ex.Options[k])
				}
			}
			if ex.HasOperands {
				got := make([]string, len(seg.Operands))
				for i, o := range seg.Operands {
					got[i] = o.Text
				}
				if !slices.Equal(got, ex.Operands) {
					bad("operands %q, want %q", got, ex.Operands)
				}
			}
			for _, tag := range ex.Tags {
				if !seg.HasTag(tag) {
					bad("no tag %s (tags: %v)", tag, seg.Tags)
				}
			}
			for _, code := range ex.Code {
				found := false
				for _, s := range cmd.Segments {
					found = found || s.Parent == seg.Index && s.Text == code
				}
				if !found {
					bad("no code segment %q under it", code)
				}
			}
		}
	}
	return problems
}

func uniqSorted(ss []string) []string {
	out := slices.Clone(ss)
	sort.Strings(out)
	return slices.Compact(out)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
