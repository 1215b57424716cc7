package programs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/programs"
)

// quoted finds "word" tokens.
var quoted = regexp.MustCompile(`"([a-z][a-z0-9.+_-]*)"`)

// legacySets are the lines ("file: names") that name shells or
// interpreters for another reason, or still keep a table of their own, each
// with why. The list only shrinks: a new set of program names belongs in
// programs.yaml.
var legacySets = map[string]string{
	// The parser's dialects (bash, sh as POSIX, zsh), not program sets.
	"internal/cli/hook.go: bash sh zsh":  "dialect names",
	"hook/adapter.go: bash sh zsh":       "dialect names (an agent shell rivumi cannot know is graded in each)",
	"opabuiltin/builtin.go: bash sh zsh": "dialect names",
	"parser/parse.go: bash sh zsh":       "dialect names",
	// Language words looked for inside vim commands (:py, :lua …).
	"parser/code.go: lua perl py ruby": "vim command words",
}

// legacyTables are Go lines ("file: names") that are tables naming two or
// more registry programs for another reason, or that still keep a table of
// their own, each with why. The list only shrinks.
var legacyTables = map[string]string{
	// Not programs: words that are also program names.
	"codescan/lex.go: grep join":                                "perl builtin functions",
	"codescan/scan.go: eval exec":                               "interpreter functions that run commands",
	"codescan/scan.go: chmod chown cp install ln mv rm":         "python/node function names that touch files",
	"hook/install.go: command type":                             "hook configuration keys",
	"hook/codex.go: command timeout type":                       "hook configuration keys",
	"workspace/tools/shell.go: : [ echo false printf test true": "builtins the shell tool runs in process",
	"workspace/tools/shell.go: cd exit pwd":                     "builtins the shell tool runs in process",
	"parser/parse.go: bash sh zsh":                              "the parser's dialects",
	"hook/adapter.go: bash sh zsh":                              "the parser's dialects",
	// Programs that act on a link itself (data flow, merged from the flow
	// work): next to move, as a kind.
	"parser/provenance.go: ln mv rm rmdir unlink": "legacy: programs that act on a link, not its target",
	// Shell builtin categories of static evaluation (parser/eval_effects.go,
	// just merged from the evalx work): next to move, as kinds.
	"parser/eval_effects.go: . : eval exec exit":                 "legacy: POSIX special builtins",
	"parser/eval_effects.go: export return set shift":            "legacy: POSIX special builtins",
	"parser/eval_effects.go: trap unset":                         "legacy: POSIX special builtins",
	"parser/eval_effects.go: . eval source":                      "legacy: builtins that change variables",
	"parser/eval_effects.go: getopts mapfile readarray set wait": "legacy: builtins that change variables",
	"parser/eval_effects.go: declare export let local typeset":   "legacy: builtins that change variables",
	"parser/eval_effects.go: builtin command exec shopt trap":    "legacy: builtins that change variables",
	"parser/code.go: false true":                                 "git's boolean words",
	// Just merged from the friction work: next to move, as kinds.
	"parser/listing.go: cat egrep fgrep grep head ls stat tail": "legacy: programs whose listed operands may be split",
	"parser/parse.go: find tree":                                "legacy: metadata readers",
	// Just merged from the floor-certainty work (codescan/certain.go): next to move.
	"codescan/certain.go: bash sh":          "legacy: shells of certain interpreter code",
	"codescan/certain.go: export let local": "legacy: builtins of certain interpreter code",
	"codescan/certain.go: rmdir unlink":     "legacy: deleters of certain interpreter code",
	// The raw-text floor scan's own tables (codescan/floor.go, being
	// reworked by the floor-certainty work): next to move.
	"codescan/floor.go: command doas env exec nohup sudo":         "legacy: floor scan wrappers",
	"codescan/floor.go: builtin ionice nice stdbuf timeout xargs": "legacy: floor scan wrappers",
	"codescan/floor.go: setsid time unbuffer":                     "legacy: floor scan wrappers",
}

