package programs_test

import (
	"strings"
	"testing"

	"github.com/rivumi/rivumi/programs"
)

func TestRegistryLoads(t *testing.T) {
	if n := len(programs.All()); n < 150 {
		t.Fatalf("only %d entries", n)
	}
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{
		"python3": "python", "python3.12": "python", "pypy3.10": "python", "ipython3": "ipython",
		"lua5.4": "lua", "luajit": "lua", "php8.2": "php", "php-cgi8.2": "php", "php8.2-cgi": "php",
		"node18": "node", "nodejs": "node", "rscript": "rscript", "pwsh.exe": "pwsh", "bash": "bash",
		"bash5": "", "frobnicate": "", "x264": "", "pip3.11": "",
		"Python3.12.EXE": "python", "PHP8.2-CGI": "php", "node18.": "node", "lua-5.4": "lua", "git status": "",
		"": "", "-": "", "php-cgi": "php", "8.2": "", "x-8": "",
	} {
		got := ""
		if p := programs.Lookup(name); p != nil {
			got = p.Name
		}
		if got != want {
			t.Errorf("Lookup(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for src, want := range map[string]string{
		"programs:\n  a: {langauge: x}\n":                                                         `unknown key "langauge"`,
		"programs:\n  a: {names: [a, b]}\n  c: {names: [c, b]}\n":                                 `name "b" already belongs to a`,
		"programs:\n  a: {language: x, runs_anything: true, code_options: [e], options: \"e\"}\n": `code option "e" is not a value-taking option`,
		"programs:\n  a: {language: x}\n":                                                         "runs_anything: true",
		"programs:\n  a: {language: x, runs_anything: true, code_options: [e]}\n":                 "code_options without options",
		"programs:\n  a: {names: [A]}\n":                                                          "lower case",
		"programs:\n  a: {loads_on_version: true}\n":                                              "loads_on_version without loads",
		"programs:\n  a: {wrapper_options: \"o\"}\n":                                              "a wrapper runs anything",
		"programs:\n  a: {kinds: [nonsense]}\n":                                                   "not one of programs.Kinds",
		"programs:\n  a: {subs: {x: {readonly: \"*\"}}, subcommands: true}\n":                     "read for git only",
		"programs:\n  a: {subs: {x: {installs: true}}}\n":                                         "subs without subcommands",
		"programs:\n  a: {options: \"o\", write_options: [o]}\n":                                  "not a value-taking option",
		"programs:\n  a: {version_forms: {b: [[-v]]}}\n":                                          "not one of its names",
		"programs:\n  a: {subs: {x: {instals: true}}, subcommands: true}\n":                       `unknown key "instals"`,
	} {
		_, err := programs.Parse([]byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", src, err, want)
		}
	}
}

func TestDialects(t *testing.T) {
	if got := strings.Join(programs.Dialects(), " "); got != "bash sh zsh" {
		t.Errorf("Dialects() = %q, want the parser's three", got)
	}
}
