package cli

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"
)

// TestEveryCommandHelp: `rivumi CMD --help` exits 0 and shows a usage
// line, a description and at least one example of the command itself.
func TestEveryCommandHelp(t *testing.T) {
	var paths []string
	for p := range commands {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append(strings.Fields(p), "--help")
			if code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
				t.Fatalf("exit %d", code)
			}
			help := errb.String()
			if !strings.HasPrefix(help, "Usage: rivumi "+p) {
				t.Errorf("no usage line:\n%s", help)
			}
			head, _, _ := strings.Cut(help, "\nFlags:")
			if lines := strings.Split(strings.TrimSpace(head), "\n"); len(lines) < 3 || strings.TrimSpace(lines[2]) == "" {
				t.Errorf("no description between the usage line and the flags:\n%s", help)
			}
			_, ex, ok := strings.Cut(help, "\nExamples:\n")
			if !ok || !strings.Contains(ex, "rivumi "+p) {
				t.Errorf("no example of rivumi %s:\n%s", p, help)
			}
			if strings.Contains(help, "-socket rivumi serve") {
				t.Errorf("a flag's placeholder is taken from a quoted command:\n%s", help)
			}
		})
	}
}

// TestParseInterspersed: flags after positional arguments are parsed, up
// to `--`; a `--` that is a flag's value is not the terminator.
func TestParseInterspersed(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		format     string
		cwd        string
		positional []string
	}{
		{[]string{"ls", "--format", "json"}, "json", "", []string{"ls"}},
		{[]string{"--format=json", "ls"}, "json", "", []string{"ls"}},
		{[]string{"a", "--cwd", "/x", "b"}, "text", "/x", []string{"a", "b"}},
		{[]string{"a", "--", "--format", "json"}, "text", "", []string{"a", "--format", "json"}},
		{[]string{"--cwd", "--", "a", "--format", "json"}, "json", "--", []string{"a"}},
		{[]string{"-v", "--", "-x"}, "text", "", []string{"-x"}},
	} {
		fs := newFlags("t", Stdio{Err: &bytes.Buffer{}})
		format := fs.String("format", "text", "")
		cwd := fs.String("cwd", "", "")
		fs.Bool("v", false, "")
		if err := parseInterspersed(fs, tc.args); err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if *format != tc.format || *cwd != tc.cwd || strings.Join(fs.Args(), "|") != strings.Join(tc.positional, "|") {
			t.Errorf("%q: format %q cwd %q args %q; want %q %q %q", tc.args, *format, *cwd, fs.Args(), tc.format, tc.cwd, tc.positional)
		}
	}
}
