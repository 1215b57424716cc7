package engine

import "testing"

// TestPolicyWithGrants: a verdict's policy hash changes with the call's
// grants (whatever their order) and is the compiled hash without them.
func TestPolicyWithGrants(t *testing.T) {
	make1 := Grant{Prefix: []string{"make"}, Rules: []string{"exec.workspace-code"}}
	npm := Grant{Prefix: []string{"npm", "test"}, Rules: []string{"exec.workspace-code"}}
	base := "0123456789abcdef"
	for _, tc := range []struct {
		name   string
		a, b   []Grant
		differ bool
	}{
		{"none is the compiled hash", nil, nil, false},
		{"a grant changes it", nil, []Grant{make1}, true},
		{"another grant changes it", []Grant{make1}, []Grant{npm}, true},
		{"a second grant changes it", []Grant{make1}, []Grant{make1, npm}, true},
		{"order does not", []Grant{npm, make1}, []Grant{make1, npm}, false},
		{"another rule does", []Grant{make1}, []Grant{{Prefix: []string{"make"}, Rules: []string{"x"}}}, true},
	} {
		ha, hb := policyWithGrants(base, tc.a), policyWithGrants(base, tc.b)
		if (ha != hb) != tc.differ {
			t.Errorf("%s: %q vs %q", tc.name, ha, hb)
		}
	}
	if policyWithGrants(base, nil) != base {
		t.Error("without grants the hash must be the compiled one")
	}
}
