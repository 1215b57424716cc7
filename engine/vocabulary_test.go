package engine_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// constants collects the string values of the constants named prefix* in
// a Go source file.
func constants(t *testing.T, file, prefix string) map[string]bool {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s*`+prefix+`[A-Za-z]*\s*=\s*"([^"]+)"`).FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = true
	}
	if len(out) < 10 {
		t.Fatalf("only %d %s constants in %s", len(out), prefix, file)
	}
	return out
}

// TestRegoVocabularyExists: every tag and path class the built-in packs and
// their data test for is one the parser produces (a misspelt tag would
// make a rule silently dead).
func TestRegoVocabularyExists(t *testing.T) {
	tags := constants(t, "../parser/command.go", "Tag")
	classes := constants(t, "../parser/paths.go", "Class")
	classes["workspace-subdir"] = true // git -C into a workspace subdirectory (parser/args.go)
	uses := map[string]*regexp.Regexp{
		"tag":   regexp.MustCompile(`"([a-z0-9-]+)" in input\.segment\.tags`),
		"class": regexp.MustCompile(`"([a-z0-9-]+)" in input\.segment\.(?:write|read)_classes`),
	}
	var bad []string
	files, _ := filepath.Glob("../policies/*/*.rego")
	more, _ := filepath.Glob("../policies/*.rego")
	for _, f := range append(files, more...) {
		if strings.HasSuffix(f, "_test.rego") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for kind, re := range uses {
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				if kind == "tag" && !tags[m[1]] || kind == "class" && !classes[m[1]] {
					bad = append(bad, f+": "+kind+" "+m[1])
				}
			}
		}
	}
	b, err := os.ReadFile("../policies/tables/tables.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rivumi struct {
			Tables struct {
				Sets map[string]map[string]bool `json:"sets"`
			} `json:"tables"`
		} `json:"rivumi"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for name, set := range doc.Rivumi.Tables.Sets {
		for v := range set {
			if strings.HasSuffix(name, "_tags") && !tags[v] || strings.HasSuffix(name, "_classes") && !classes[v] {
				bad = append(bad, "tables.json sets."+name+": "+v)
			}
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("tags or classes the parser never produces:\n%s", strings.Join(bad, "\n"))
	}
}
