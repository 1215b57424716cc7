package harness_test

import (
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/harness"
)

func TestGrantHint(t *testing.T) {
	ask := engine.Verdict{Decision: engine.Ask, Reasons: []engine.Reason{
		{Rule: "fs.delete", Decision: engine.Ask, Grantable: true, Prefix: []string{"rm"}},
	}}
	tests := []struct {
		v    engine.Verdict
		dir  string
		want string
	}{
		{ask, "/p", " To allow it in this project from now on: rivumi grant add -C /p --rule fs.delete -- rm"},
		{ask, "/my proj's", ` To allow it in this project from now on: rivumi grant add -C '/my proj'\''s' --rule fs.delete -- rm`},
		{engine.Verdict{Decision: engine.Ask, Reasons: []engine.Reason{{Rule: "fs.history", Decision: engine.Ask}}}, "/p",
			" No grant can cover this; run it yourself if it is what you want."},
	}
	for _, tt := range tests {
		if got := harness.GrantHint(tt.v, tt.dir); got != tt.want {
			t.Errorf("GrantHint(%v, %q) = %q, want %q", tt.v.Reasons, tt.dir, got, tt.want)
		}
	}
}
