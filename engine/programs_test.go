package engine_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/programs"
	"github.com/rivumi/rivumi/rules"
)

func teamFile(t testing.TB, doc string) ([]rules.YAMLRule, []rules.TeamProgram) {
	t.Helper()
	rs, tp, err := rules.ParseRuleFile("team.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return rs, tp
}

func teamEngine(t testing.TB, doc string) *engine.Engine {
	t.Helper()
	rs, tp := teamFile(t, doc)
	e, err := engine.New(context.Background(), engine.YAMLRules(rs...), engine.TeamPrograms(tp...))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

const acmeTeam = `programs:
  acmectl:
    option_style: single-dash-long
    options: "env= force"
    subcommands:
      deploy: {options: "env= force hook="}
    shell_options: [hook]
    runs_anything: true
    network: true
    examples:
      - command: acmectl deploy -env prod -force web
        subcommand: deploy
        flags: [env, force]
        options: {env: [prod]}
        operands: [web]
      - command: acmectl deploy -hook 'rm -rf build' web
        code: [rm -rf build]
        tags: [runs-anything]
rules:
  - id: team.acme-force
    pattern: [acmectl, deploy, -force]
    decision: deny
    justification: Forced deploys skip the canary; deploy without -force.
    match: [acmectl deploy -force web, acmectl deploy -env prod -force=true web]
    not_match: [acmectl deploy web, acmectl deploy -env force web]
`

func reasonIDs(v engine.Verdict) []string {
	var ids []string
	for _, r := range v.Reasons {
		ids = append(ids, r.Rule)
	}
	sort.Strings(ids)
	return ids
}

// TestTeamProgramsGrade: a team's program description and a rule on its
// options, through the whole engine.
func TestTeamProgramsGrade(t *testing.T) {
	e := teamEngine(t, acmeTeam)
	ctx := context.Background()
	opts := []engine.EvalOption{engine.Cwd("/w"), engine.Workspace("/w")}
	for _, tc := range []struct {
		cmd, decision, rule string
	}{
		{"acmectl deploy -force web", "deny", "team.acme-force"},
		{"acmectl deploy -force=true web", "deny", "team.acme-force"},
		{"acmectl deploy web", "ask", "network.access"},
		{"acmectl deploy -env force web", "ask", "network.access"},           // force is -env's value
		{"acmectl deploy -hook 'rm -rf /' web", "deny", "floor.rm-critical"}, // the hook is shell code
	} {
		v := e.EvaluateText(ctx, tc.cmd, opts...)
		if v.Decision.String() != tc.decision || !strings.Contains(strings.Join(reasonIDs(v), " "), tc.rule) {
			t.Errorf("%q: %s %v, want %s by %s", tc.cmd, v.Decision, reasonIDs(v), tc.decision, tc.rule)
		}
		argv := strings.Fields(tc.cmd)
		if !strings.Contains(tc.cmd, "'") {
			if va := e.EvaluateArgv(ctx, argv, opts...); va.Decision != v.Decision {
				t.Errorf("%q as argv: %s, as text %s", tc.cmd, va.Decision, v.Decision)
			}
		}
	}
	// A grant cannot cover a program the team says runs anything.
	g := []engine.Grant{{Prefix: []string{"acmectl"}, Rules: []string{"network.access", "fallback.uncovered"}}}
	if v := e.EvaluateText(ctx, "acmectl deploy web", append(opts, engine.Grants(g))...); v.Decision == engine.Allow {
		t.Errorf("a grant covered a runs-anything team program: %v", reasonIDs(v))
	}
	// A caller that parses the command itself gets the same reading.
	cmd, _ := parser.Parse("acmectl deploy -force web", append(e.ParserOptions(), parser.Cwd("/w"), parser.Workspace("/w"))...)
	if v := e.Evaluate(ctx, cmd); v.Decision != engine.Deny {
		t.Errorf("Evaluate with the engine's parser options: %s", v.Decision)
	}
}

// TestTeamProgramsTerraformRule is issue 35 item 8: a team rule on
// terraform's -auto-approve fires (the word is one option), in each
// spelling, and not on a near miss.
func TestTeamProgramsTerraformRule(t *testing.T) {
	e := teamEngine(t, `rules:
  - id: team.tf-auto-approve
    pattern: [terraform, apply, -auto-approve]
    decision: deny
    justification: Applies are reviewed; apply the saved plan from CI instead.
    match:
      - terraform apply -auto-approve
      - terraform -chdir=infra apply -var-file=prod.tfvars -auto-approve
      - terraform apply -auto-approve=true
    not_match:
      - terraform apply
      - terraform plan -auto-approve
      - terraform apply -var=auto-approve=1
`)
	ctx := context.Background()
	for cmd, want := range map[string]engine.Decision{
		"terraform apply -auto-approve":                engine.Deny,
		"sudo terraform apply -target=x -auto-approve": engine.Deny,
		"tofu apply -auto-approve":                     engine.Ask, // the rule names terraform only
		"terraform apply -target=auto-approve":         engine.Ask,
	} {
		if v := e.EvaluateText(ctx, cmd); v.Decision != want {
			t.Errorf("%q: %s %v, want %s", cmd, v.Decision, reasonIDs(v), want)
		}
	}
}

// TestTeamProgramsLoadErrors: examples the parser reads otherwise, and
// names a team may not describe, stop the engine with file:line.
func TestTeamProgramsLoadErrors(t *testing.T) {
	_, tp := teamFile(t, `programs:
  acmectl:
    options: "env="
    examples:
      - command: acmectl --env prod web
        flags: [env]
        operands: [prod, web]
      - {command: acmectl web, subcommand: web}
`)
	_, err := engine.New(context.Background(), engine.TeamPrograms(tp...))
	for _, want := range []string{
		`team.yaml:5: program acmectl: example "acmectl --env prod web": operands ["web"], want ["prod" "web"]`,
		`team.yaml:8: program acmectl: example "acmectl web": subcommand "", want "web"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	// Entries made in Go that name a built-in program are refused too.
	for _, name := range []string{"git", "terraform", "rm", "vim", "python3.12"} {
		p := &programs.Program{Name: name, Names: []string{name}}
		_, err := engine.New(context.Background(), engine.TeamPrograms(rules.TeamProgram{Program: p, Style: rules.StyleNone, File: "go", Line: 1}))
		if err == nil || !strings.Contains(err.Error(), "rivumi knows this program already") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestTeamProgramsHash: the policy hash covers the descriptions, so no
// verdict cache serves one configuration's verdict to another.
func TestTeamProgramsHash(t *testing.T) {
	base := defaultEngine(t).PolicyHash()
	a := teamEngine(t, acmeTeam).PolicyHash()
	a2 := teamEngine(t, acmeTeam).PolicyHash()
	b := teamEngine(t, strings.Replace(acmeTeam, "network: true", "network: false", 1)).PolicyHash()
	c := teamEngine(t, strings.Replace(acmeTeam, `options: "env= force"`, `options: "env force"`, 1)).PolicyHash()
	if a != a2 || a == base || a == b || a == c || b == c {
		t.Errorf("hashes: base %s, a %s %s, b %s, c %s", base, a, a2, b, c)
	}
}

// TestTeamProgramsPerEngine grades with two configurations at once (run
// with -race): each engine reads its own descriptions, and a command
// graded by one is never answered from the other's cache.
func TestTeamProgramsPerEngine(t *testing.T) {
	a := teamEngine(t, acmeTeam)
	b := teamEngine(t, `programs:
  acmectl:
    option_style: none
    examples: [{command: acmectl deploy -force, operands: [deploy, -force]}]
`)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, want := a, engine.Deny
			if i%2 == 1 {
				e, want = b, engine.Ask
			}
			for range 50 {
				if v := e.EvaluateText(ctx, "acmectl deploy -force web"); v.Decision != want {
					t.Errorf("engine %d: %s %v, want %s", i%2, v.Decision, reasonIDs(v), want)
					return
				}
				if v := e.EvaluateText(ctx, "acmectl deploy web"); (i%2 == 0) != strings.Contains(fmt.Sprint(reasonIDs(v)), "network.access") {
					t.Errorf("engine %d: network %v", i%2, reasonIDs(v))
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestTeamProgramsNeverLower is the safety invariant of team programs. An
// entry naming a built-in program does not load (above); so the verdict
// of every testcase under descriptions of every other program the
// testcases run — each described in the most different ways a team can
// (no options at all; every letter and word a value-taking option; runs
// anything, network, a project file) — is never below its verdict
// without them.
func TestTeamProgramsNeverLower(t *testing.T) {
	if testing.Short() {
		t.Skip("grades every testcase three times")
	}
	cases, err := rules.LoadTestcases("../testcases")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tc := range cases {
		cmd, _ := parser.Parse(tc.Command)
		if cmd == nil {
			continue
		}
		for _, s := range cmd.Segments {
			if n := s.Program; n != "" && n == strings.ToLower(n) && !strings.ContainsAny(n, "/ \t\n\"'$`\\") && rules.TeamProgramNameFree(n) {
				names[n] = true
			}
		}
	}
	if len(names) < 20 {
		t.Fatalf("only %d unknown programs in the testcases", len(names))
	}
	var letters []string
	for c := 'a'; c <= 'z'; c++ {
		letters = append(letters, string(c)+"=", strings.ToUpper(string(c))+"=")
	}
	valueAll := strings.Join(letters, " ") + " force= f= r= recursive= output= o= config= file= exec= c= e= command="
	variants := map[string]func(n string) rules.TeamProgram{
		"none": func(n string) rules.TeamProgram {
			return rules.TeamProgram{Program: &programs.Program{Name: n, Names: []string{n}, Subcommands: true}, Style: rules.StyleNone}
		},
		"values": func(n string) rules.TeamProgram {
			return rules.TeamProgram{Program: &programs.Program{Name: n, Names: []string{n}, Options: valueAll, InOrder: true,
				RunsAnything: true, Network: true, Loads: []string{"team.conf"}}, Style: rules.StyleSingleDashLong}
		},
	}
	plain := defaultEngine(t)
	ctx := context.Background()
	for vname, mk := range variants {
		var tp []rules.TeamProgram
		for n := range names {
			e := mk(n)
			e.File, e.Line = "invariant", 1
			tp = append(tp, e)
		}
		e, err := engine.New(ctx, engine.TeamPrograms(tp...))
		if err != nil {
			t.Fatal(err)
		}
		lowered := 0
		for _, tc := range cases {
			before := plain.EvaluateText(ctx, tc.Command, caseOptions(tc)...)
			after := e.EvaluateText(ctx, tc.Command, caseOptions(tc)...)
			if after.Decision < before.Decision {
				lowered++
				t.Errorf("%s: %s: %q: %s %v with the team's programs, %s %v without", vname, tc.Name(), tc.Command,
					after.Decision, reasonIDs(after), before.Decision, reasonIDs(before))
			}
		}
		t.Logf("%s: %d programs described, %d testcases, %d lowered", vname, len(names), len(cases), lowered)
	}
}
