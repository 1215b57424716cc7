package ere

import "testing"

func TestReadable(t *testing.T) {
	for _, tc := range []struct {
		p    string
		want bool
	}{
		{"init", true}, {"^sys.*d$", true}, {`node server\.js`, true}, {"[[:alpha:]]+", true},
		{"a|b", true}, {"", true}, {"x{1,2}", true},
		{`system\d`, false}, {`\<init`, false}, {`x\`, false}, {`system[\d]`, false},
		{`[a\-z]nit`, false}, {"[[=i=]]nit", false}, {"(?i)init", false}, {"ini{,1}t", false}, {"*init", false},
	} {
		if got := Readable(tc.p); got != tc.want {
			t.Errorf("Readable(%q) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

func TestFinds(t *testing.T) {
	names := []string{"init", "systemd"}
	for _, tc := range []struct {
		p        string
		anchored bool
		want     bool
	}{
		{"nit", false, true}, {"nit", true, false}, {"SYST.MD", true, true}, {".", false, true},
		{"node", false, false}, {`\w`, false, false},
	} {
		if got := Finds(tc.p, tc.anchored, names); got != tc.want {
			t.Errorf("Finds(%q, %v) = %v, want %v", tc.p, tc.anchored, got, tc.want)
		}
	}
}