var (
	goKey     = regexp.MustCompile(`"([^"\\]+)"\s*:`)
	anyQuoted = regexp.MustCompile(`"([^"\\]+)"`)
	regoIDHit = regexp.MustCompile(`\{"id":\s*"[^"]*"\}`)
)

// TestNoProgramSetsElsewhere fails when a program set is written outside
// the registry (programs.yaml and its generated forms): a line of Go, Rego
// or Python that names three or more of its shells and interpreters; a Rego
// line (rules, not tests) with two or more registry program names (a rule
// needing a set tests a kind: data.rivumi.tables.kinds.KIND, see
// programs.Kinds), unless it compares subcommands or path classes; a Go
// table line (map keys, or a []string literal) with two or more.
func TestNoProgramSetsElsewhere(t *testing.T) {
	code, all := map[string]bool{}, map[string]bool{}
	for _, n := range programs.Names(func(p *programs.Program) bool { return p.HasCode() }) {
		code[n] = true
	}
	for _, n := range programs.Names(func(*programs.Program) bool { return true }) {
		all[n] = true
	}
	names := func(re *regexp.Regexp, line string, set map[string]bool) []string {
		seen := map[string]bool{}
		for _, m := range re.FindAllStringSubmatch(line, -1) {
			if set[m[1]] {
				seen[m[1]] = true
			}
		}
		out := make([]string, 0, len(seen))
		for n := range seen {
			out = append(out, n)
		}
		sort.Strings(out)
		return out
	}
	var found []string
	used := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "testcases", "programs", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if ext != ".go" && ext != ".rego" && ext != ".py" || strings.HasSuffix(path, "_test.go") ||
			strings.HasSuffix(path, "_test.rego") || strings.HasPrefix(d.Name(), "zz_generated") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(filepath.ToSlash(path), "../")
		for i, line := range strings.Split(string(b), "\n") {
			trim := strings.TrimSpace(line)
			if strings.HasPrefix(trim, "//") || strings.HasPrefix(trim, "#") {
				continue
			}
			if j := strings.Index(line, " // "); j >= 0 && ext == ".go" {
				line = line[:j]
			}
			at := rel + ":" + itoa(i+1) + ": "
			if ns := names(quoted, line, code); len(ns) >= 3 {
				used[rel+": "+strings.Join(ns, " ")] = true
				if _, ok := legacySets[rel+": "+strings.Join(ns, " ")]; !ok {
					found = append(found, at+strings.Join(ns, " "))
					continue
				}
			}
			switch ext {
			case ".rego":
				l := regoIDHit.ReplaceAllString(line, "")
				if strings.Contains(l, "subcommand") || strings.Contains(l, "class") {
					continue
				}
				if ns := names(anyQuoted, l, all); len(ns) >= 2 {
					found = append(found, at+"Rego set "+strings.Join(ns, " ")+" (use a registry kind)")
				}
			case ".go":
				if strings.HasPrefix(trim, "case ") || strings.Contains(line, "==") {
					continue // code deciding by program, not a table
				}
				var ns []string
				if strings.Contains(line, "[]string{") {
					ns = names(anyQuoted, line, all)
				} else {
					ns = names(goKey, line, all)
				}
				if len(ns) >= 2 {
					used[rel+": "+strings.Join(ns, " ")] = true
					if _, ok := legacyTables[rel+": "+strings.Join(ns, " ")]; !ok {
						found = append(found, at+"Go table "+strings.Join(ns, " "))
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, legacy := range []map[string]string{legacySets, legacyTables} {
		for k := range legacy {
			if !used[k] {
				found = append(found, k+": a legacy entry that no longer matches (remove it)")
			}
		}
	}
	if len(found) > 0 {
		t.Errorf("program sets outside programs/programs.yaml (derive them from the registry):\n%s", strings.Join(found, "\n"))
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
