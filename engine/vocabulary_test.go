package engine_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// schemaEnums returns the enumerations of tags and path classes in
// input.schema.json (x-enum of segment.tags, enum of a "class").
func schemaEnums(t *testing.T) (tags, classes map[string]bool) {
	var doc struct {
		Properties struct {
			Segment struct {
				Properties struct {
					Tags struct {
						XEnum []string `json:"x-enum"`
					} `json:"tags"`
					Operands struct {
						Items struct {
							Properties struct {
								Class struct {
									Enum []string `json:"enum"`
								} `json:"class"`
							} `json:"properties"`
						} `json:"items"`
					} `json:"operands"`
				} `json:"properties"`
			} `json:"segment"`
		} `json:"properties"`
	}
	b, err := os.ReadFile("input.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	tags, classes = map[string]bool{}, map[string]bool{}
	for _, x := range doc.Properties.Segment.Properties.Tags.XEnum {
		tags[x] = true
	}
	for _, x := range doc.Properties.Segment.Properties.Operands.Items.Properties.Class.Enum {
		classes[x] = true
	}
	if len(tags) < 10 || len(classes) < 10 {
		t.Fatalf("input.schema.json enumerates %d tags and %d classes", len(tags), len(classes))
	}
	return tags, classes
}

// regoSources returns every Rego text rivumi ships or documents: the
// built-in packs and their tests, the OPA entry points, the user packs of
// the CLI's testscripts and the ```rego blocks of docs/*.md.
func regoSources(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, glob := range []string{"../policies/*.rego", "../policies/*/*.rego", "../opabuiltin/*.rego"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[f] = string(b)
		}
	}
	txtars, _ := filepath.Glob("../internal/cli/testdata/script/*.txtar")
	for _, f := range txtars {
		b, _ := os.ReadFile(f)
		for i, part := range strings.Split(string(b), "\n-- ") {
			name, body, _ := strings.Cut(part, "\n")
			if strings.HasSuffix(strings.TrimSuffix(name, " --"), ".rego") {
				out[fmt.Sprintf("%s#%d", f, i)] = body
			}
		}
	}
	docs, _ := filepath.Glob("../docs/*.md")
	for _, f := range docs {
		b, _ := os.ReadFile(f)
		for i, part := range strings.Split(string(b), "```rego\n")[1:] {
			body, _, _ := strings.Cut(part, "```")
			out[fmt.Sprintf("%s#%d", f, i+1)] = body
		}
	}
	return out
}

// TestRegoVocabularyExists: every tag and path class a Rego text tests
// (the built-in packs, their tests and fixtures, the OPA entry points, the
// documented and testscript user packs) and every set in tables.json is one
// input.schema.json enumerates, which the parser produces
// (TestVocabularyCurrent): a misspelt tag would make a rule silently dead.
func TestRegoVocabularyExists(t *testing.T) {
	tags, classes := schemaEnums(t)
	classes["workspace-subdir"] = true // options["git-dir-class"]: git -C into a workspace subdirectory (parser/args.go)
	uses := map[string]*regexp.Regexp{
		"tag":   regexp.MustCompile(`"([a-z0-9-]+)" in input\.segment\.tags|tagged\("([a-z0-9-]+)"\)`),
		"class": regexp.MustCompile(`"([a-z0-9-]+)" in input\.segment\.(?:write|read)_classes|\.class == "([a-z0-9-]+)"|fx\.path\("[^"]*", "([a-z0-9-]+)"\)|fx\.redirect\("[^"]*", "[^"]*", "([a-z0-9-]+)"\)`),
	}
	sets := map[string]*regexp.Regexp{
		"tag":   regexp.MustCompile(`"tags": \{([^}]*)\}`),
		"class": regexp.MustCompile(`(?:\.class in|_classes ==|_classes &|_classes :=) \{([^}]*)\}`),
	}
	word := regexp.MustCompile(`"([^"]+)"`)
	var bad []string
	check := func(where, kind, v string) {
		if kind == "tag" && !tags[v] || kind == "class" && !classes[v] {
			bad = append(bad, where+": "+kind+" "+v)
		}
	}
	n := 0
	for f, text := range regoSources(t) {
		for kind, re := range uses {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				for _, v := range m[1:] {
					if v != "" {
						check(f, kind, v)
						n++
					}
				}
			}
		}
		for kind, re := range sets {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				for _, w := range word.FindAllStringSubmatch(m[1], -1) {
					check(f, kind, w[1])
					n++
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
			switch {
			case strings.HasSuffix(name, "_tags"):
				check("tables.json sets."+name, "tag", v)
			case strings.HasSuffix(name, "_classes"):
				check("tables.json sets."+name, "class", v)
			default:
				bad = append(bad, "tables.json sets."+name+": neither _tags nor _classes")
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d tag and class uses found: the patterns are stale", n)
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("tags or classes the input schema does not enumerate:\n%s", strings.Join(bad, "\n"))
	}
}
