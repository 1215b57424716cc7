package cli

import (
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
)

// TestPrintTraceMismatch: a segment whose traced Rego evaluation differs
// from the engine's answer is flagged at the top and on the segment.
func TestPrintTraceMismatch(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	tr := &engine.Trace{Mode: engine.TraceFails, Scope: "the team's rules", Mismatches: 1, Segments: []engine.SegmentTrace{{
		Segment: 0, Text: "ls", Argv: []string{"ls"}, Decision: engine.Allow, Hits: []string{"allow:readonly.list"},
		EngineDecision: engine.Deny, Mismatch: "the traced Rego evaluation decides allow, the engine answered deny",
	}}}
	var b strings.Builder
	printTrace(&b, tr)
	for _, want := range []string{
		"MISMATCH: on 1 segment(s) the traced Rego evaluation differs from the engine's answer above",
		"  Rego: allow [allow:readonly.list]\n  MISMATCH: the traced Rego evaluation decides allow, the engine answered deny\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "as the engine answered") {
		t.Errorf("a mismatched segment reads as agreeing:\n%s", b.String())
	}
}

func TestTraceModeFlag(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		set, ok bool
	}{
		{"true", "fails", true, true},
		{"fails", "fails", true, true},
		{"full", "full", true, true},
		{"false", "", false, true},
		{"notes", "", false, false},
		{"debug", "", false, false},
	}
	for _, tt := range tests {
		var f traceModeFlag
		err := f.Set(tt.in)
		if (err == nil) != tt.ok || f.mode != tt.want || f.set != tt.set {
			t.Errorf("Set(%q): mode %q set %v err %v; want %q %v ok %v", tt.in, f.mode, f.set, err, tt.want, tt.set, tt.ok)
		}
	}
}
