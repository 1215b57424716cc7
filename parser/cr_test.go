package parser

import "testing"

// TestBareCR: a carriage return inside a line is refused (bash reads it as
// part of a word, mvdan's parser as a blank); one ending a line is not.
func TestBareCR(t *testing.T) {
	for _, tc := range []struct {
		text   string
		refuse bool
	}{
		{"ls\rnpm install x", true},
		{"ls\r", true},
		{"echo 'a\rb'", true},
		{"ls\r\nls", false},
		{"ls\\\r\nls", false},
		{"ls\nls", false},
	} {
		_, err := Parse(tc.text)
		if (err != nil) != tc.refuse {
			t.Errorf("Parse(%q): %v, want refused %v", tc.text, err, tc.refuse)
		}
	}
}
