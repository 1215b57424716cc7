package native

import (
	"encoding/json"
	"fmt"
)

// Tables is data.rivumi.tables (policies/tables/*.json) as Go values. The
// field names are the JSON keys the Rego reads.
type Tables struct {
	GitListFlags     map[string][]string   `json:"git_list_flags"`
	GitListWords     map[string][]string   `json:"git_list_words"`
	GitNeedsWord     map[string]bool       `json:"git_needs_word"`
	GitReadonly      map[string]*Spec      `json:"git_readonly"`
	Kinds            map[string]Set        `json:"kinds"`
	Network          Set                   `json:"network"`
	OpsTools         Set                   `json:"ops_tools"`
	PackageManagers  map[string][]string   `json:"package_managers"`
	Programs         map[string]Set        `json:"programs"`
	ProjectLoaders   map[string][]string   `json:"project_loaders"`
	Readonly         map[string]*Spec      `json:"readonly"`
	VersionForms     map[string][][]string `json:"version_forms"`
	WorkspaceRunners map[string]Runner     `json:"workspace_runners"`
	Writers          map[string]*Spec      `json:"writers"`
	Sets             map[string]Set        `json:"sets"`
}

// Spec is one program's (or git subcommand's) entry in readonly,
// git_readonly or writers.
type Spec struct {
	Any        bool `json:"any"`
	DynamicOK  bool `json:"dynamic_ok"`
	NoOperands bool `json:"no_operands"`
	Flags      Set  `json:"flags"`
}

// Set is a Rego object of name → true, read as a set.
type Set map[string]bool

// Has reports whether s[k] is true (Rego: s[k], defined and true).
func (s Set) Has(k string) bool { return s[k] }

// Kind reports whether program p is of registry kind k
// (data.rivumi.tables.kinds.K[p]).
func (t *Tables) Kind(k, p string) bool { return t.Kinds[k][p] }

// Program reports whether p is in data.rivumi.tables.programs.K.
func (t *Tables) Program(k, p string) bool { return t.Programs[k][p] }

// InSet reports whether x is in data.rivumi.tables.sets.K.
func (t *Tables) InSet(k, x string) bool { return t.Sets[k][x] }

// knownTables are the keys of data.rivumi.tables that Tables decodes.
var knownTables = map[string]bool{
	"git_list_flags": true, "git_list_words": true, "git_needs_word": true, "git_readonly": true,
	"kinds": true, "network": true, "ops_tools": true, "package_managers": true, "programs": true,
	"project_loaders": true, "readonly": true, "version_forms": true, "workspace_runners": true,
	"writers": true, "sets": true,
}

// NewTables decodes data.rivumi.tables from the whole data document (the
// JSON the engine loads into OPA's store). A table it does not know is an
// error: a rule reading it would otherwise see nothing.
func NewTables(data map[string]any) (*Tables, error) {
	r, _ := data["rivumi"].(map[string]any)
	tabs, _ := r["tables"].(map[string]any)
	if tabs == nil {
		return nil, fmt.Errorf("data.rivumi.tables is missing")
	}
	for k := range tabs {
		if !knownTables[k] {
			return nil, fmt.Errorf("data.rivumi.tables.%s: a table the Go rules do not read (policies/native/tables.go)", k)
		}
	}
	b, err := json.Marshal(tabs)
	if err != nil {
		return nil, err
	}
	var t Tables
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("data.rivumi.tables: %v", err)
	}
	return &t, nil
}

// Runner is a workspace_runners entry: true (the program runs workspace
// code whatever its subcommand) or a list of the subcommands that do.
type Runner struct {
	All  bool     // the entry is true
	Subs []string // the entry is a list (IsList)
	List bool
}

// UnmarshalJSON reads true, false or a list of strings.
func (r *Runner) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &r.All); err == nil {
		return nil
	}
	r.List = true
	return json.Unmarshal(b, &r.Subs)
}
