package textdist

import "testing"

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"polcy", "policy", 1}, {"tset", "test", 1}, {"abc", "xyz", 3}, {"serve", "serve", 0}, {"programm", "program", 1}} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	cands := []string{"program", "programs", "argv", "subcommand"}
	for _, tt := range []struct {
		typed, want string
		ok          bool
	}{{"programm", "program", true}, {"subcomand", "subcommand", true}, {"argc", "argv", true}, {"xy", "", false}, {"nothing", "", false}} {
		if got, ok := Closest(tt.typed, cands); got != tt.want || ok != tt.ok {
			t.Errorf("Closest(%q) = %q %v, want %q %v", tt.typed, got, ok, tt.want, tt.ok)
		}
	}
}
