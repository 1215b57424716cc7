package verdict_test

import (
	"encoding/json"
	"testing"

	"github.com/rivumi/rivumi/verdict"
)

// TestZeroDecisionIsNotADecision: a verdict decoded from {} (or any JSON
// without a decision) carries no decision, and every check treats it as
// deny (issue 12).
func TestZeroDecisionIsNotADecision(t *testing.T) {
	var v verdict.Verdict
	if err := json.Unmarshal([]byte(`{}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.Decision.Valid() || v.Decision == verdict.Allow {
		t.Fatalf("{} decoded to a decision: %v", v.Decision)
	}
	if v.Decision.OrDeny() != verdict.Deny || verdict.Decision(9).OrDeny() != verdict.Deny {
		t.Error("OrDeny of a missing or unknown decision is not deny")
	}
	for _, d := range []verdict.Decision{verdict.Allow, verdict.Ask, verdict.Deny} {
		if !d.Valid() || d.OrDeny() != d {
			t.Errorf("%v: Valid %v, OrDeny %v", d, d.Valid(), d.OrDeny())
		}
	}
	if verdict.Max(0, verdict.Allow) != verdict.Allow || verdict.Max(verdict.Ask, verdict.Deny) != verdict.Deny {
		t.Error("Max")
	}
	var d verdict.Decision
	for _, bad := range []string{`{"decision": ""}`, `{"decision": "none"}`, `{"decision": "ALLOW"}`, `{"decision": "yes"}`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s decoded without error to %v", bad, v.Decision)
		}
	}
	b, _ := json.Marshal(struct {
		D verdict.Decision `json:"d"`
	}{d})
	if string(b) != `{"d":"none"}` {
		t.Errorf("zero decision marshals as %s", b)
	}
}
