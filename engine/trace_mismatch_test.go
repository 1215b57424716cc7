package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/parser"
)

// TestTraceMismatch: when the engine's answer for a segment differs from
// the traced Rego evaluation's, the trace says so (here the engine's hit
// cache is poisoned to answer deny for ls).
func TestTraceMismatch(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, UserModule("team/x.rego", "package rivumi.user.team\n\nx := 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e.c.native != nil {
		t.Fatal("a user pack must send verdicts through OPA (and its cache)")
	}
	cmd, _ := parser.Parse("ls -la")
	in := segmentInput(cmd, 0, shapeValue(&cmd.Shape), nil)
	e.cache.put(in, layerHits{deny: []string{"fs.delete"}, allowKnown: true})
	x, tr, err := e.Trace(ctx, "ls -la", TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if x.Verdict.Decision != Deny {
		t.Fatalf("the poisoned cache was not used: %s", x.Verdict.Decision)
	}
	st := tr.Segments[0]
	if tr.Mismatches != 1 || st.Decision != Allow || st.EngineDecision != Deny ||
		!strings.Contains(st.Mismatch, "the traced Rego evaluation decides allow, the engine answered deny") ||
		!strings.Contains(st.Mismatch, "the engine's [deny:fs.delete]") {
		t.Errorf("mismatches %d, segment %+v", tr.Mismatches, st)
	}
}

func TestTraceMismatchText(t *testing.T) {
	tests := []struct {
		name      string
		st        SegmentTrace
		engineErr string
		want      string
	}{
		{"agree", SegmentTrace{Decision: Ask, EngineDecision: Ask, Hits: []string{"ask:a"}, EngineHits: []string{"ask:a"}}, "", ""},
		{"decision", SegmentTrace{Decision: Ask, EngineDecision: Allow, Hits: []string{"ask:a"}, EngineHits: []string{"ask:a"}}, "", "the traced Rego evaluation decides ask, the engine answered allow"},
		{"hits", SegmentTrace{Decision: Ask, EngineDecision: Ask, Hits: []string{"ask:a"}, EngineHits: []string{"ask:b"}}, "", "the traced Rego hits are [ask:a], the engine's [ask:b]"},
		{"both failed", SegmentTrace{Decision: Deny, EngineDecision: Deny, Error: "boom", EngineHits: []string{"engine:engine.error"}}, "engine.error: boom", ""},
		{"trace failed", SegmentTrace{Decision: Deny, EngineDecision: Ask, Error: "boom"}, "", "the traced Rego evaluation failed (boom), the engine answered ask"},
		{"engine failed", SegmentTrace{Decision: Ask, EngineDecision: Deny}, "engine.timeout: late", "the engine's evaluation failed (engine.timeout: late), the traced Rego evaluation decides ask"},
	}
	for _, tt := range tests {
		if got := traceMismatch(tt.st, tt.engineErr); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
