package native

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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
	Needs      Set  `json:"needs"`
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

// DecodeTables decodes data.rivumi.tables from data files (each a JSON
// document {"rivumi": {"tables": {…}}}, as policies/tables/*.json; later
// files add to earlier ones). A table or field the Go rules do not know is
// an error: a rule reading it would otherwise see nothing.
func DecodeTables(files ...[]byte) (*Tables, error) {
	var t Tables
	for _, b := range files {
		var doc struct {
			Rivumi struct {
				Tables json.RawMessage `json:"tables"`
			} `json:"rivumi"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("data: %v", err)
		}
		if doc.Rivumi.Tables == nil {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(doc.Rivumi.Tables))
		d.DisallowUnknownFields()
		if err := d.Decode(&t); err != nil {
			return nil, fmt.Errorf("data.rivumi.tables: %v", err)
		}
	}
	return &t, nil
}

// Digest identifies data files (their bytes, in order).
func Digest(files ...[]byte) string {
	h := sha256.New()
	for _, b := range files {
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// LoadTables is DecodeTables of files, taken from the generated tables
// (zz_generated_tables.go) when the files are the ones they were generated from.
func LoadTables(files ...[]byte) (*Tables, error) {
	if Digest(files...) == generatedDigest {
		return generatedTables(), nil
	}
	return DecodeTables(files...)
}
