package native

import "slices"

// Layer is the rule set a rule adds its hits to.
type Layer int

// The layers, as the Rego sets data.rivumi.rules.floor, deny, ask, allow.
const (
	Floor Layer = iota
	Deny
	Ask
	Allow
	numLayers
)

func (l Layer) String() string { return [...]string{"floor", "deny", "ask", "allow"}[l] }

// Rule is one rule id of a layer: Match holds when any of the Rego rule
// bodies with that id holds for the segment.
type Rule struct {
	ID    string
	Layer Layer
	Match func(s *Seg, t *Tables) bool
}

// All returns every Go rule, file by file.
func All() []Rule {
	return slices.Concat(floorRules, fsRules, gitRules, networkRules, packagesRules, readonlyRules, shellRules)
}

// Rules is the Go rules indexed by layer, with their tables.
type Rules struct {
	t      *Tables
	layers [numLayers][]Rule
}

// New indexes All() over tables t.
func New(t *Tables) *Rules {
	r := &Rules{t: t}
	for _, x := range All() {
		r.layers[x.Layer] = append(r.layers[x.Layer], x)
	}
	return r
}

// Tables returns the tables the rules read.
func (r *Rules) Tables() *Tables { return r.t }

// Hits returns the ids of layer l's rules that hold for s, sorted, each
// once (a Rego set of {"id": …} objects).
func (r *Rules) Hits(l Layer, s *Seg) []string {
	var ids []string
	for _, x := range r.layers[l] {
		if x.Match(s, r.t) && !slices.Contains(ids, x.ID) {
			ids = append(ids, x.ID)
		}
	}
	slices.Sort(ids)
	return ids
}
