package cli

import (
	"encoding/json"
	"io"

	"github.com/rivumi/rivumi/engine"
)

// jsonReporter writes one JSON document: the counts, every Rego test and
// testcase result, load problems and coverage. Durations are nanoseconds.
type jsonReporter struct{}

type jsonReport struct {
	Passed    int                     `json:"passed"`
	Failed    int                     `json:"failed"`
	Skipped   int                     `json:"skipped"`
	Problems  []string                `json:"problems,omitempty"`
	Rego      []engine.RegoTestResult `json:"rego"`
	Cases     []jsonCase              `json:"cases"`
	Coverage  *engine.CoverageReport  `json:"coverage,omitempty"`
	FailUnder *float64                `json:"fail_under,omitempty"`
	Duration  int64                   `json:"duration"`
}

type jsonCase struct {
	caseResult
	Passed bool `json:"passed"`
}

func (jsonReporter) Report(w io.Writer, r *testReport) error {
	passed, failed, skipped := r.Counts()
	out := jsonReport{
		Passed: passed, Failed: failed, Skipped: skipped, Problems: r.Problems,
		Rego: r.Rego, Cases: make([]jsonCase, len(r.Cases)), Coverage: r.Coverage, Duration: int64(r.Duration),
	}
	if out.Rego == nil {
		out.Rego = []engine.RegoTestResult{}
	}
	for i, c := range r.Cases {
		out.Cases[i] = jsonCase{caseResult: c, Passed: c.Passed()}
	}
	if r.FailUnder >= 0 {
		out.FailUnder = &r.FailUnder
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
