package parser

import (
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/rules"
)

func teamPrograms(t testing.TB, doc string) *rules.TeamPrograms {
	t.Helper()
	_, tp, err := rules.ParseRuleFile("team.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	team, ps := rules.NewTeamPrograms(tp)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return team
}

const teamDoc = `programs:
  acmectl:
    names: [acmectl, acme]
    option_style: single-dash-long
    options: "env= force c|config="
    subcommands:
      deploy: {options: "env= force hook= canary"}
      status: {}
    shell_options: [hook]
    runs_anything: true
    project_files: [acme.star]
    examples: [{command: acmectl}]
  tidyctl:
    option_style: none
    subcommands: {run: {}}
    examples: [{command: tidyctl}]
  gnuctl:
    options: "n|namespace= f|force"
    examples: [{command: gnuctl}]
`

// TestTeamProgramsParse: a team's description changes how its program's
// command line is read, and only with the Programs option.
func TestTeamProgramsParse(t *testing.T) {
	team := teamPrograms(t, teamDoc)
	for _, tc := range []struct {
		in         string
		sub        string
		flags      []string
		options    map[string][]string
		operands   []string
		without    []string // the flags without the team's programs
		runsAnyway bool
	}{
		{in: "acmectl deploy -env prod -force -canary web", sub: "deploy", flags: []string{"canary", "env", "force"},
			options: map[string][]string{"env": {"prod"}}, operands: []string{"web"},
			without: []string{"a", "c", "e", "f", "n", "o", "r", "v", "y"}, runsAnyway: true},
		{in: "acme -config=x.yaml -c y status -env=dev", sub: "status", flags: []string{"config", "env"},
			options: map[string][]string{"config": {"x.yaml", "y"}, "env": {"dev"}}, operands: []string{}, runsAnyway: true},
		{in: "tidyctl run -rf / --force", sub: "run", flags: []string{}, operands: []string{"-rf", "/", "--force"},
			without: []string{"f", "force", "r"}},
		{in: "gnuctl apply -fn prod x", sub: "", flags: []string{"force", "namespace"},
			options: map[string][]string{"namespace": {"prod"}}, operands: []string{"apply", "x"}, without: []string{"f", "n"}},
	} {
		cmd, err := Parse(tc.in, Programs(team))
		if err != nil {
			t.Fatal(err)
		}
		s := cmd.Segments[0]
		if s.Subcommand != tc.sub || !reflect.DeepEqual(s.Flags, tc.flags) {
			t.Errorf("%q: subcommand %q flags %q, want %q %q", tc.in, s.Subcommand, s.Flags, tc.sub, tc.flags)
		}
		for k, v := range tc.options {
			if !reflect.DeepEqual(s.Options[k], v) {
				t.Errorf("%q: option %s %q, want %q", tc.in, k, s.Options[k], v)
			}
		}
		var ops []string
		for _, o := range s.Operands {
			ops = append(ops, o.Text)
		}
		if !slices.Equal(ops, tc.operands) {
			t.Errorf("%q: operands %q, want %q", tc.in, ops, tc.operands)
		}
		if s.HasTag(TagRunsAnything) != tc.runsAnyway {
			t.Errorf("%q: runs-anything %v", tc.in, !tc.runsAnyway)
		}
		if tc.without != nil {
			plain := mustParse(t, tc.in).Segments[0]
			if !reflect.DeepEqual(plain.Flags, tc.without) || plain.HasTag(TagRunsAnything) {
				t.Errorf("%q without the team's programs: flags %q, want %q (the overlay leaked)", tc.in, plain.Flags, tc.without)
			}
		}
	}
}

// TestTeamProgramsCode: a shell option's value is shell code, graded as
// child segments; a project file is project code.
func TestTeamProgramsCode(t *testing.T) {
	team := teamPrograms(t, teamDoc)
	cmd, _ := Parse(`acmectl deploy -hook 'rm -rf /tmp/x' web`, Programs(team))
	if len(cmd.Segments) != 2 || cmd.Segments[1].Program != "rm" || cmd.Segments[1].Parent != 0 {
		t.Fatalf("segments %+v", cmd.Segments)
	}
	cmd, _ = Parse(`echo x > acme.star`, Programs(team), Workspace("/w"))
	if c := cmd.Segments[0].Redirects[0].Target.Class; c != ClassProjectCode {
		t.Errorf("acme.star: class %s, want %s", c, ClassProjectCode)
	}
	cmd, _ = Parse(`echo x > acme.star`, Workspace("/w"))
	if c := cmd.Segments[0].Redirects[0].Target.Class; c != ClassWorkspace {
		t.Errorf("acme.star without the team's programs: class %s", c)
	}
}

// TestTeamProgramsConcurrent parses with two configurations at once (run
// with -race): each parse reads its own.
func TestTeamProgramsConcurrent(t *testing.T) {
	a := teamPrograms(t, teamDoc)
	b := teamPrograms(t, "programs:\n  acmectl:\n    option_style: none\n    examples: [{command: acmectl}]\n")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				team, want := a, []string{"force"}
				if i%2 == 1 {
					team, want = b, []string{}
				}
				cmd, _ := Parse("acmectl -force", Programs(team))
				if got := cmd.Segments[0].Flags; !reflect.DeepEqual(got, want) {
					t.Errorf("flags %q, want %q", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
