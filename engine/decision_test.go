package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/rivumi/rivumi/engine"
)

// TestZeroDecisionIsNotADecision: a verdict decoded from {} (or any JSON
// without a decision) carries no decision, and every check treats it as
// deny (issue 12).
func TestZeroDecisionIsNotADecision(t *testing.T) {
	var v engine.Verdict
	if err := json.Unmarshal([]byte(`{}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.Decision.Valid() || v.Decision == engine.Allow {
		t.Fatalf("{} decoded to a decision: %v", v.Decision)
	}
	if v.Decision.OrDeny() != engine.Deny || engine.Decision(9).OrDeny() != engine.Deny {
		t.Error("OrDeny of a missing or unknown decision is not deny")
	}
	for _, d := range []engine.Decision{engine.Allow, engine.Ask, engine.Deny} {
		if !d.Valid() || d.OrDeny() != d {
			t.Errorf("%v: Valid %v, OrDeny %v", d, d.Valid(), d.OrDeny())
		}
	}
	if engine.Max(0, engine.Allow) != engine.Allow || engine.Max(engine.Ask, engine.Deny) != engine.Deny {
		t.Error("Max")
	}
	var d engine.Decision
	for _, bad := range []string{`{"decision": ""}`, `{"decision": "none"}`, `{"decision": "ALLOW"}`, `{"decision": "yes"}`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s decoded without error to %v", bad, v.Decision)
		}
	}
	b, _ := json.Marshal(struct {
		D engine.Decision `json:"d"`
	}{d})
	if string(b) != `{"d":"none"}` {
		t.Errorf("zero decision marshals as %s", b)
	}
}
