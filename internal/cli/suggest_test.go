package cli

import (
	"slices"
	"testing"
)

func TestSuggestCommands(t *testing.T) {
	tests := []struct {
		typed []string
		want  []string
	}{
		{[]string{"polcy"}, []string{"policy"}},
		{[]string{"plicy", "test"}, []string{"policy test"}},
		{[]string{"policy", "tset"}, []string{"policy test"}},
		{[]string{"policy", "evl", "ls"}, []string{"policy eval"}},
		{[]string{"serv"}, []string{"serve"}},
		{[]string{"hook", "instal", "claude-code"}, []string{"hook install"}},
		{[]string{"audit", "reprot", "--html"}, []string{"audit report"}},
		{[]string{"nosuch"}, nil},
		{[]string{"xy"}, nil},
		{[]string{"--polcy"}, nil},
	}
	for _, tt := range tests {
		if got := suggestCommands(tt.typed); !slices.Equal(got, tt.want) {
			t.Errorf("suggestCommands(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}
