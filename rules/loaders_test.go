package rules_test

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/rivumi/rivumi/rules"
)

// TestProjectLoadersMatchTables: the Rego data (policies/tables/tables.json,
// from scripts/gen-tables.py) and the Go table of programs that load project
// code are one list.
func TestProjectLoadersMatchTables(t *testing.T) {
	b, err := os.ReadFile("../policies/tables/tables.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rivumi struct {
			Tables struct {
				ProjectLoaders map[string][]string `json:"project_loaders"`
			} `json:"tables"`
		} `json:"rivumi"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Rivumi.Tables.ProjectLoaders; !reflect.DeepEqual(got, rules.ProjectLoaders()) {
		t.Errorf("tables.json project_loaders = %v\nrules.ProjectLoaders() = %v", got, rules.ProjectLoaders())
	}
}

func TestIsProjectCode(t *testing.T) {
	for path, want := range map[string]bool{
		"conftest.py": true, "tests/conftest.py": true, "/work/p/.mvn/jvm.config": true, ".cargo/config.toml": true,
		"rust-toolchain.toml": true, "RUST-TOOLCHAIN": true, "jvm.config": false, "test_conftest.py": false,
		"src/main.rs": false, "cargo/config.toml": false,
	} {
		if got := rules.IsProjectCode(path); got != want {
			t.Errorf("IsProjectCode(%q) = %v, want %v", path, got, want)
		}
	}
}
