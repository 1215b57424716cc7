package parser

import (
	"reflect"
	"strings"
	"testing"
)

// runnerRuns lists the commands a runner built from its input: the
// segments whose first wrapper is runner, as "argv|class of last operand".
func runnerRuns(c *Command, runner string) []string {
	out := []string{}
	for _, s := range c.Segments {
		if s.Kind != KindExec || len(s.Wrappers) == 0 || s.Wrappers[0].Name != runner || len(s.Wrappers[0].Args) != 0 {
			continue
		}
		r := strings.Join(s.Argv, " ")
		if n := len(s.Operands); n > 0 {
			r += "|" + s.Operands[n-1].Class
		}
		out = append(out, r)
	}
	return out
}

func TestXargsData(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"echo / | xargs rm -rf", []string{"rm -rf /|root"}},
		{"echo / | xargs -I{} rm -rf {}", []string{"rm -rf /|root"}},
		{"echo /etc | xargs -I{} rm -rf {}/x{}", []string{"rm -rf /etc/x/etc|system"}},
		{"printf 'a\\nb c\\n' | xargs -I{} touch {}", []string{"touch a|workspace", "touch b c|workspace"}},
		{"echo 'rm -rf /' | xargs bash -c", []string{"bash -c rm -rf /|root"}}, // plus the joined reading, as shell
		{"xargs -I% rm -rf % <<< ~", []string{"rm -rf /home/u|home"}}, // the here-string's tilde is expanded
		{"xargs -I% rm -rf % <<< '~'", []string{"rm -rf ~|workspace"}}, // quoted: a directory named ~
		{`xargs -I% rm -rf % <<< "$HOME"`, []string{"rm -rf /home/u|home"}},
		{"echo ~ | xargs rm -rf", []string{"rm -rf ~|home"}},
		{"echo '~' | xargs rm -rf", []string{"rm -rf ~|workspace"}},
		{`echo '"/"' | xargs rm -rf`, []string{"rm -rf /|root"}},
		{`echo '"a b" c\ d' | xargs rm`, []string{"rm a b c d|workspace"}},
		{`echo 'a "b' | xargs rm`, []string{"rm a|workspace"}}, // unmatched quote: input ends there
		{`printf 'a b\0/\0' | xargs -0 rm -rf`, []string{"rm -rf a b /|root"}},
		{`printf 'x:/' | xargs -d: rm -rf`, []string{"rm -rf x /|root"}},
		{`printf 'x\t/' | xargs -d'\t' rm -rf`, []string{"rm -rf x /|root"}},
		{"echo a / | xargs -n1 rm -rf", []string{"rm -rf a|workspace", "rm -rf /|root"}},
		{"printf 'a b\\n/\\n' | xargs -L1 rm -rf", []string{"rm -rf a b|workspace", "rm -rf /|root"}},
		{"echo a _ / | xargs -E _ rm -rf", []string{"rm -rf a|workspace"}},
		{"echo a _ / | xargs -e_ rm -rf", []string{"rm -rf a|workspace"}},
		{"echo / | xargs -i rm -rf {}", []string{"rm -rf /|root"}},
		{"echo / | xargs -iZ rm -rf Z", []string{"rm -rf /|root"}},
		{"echo / | xargs --replace=Z rm -rf Z", []string{"rm -rf /|root"}},
		{"echo a / | xargs -J % mv % /tmp", []string{"mv a / /tmp|tmp"}},
		{"echo / > f && xargs -a f rm -rf", []string{"rm -rf /|root"}},
		{"echo / > f && xargs --arg f rm -rf", []string{"rm -rf /|root"}},
		{"echo / > f; xargs rm -rf < f", []string{"rm -rf /|root"}},
		{"echo / > f; cat f | xargs rm -rf", []string{"rm -rf /|root"}},
		{"echo / > f; cat < f | xargs rm -rf", []string{"rm -rf /|root"}},
		{"xargs -a <(echo /) rm -rf", []string{}}, // not peeled (dynamic option value): xargs itself asks
		{"xargs rm -rf < <(echo /)", []string{"rm -rf /|root"}},
		{"echo / | xargs sudo rm -rf", []string{"rm -rf /|root"}},
		{"cat <<'EOF' | xargs rm -rf\n/\nEOF", []string{"rm -rf /|root"}},
		// Not static: nothing is built; the xargs segment keeps appended-args.
		{"find . -name '*.go' | xargs grep -l foo", []string{}},
		{"echo $X | xargs rm -rf", []string{}},
		{"cat f | xargs rm -rf", []string{}},
		{"echo / | xargs -a other rm -rf", []string{}}, // -a: stdin is not the input
		{"echo / | xargs $CMD", []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			c := mustParse(t, tc.in, Workspace("/w"), Cwd("/w"), Home("/home/u"))
			if got := runnerRuns(c, "xargs"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("runs = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestXargsShellCodeFromData(t *testing.T) {
	c := mustParse(t, "echo 'rm -rf /' | xargs bash -c", Workspace("/w"), Cwd("/w"))
	found := false
	for _, s := range c.Segments {
		if s.Kind == KindExec && strings.Join(s.Argv, " ") == "rm -rf /" {
			found = true
		}
	}
	if !found {
		t.Errorf("the data as bash -c code is not graded: %q", argvs(c))
	}
}

// hasArgv reports a segment with the argv (joined by spaces) and the class
// of its last operand.
func hasArgv(c *Command, argv, class string) bool {
	for _, s := range c.Segments {
		if strings.Join(s.Argv, " ") != argv {
			continue
		}
		if n := len(s.Operands); class == "" || n > 0 && s.Operands[n-1].Class == class {
			return true
		}
	}
	return false
}

func TestParallelData(t *testing.T) {
	tests := []struct {
		in, argv, class string
		want            bool
	}{
		{"echo / | parallel rm -rf", "rm -rf /", ClassRoot, true},
		{"echo / | parallel bash -c 'rm -rf {}'", "rm -rf /", ClassRoot, true}, // the quoted reading
		{"echo / | parallel -q bash -c 'rm -rf {}'", "rm -rf /", ClassRoot, true},
		{"echo 'rm -rf /' | parallel", "rm -rf /", ClassRoot, true},
		{"echo 'rm -rf /' | parallel --pipe bash", "rm -rf /", ClassRoot, true},
		{"echo / > f; parallel -a f rm -rf", "rm -rf /", ClassRoot, true},
		{"echo / > f; parallel rm -rf :::: f", "rm -rf /", ClassRoot, true},
		{"printf 'a\\0/\\0' | parallel -0 rm -rf", "rm -rf /", ClassRoot, true},
		{"echo '/ x' | parallel rm -rf", "rm -rf / x", "", true}, // one argument, quoted: '/ x'
		{"echo '/ x' | parallel rm -rf", "rm -rf /", "", false},
		{"ls | parallel rm -rf", "rm -rf /", "", false},
		{"echo / | parallel --colsep , rm -rf", "rm -rf /", "", false}, // columns: not modelled
		{"echo / | parallel rm -rf ::: a", "rm -rf /", "", false},      // ::: replaces stdin
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			c := mustParse(t, tc.in, Workspace("/w"), Cwd("/w"), Home("/home/u"))
			if got := hasArgv(c, tc.argv, tc.class); got != tc.want {
				t.Errorf("segment %q (%s) present = %v, want %v; segments %q", tc.argv, tc.class, got, tc.want, argvs(c))
			}
		})
	}
}
