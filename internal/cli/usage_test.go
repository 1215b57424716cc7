package cli

import (
	"bytes"
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestEveryCommandHelp: `rivumi CMD --help` exits 0 and shows, on
// stdout, a description, a usage line and at least one example of the
// command itself, and its flags.
func TestEveryCommandHelp(t *testing.T) {
	var paths []string
	for p := range commands {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			args := append(strings.Fields(p), "--help")
			if code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			help := out.String()
			desc, usage, ok := strings.Cut(help, "\nUsage:\n  rivumi "+p)
			if !ok {
				t.Errorf("no usage line:\n%s", help)
			}
			if strings.TrimSpace(desc) == "" || strings.TrimSpace(desc) == commands[p].summary {
				t.Errorf("no description before the usage line:\n%s", help)
			}
			_, ex, ok := strings.Cut(usage, "\nExamples:\n")
			if !ok || !strings.Contains(ex, "rivumi "+p) {
				t.Errorf("no example of rivumi %s:\n%s", p, help)
			}
			if !strings.Contains(usage, "\nFlags:\n") || !strings.Contains(usage, "--help") {
				t.Errorf("no flags:\n%s", help)
			}
			if strings.Contains(help, "-socket rivumi serve") {
				t.Errorf("a flag's placeholder is taken from a quoted command:\n%s", help)
			}
		})
	}
}

// TestDeclareFlags: every command declares its flags before it does
// anything else (the tree learns them by running it up to its parse),
// and writes nothing meanwhile.
func TestDeclareFlags(t *testing.T) {
	for p := range commands {
		var out bytes.Buffer
		root := newTree(Stdio{In: strings.NewReader(""), Out: &out, Err: &out})
		cmd, _, err := root.Find(strings.Fields(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := declareFlags(cmd, Stdio{}); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if out.Len() > 0 {
			t.Errorf("%s wrote %q while declaring its flags", p, out.String())
		}
		n := 0
		cmd.Flags().VisitAll(func(*pflag.Flag) { n++ })
		if n < 2 && p != "workspace tools" && p != "completion" {
			t.Errorf("%s: %d flags declared", p, n)
		}
	}
}

// TestParseFlags: flags anywhere among the operands, --flag=value and
// --flag value, the flag package's -flag spelling of a long flag, `--`
// ending the flags, and a flag's value never read as a flag or rewritten.
func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		interspersed bool
		format, cwd  string
		v            bool
		operands     []string
	}{
		{[]string{"ls", "--format", "json"}, true, "json", "", false, []string{"ls"}},
		{[]string{"--format=json", "ls"}, true, "json", "", false, []string{"ls"}},
		{[]string{"-format=json", "ls"}, true, "json", "", false, []string{"ls"}},
		{[]string{"-format", "json", "ls"}, true, "json", "", false, []string{"ls"}},
		{[]string{"a", "--cwd", "/x", "b"}, true, "text", "/x", false, []string{"a", "b"}},
		{[]string{"a", "-cwd", "-format", "b"}, true, "text", "-format", false, []string{"a", "b"}},
		{[]string{"a", "--", "--format", "json"}, true, "text", "", false, []string{"a", "--format", "json"}},
		{[]string{"--cwd", "--", "a", "--format", "json"}, true, "json", "--", false, []string{"a"}},
		{[]string{"-v", "--", "-x"}, true, "text", "", true, []string{"-x"}},
		{[]string{"-v", "-", "-format", "json"}, true, "json", "", true, []string{"-"}},
		{[]string{"ls", "-format", "json"}, false, "text", "", false, []string{"ls", "-format", "json"}},
		{[]string{"-v", "ls", "-v"}, false, "text", "", true, []string{"ls", "-v"}},
		{[]string{"ls", "--v"}, true, "text", "", true, []string{"ls"}},
	} {
		fs := newFlags("t", Stdio{Err: &bytes.Buffer{}})
		fs.SetInterspersed(tc.interspersed)
		format := fs.String("format", "text", "")
		cwd := fs.String("cwd", "", "")
		v := fs.Bool("v", false, "")
		if err := parseFlags(fs, tc.args); err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if *format != tc.format || *cwd != tc.cwd || *v != tc.v || !slices.Equal(fs.Args(), tc.operands) {
			t.Errorf("%q: format %q cwd %q v %v operands %q; want %q %q %v %q", tc.args, *format, *cwd, *v, fs.Args(), tc.format, tc.cwd, tc.v, tc.operands)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nosuch"}, "unknown flag: --nosuch"},
		{[]string{"-nosuch"}, "unknown shorthand flag: 'n' in -nosuch"},
		{[]string{"ls", "-la"}, `"-la" after "ls" is not a flag of this command; quote the whole command as one argument: rivumi t 'ls -la'`},
		{[]string{"--format"}, "flag needs an argument: --format"},
		{[]string{"--help"}, "pflag: help requested"},
		{[]string{"-h"}, "pflag: help requested"},
	} {
		fs := newFlags("t", Stdio{Err: &bytes.Buffer{}})
		fs.String("format", "text", "")
		err := parseFlags(fs, tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}
