package engine_test

import (
	"context"
	"slices"
	"sort"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/rules"
)

// TestFloorNearMisses holds the floor to certainty: every built-in floor
// rule (enumerated from the compiled packs' METADATA, so a new one counts
// from the day it is written) has, in testcases/floorx.yaml, a command it
// denies (decision deny, naming the rule) and a near miss that looks like it
// but is not certain (decision ask or allow, with the rule in not_rules),
// and no floor rule fires on any near miss there.
// TestTestcases runs the cases themselves.
func TestFloorNearMisses(t *testing.T) {
	e := defaultEngine(t)
	cases, err := rules.LoadTestcases("../testcases/floorx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for id, m := range e.Rules() {
		if m.Layer == engine.LayerFloor && !m.User {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	if len(ids) < 10 {
		t.Fatalf("only %d floor rules found: %v", len(ids), ids)
	}
	for _, id := range ids {
		var certain, near bool
		for _, tc := range cases {
			switch {
			case tc.Decision == "deny" && slices.Contains(tc.Rules, id):
				certain = true
			case tc.Decision != "deny" && slices.Contains(tc.NotRules, id):
				near = true
			}
		}
		if !certain {
			t.Errorf("floor rule %s: no certain case (decision deny, rules [%s]) in testcases/floorx.yaml", id, id)
		}
		if !near {
			t.Errorf("floor rule %s: no near miss (decision ask or allow, not_rules [%s]) in testcases/floorx.yaml", id, id)
		}
	}
	// A near miss is not the floor at all: no floor rule may fire on it
	// (data that holds a floor shape, issue 33 item 9, among them).
	for _, tc := range cases {
		if tc.Decision == "deny" {
			continue
		}
		v := e.EvaluateText(context.Background(), tc.Command, caseOptions(tc)...)
		for _, r := range v.Reasons {
			if r.Layer == engine.LayerFloor {
				t.Errorf("%s: %q: floor rule %s fires on a near miss", tc.Name(), tc.Command, r.Rule)
			}
		}
	}
}
