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
	"opabuiltin/builtin.go: bash sh zsh": "dialect names",
	"parser/parse.go: bash sh zsh":       "dialect names",
	"server/api.go: bash sh zsh":         "dialect names",
	// Language words looked for inside vim commands (:py, :lua …).
	"parser/code.go: lua perl py ruby": "vim command words",
}

// TestNoProgramSetsElsewhere fails when a line of Go, Rego or Python outside
// the registry names three or more of its shells and interpreters: a program
// set written somewhere else, which can drift from the registry.
func TestNoProgramSetsElsewhere(t *testing.T) {
	code := map[string]bool{}
	for _, n := range programs.Names(func(p *programs.Program) bool { return p.HasCode() }) {
		code[n] = true
	}
	var found []string
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
		if ext != ".go" && ext != ".rego" && ext != ".py" || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "_test.rego") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			seen := map[string]bool{}
			for _, m := range quoted.FindAllStringSubmatch(line, -1) {
				if code[m[1]] {
					seen[m[1]] = true
				}
			}
			if len(seen) >= 3 {
				rel := strings.TrimPrefix(filepath.ToSlash(path), "../")
				names := make([]string, 0, len(seen))
				for n := range seen {
					names = append(names, n)
				}
				sort.Strings(names)
				if _, ok := legacySets[rel+": "+strings.Join(names, " ")]; !ok {
					found = append(found, rel+":"+itoa(i+1)+": "+strings.Join(names, " "))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
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
