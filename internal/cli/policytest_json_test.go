package cli

import (
	"encoding/json"
	"testing"
)

func TestJSONReport(t *testing.T) {
	out := render(t, jsonReporter{}, sampleReport())
	golden(t, "json.golden", out)
	var doc struct {
		Passed, Failed, Skipped int
		Cases                   []struct {
			Passed   bool
			Problems []string
		}
		Coverage struct {
			RulePercent float64 `json:"rule_percent"`
		}
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Passed != 2 || doc.Failed != 2 || doc.Skipped != 1 || len(doc.Cases) != 2 || doc.Cases[1].Passed || doc.Coverage.RulePercent != 50 {
		t.Errorf("decoded %+v", doc)
	}
}
