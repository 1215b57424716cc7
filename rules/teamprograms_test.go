package rules

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/programs"
)

const goodTeamFile = `programs:
  acmectl:
    names: [acmectl, acme]
    option_style: single-dash-long
    options: "env= force c|config="
    subcommands:
      deploy: {options: "env= force hook="}
      status: {}
    shell_options: [hook]
    runs_anything: true
    network: true
    project_files: [acme.star, conf/acme.d/init.star]
    examples:
      - command: acmectl deploy -env=prod -force web
        subcommand: deploy
        flags: [env, force]
        options: {env: prod}
        operands: [web]
  tidyctl:
    option_style: none
    examples:
      - {command: tidyctl -rf /, operands: [-rf, /], flags: []}
`

func TestParseTeamPrograms(t *testing.T) {
	_, tp, err := ParseRuleFile("team.yaml", []byte(goodTeamFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(tp) != 2 {
		t.Fatalf("got %d entries, want 2", len(tp))
	}
	a := tp[0]
	if a.Program.Name != "acmectl" || a.Line != 2 || a.Style != StyleSingleDashLong || !a.Program.SingleDashLong ||
		!a.Program.Subcommands || !a.Program.Network || !a.Program.RunsAnything || !a.Program.LoadsOnVersion {
		t.Errorf("acmectl: %+v", a.Program)
	}
	ex := a.Examples[0]
	if ex.Line != 14 || *ex.Subcommand != "deploy" || !ex.HasFlags || ex.Options["env"][0] != "prod" || ex.Operands[0] != "web" {
		t.Errorf("example: %+v", ex)
	}
	team, ps := NewTeamPrograms(tp)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	if team.Lookup("acme") == nil || team.Lookup("git") != nil || !team.RunsAnything("ACMECTL.exe") || team.RunsAnything("tidyctl") {
		t.Error("lookups")
	}
	if s := team.Spec("acmectl"); s == nil || !s.SingleDashLong || s.Long["config"].Arg != ArgRequired || s.Short['c'].Canon != "config" {
		t.Errorf("spec: %+v", s)
	}
	if s := team.Spec("acme deploy"); s == nil || s.Long["hook"].Arg != ArgRequired {
		t.Errorf("sub spec: %+v", s)
	}
	if !team.Spec("tidyctl").Bare() || team.Spec("acmectl").Bare() {
		t.Error("option_style none is Bare, the others not")
	}
	for path, want := range map[string]bool{
		"/w/acme.star": true, "ACME.STAR": true, "/w/conf/acme.d/init.star": true, "conf/acme.d/init.star": true,
		"/w/init.star": false, "/w/acme.star.bak": false, "/w/xconf/acme.d/init.star": false,
	} {
		if got := team.IsProjectCode(path); got != want {
			t.Errorf("IsProjectCode(%q) = %v, want %v", path, got, want)
		}
	}
	var nilTeam *TeamPrograms
	if nilTeam.Lookup("acmectl") != nil || nilTeam.Spec("acmectl") != nil || nilTeam.IsProjectCode("acme.star") || nilTeam.RegoData() != nil {
		t.Error("a nil TeamPrograms knows nothing")
	}
	tables := team.RegoData()["rivumi"].(map[string]any)["tables"].(map[string]any)
	if tables["network"].(map[string]any)["acme"] != true || tables["programs"].(map[string]any)["runs_anything"].(map[string]any)["acmectl"] != true {
		t.Errorf("Rego tables: %v", tables)
	}
}

func TestParseTeamProgramsErrors(t *testing.T) {
	ex := "    examples: [{command: x}]\n"
	for _, tc := range []struct{ name, doc, want string }{
		{"typo'd key", "programs:\n  acmectl:\n    option_styel: gnu\n" + ex, `team.yaml:3: program acmectl: unknown key "option_styel" (did you mean "option_style"?)`},
		{"typo'd top key", "program:\n  acmectl: {}\n", `team.yaml:1: unknown key "program" (did you mean "programs"?)`},
		{"typo'd example key", "programs:\n  acmectl:\n    examples:\n      - {command: acmectl, operand: [x]}\n", `team.yaml:4: program acmectl: example: unknown key "operand" (did you mean "operands"?)`},
		{"built-in", "programs:\n  terraform:\n" + ex, `team.yaml:2: program terraform: name "terraform": rivumi knows this program already`},
		{"built-in alias", "programs:\n  acmectl: {names: [acmectl, python3.12]}\n", `name "python3.12": rivumi knows this program already`},
		{"named by the parser", "programs:\n  vim:\n" + ex, `name "vim": rivumi knows this program already`},
		{"a policy's prefix", "programs:\n  mkfs.zfs:\n" + ex, `name "mkfs.zfs": rivumi knows this program already`},
		{"upper case", "programs:\n  AcmeCtl:\n" + ex, `name "AcmeCtl": a program's base name, in lower case`},
		{"style", "programs:\n  acmectl:\n    option_style: posix\n" + ex, `team.yaml:3: program acmectl: option_style "posix": want gnu, single-dash-long or none`},
		{"none with options", "programs:\n  acmectl:\n    option_style: none\n    options: x\n" + ex, `option_style none takes no options`},
		{"dashes", "programs:\n  acmectl:\n    options: --force\n" + ex, `options: write "--force" without its dashes`},
		{"code option without value", "programs:\n  acmectl:\n    options: hook\n    shell_options: [hook]\n    runs_anything: true\n" + ex, `code option "hook" is not a value-taking option of options`},
		{"shell option not runs_anything", "programs:\n  acmectl:\n    options: hook=\n    shell_options: [hook]\n" + ex, `runs what it is handed (runs_anything: true)`},
		{"language", "programs:\n  acmectl:\n    options: e=\n    language: python\n    runs_anything: true\n" + ex, `language without code_options`},
		{"project file", "programs:\n  acmectl:\n    project_files: [../x]\n" + ex, `project file "../x": a path relative to the project root`},
		{"no examples", "programs:\n  acmectl: {network: true}\n", `team.yaml:2: program acmectl: no examples`},
		{"bool", "programs:\n  acmectl:\n    network: yes please\n" + ex, `team.yaml:3: program acmectl: network: want true or false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParseRuleFile("team.yaml", []byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v lacks %q", err, tc.want)
			}
		})
	}
}

// TestTeamProgramsRefuseBuiltins is the invariant behind "a team entry
// never lowers a built-in verdict": no name of the registry, in any
// spelling it answers to, can be described by a team, whether the entry
// comes from YAML or is made in Go.
func TestTeamProgramsRefuseBuiltins(t *testing.T) {
	for _, p := range programs.All() {
		for _, n := range append([]string{strings.ToUpper(p.Name[:1]) + p.Name[1:] + ".exe"}, p.Names...) {
			if TeamProgramNameFree(strings.ToLower(n)) && programs.Lookup(strings.ToLower(n)) != nil {
				t.Errorf("%s (%s) is free", n, p.Name)
			}
		}
		for _, n := range p.Names {
			if TeamProgramNameFree(n) {
				t.Errorf("%s is free", n)
			}
			if p.Versioned && TeamProgramNameFree(n+"3.12") {
				t.Errorf("%s3.12 is free", n)
			}
			team, ps := NewTeamPrograms([]TeamProgram{{Program: &programs.Program{Name: n, Names: []string{n}}, File: "go", Line: 1}})
			if len(ps) == 0 || team.Lookup(n) != nil {
				t.Errorf("NewTeamPrograms took %s: %v", n, ps)
			}
		}
	}
}

// TestTeamProgramsExposeOnly: an entry made in Go keeps only the facts
// the YAML offers (a readonly or kinds field would reach the allow layer).
func TestTeamProgramsExposeOnly(t *testing.T) {
	all := "*"
	team, ps := NewTeamPrograms([]TeamProgram{{Program: &programs.Program{Name: "acmectl", Names: []string{"acmectl"},
		Readonly: &all, Kinds: []string{"deletes_named"}, Shell: true, WrapperOptions: &all}, Style: StyleGNU}})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	p := team.Lookup("acmectl")
	if p.Readonly != nil || p.Kinds != nil || p.Shell || p.WrapperOptions != nil {
		t.Errorf("kept %+v", p)
	}
	if _, ok := team.RegoData()["rivumi"].(map[string]any)["tables"].(map[string]any)["readonly"]; ok {
		t.Error("a readonly table")
	}
}

// TestBuiltinNamed reads the program names the parser and the policies
// compare with in their sources: each must be one a team cannot describe.
func TestBuiltinNamed(t *testing.T) {
	res := []*regexp.Regexp{
		regexp.MustCompile(`(?:prog|Program|name) == "([a-z][a-z0-9_-]+)"`),
		regexp.MustCompile(`"([a-z][a-z0-9_-]+)" == input\.segment\.program`),
		regexp.MustCompile(`program == "([a-z][a-z0-9_-]+)"`),
	}
	prefixRes := []*regexp.Regexp{
		regexp.MustCompile(`startswith\(input\.segment\.program, "([a-z][a-z0-9_.-]*)"\)`),
		regexp.MustCompile(`strings\.HasPrefix\((?:s|seg)\.Program, "([a-z][a-z0-9_.-]*)"\)`),
	}
	caseRe := regexp.MustCompile(`case ("[a-z0-9._-]+"(?:, "[a-z0-9._-]+")*):`)
	word := regexp.MustCompile(`^[a-z][a-z0-9_-]+$`)
	check := func(file, n string) {
		if word.MatchString(n) && TeamProgramNameFree(n) {
			t.Errorf("%s: %q is compared with by name but a team may describe it: add it to builtinNamed", file, n)
		}
	}
	files, _ := filepath.Glob("../parser/*.go")
	native, _ := filepath.Glob("../policies/native/*.go")
	files = append(files, native...)
	_ = filepath.WalkDir("../policies", func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".rego") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) < 20 {
		t.Fatalf("found %d source files", len(files))
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "_test.rego") {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range res {
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				check(path, m[1])
			}
		}
		for _, re := range prefixRes {
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				if TeamProgramNameFree(m[1] + ".team") {
					t.Errorf("%s: programs are matched by the prefix %q but a team may describe %s.team: add it to builtinPrefixes", path, m[1], m[1])
				}
			}
		}
		if strings.HasSuffix(path, ".go") {
			for _, m := range caseRe.FindAllStringSubmatch(string(b), -1) {
				for _, n := range strings.Split(m[1], ", ") {
					check(path, strings.Trim(n, `"`))
				}
			}
		}
	}
}
