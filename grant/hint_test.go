package grant_test

import (
	"testing"

	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/verdict"
)

func TestGrantHint(t *testing.T) {
	ask := verdict.Verdict{Decision: verdict.Ask, Reasons: []verdict.Reason{
		{Rule: "fs.delete", Decision: verdict.Ask, Grantable: true, Prefix: []string{"rm"}},
	}}
	tests := []struct {
		v    verdict.Verdict
		dir  string
		want string
	}{
		{ask, "/p", " To allow it in this project from now on: rivumi grant add -C /p --rule fs.delete -- rm"},
		{ask, "/my proj's", ` To allow it in this project from now on: rivumi grant add -C '/my proj'\''s' --rule fs.delete -- rm`},
		{verdict.Verdict{Decision: verdict.Ask, Reasons: []verdict.Reason{{Rule: "fs.history", Decision: verdict.Ask}}}, "/p",
			" No grant can cover this; run it yourself if it is what you want."},
	}
	for _, tt := range tests {
		if got := grant.Hint(tt.v, tt.dir); got != tt.want {
			t.Errorf("GrantHint(%v, %q) = %q, want %q", tt.v.Reasons, tt.dir, got, tt.want)
		}
	}
}
