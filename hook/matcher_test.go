package hook

import (
	"slices"
	"testing"
)

func TestCodexMatcherMisses(t *testing.T) {
	for _, tc := range []struct {
		matcher string
		miss    []string
	}{
		{CodexMatcher, nil},
		{"", nil},
		{"*", nil},
		{".*", nil},
		{"Bash", []string{"apply_patch"}},
		{"Bash|apply_patch", nil},
		{"apply_patch", []string{"Bash"}},
		{"Bas", []string{"Bash", "apply_patch"}}, // a prefix is not taken as covering
		{"Bash|Write|Edit", nil},                 // Codex matches apply_patch by these aliases too
		{"Bash|Write", nil},
		{"Bash|MultiEdit", []string{"apply_patch"}},
		{"(", []string{"Bash", "apply_patch"}}, // not a regexp: covers nothing
	} {
		if got := CodexMatcherMisses(tc.matcher); !slices.Equal(got, tc.miss) {
			t.Errorf("CodexMatcherMisses(%q) = %q, want %q", tc.matcher, got, tc.miss)
		}
	}
	if Matchers[Codex] != CodexMatcher {
		t.Errorf("the default Codex matcher is %q, want %q", Matchers[Codex], CodexMatcher)
	}
}
