package parser

import (
	"os/exec"
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
		{"xargs -I% rm -rf % <<< ~", []string{"rm -rf /home/u|home"}},          // the here-string's tilde is expanded
		{"xargs -I% rm -rf % <<< '~'", []string{"rm -rf ~|workspace"}},         // quoted: a directory named ~
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
		{"xargs -a <(echo /) rm -rf", []string{"rm -rf /|root"}},
		{"xargs --arg-file <(echo /) -0 rm -rf", []string{"rm -rf /\n|outside"}},
		{"xargs -a <(ls) rm -rf", []string{}},
		{"xargs xargs -a <(echo /) rm -rf", []string{"rm -rf /|root"}},                                                       // the inner xargs reads its file
		{"echo / > f; echo a | xargs xargs -a f rm -rf", []string{"rm -rf a|workspace", "rm -rf a /|root", "rm -rf /|root"}}, // real: rm -rf a /
		{"xargs rm -rf < <(echo /)", []string{"rm -rf /|root"}},
		{"echo / | xargs sudo rm -rf", []string{"rm -rf /|root"}},
		{"cat <<'EOF' | xargs rm -rf\n/\nEOF", []string{"rm -rf /|root"}},
		{"(echo a; echo /) | xargs rm -rf", []string{"rm -rf a /|root"}},
		{"echo a > x; echo / > y; cat x y | xargs rm -rf", []string{"rm -rf a /|root"}},
		{"(echo a > f; echo /) | xargs rm -rf", []string{}}, // part of it goes elsewhere
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

func TestWhileReadData(t *testing.T) {
	tests := []struct {
		in, argv, class string
		want            bool
	}{
		{`printf '/\n' | while read d; do rm -rf "$d"; done`, "rm -rf /", ClassRoot, true},
		{`printf '/' | while read d; do rm -rf "$d"; done`, "rm -rf /", "", false}, // no newline: read fails, the body never runs
		{`printf 'x /\n' | while read a b; do rm -rf "$b"; done`, "rm -rf /", ClassRoot, true},
		{`printf '  x  / y  \n' | while read a b; do rm -rf "$b"; done`, "rm -rf / y", "", true},
		{`printf 'x /\n' | while read a; do rm -rf "$a"; done`, "rm -rf x /", "", true},
		{`printf 'a:/\n' | while IFS=: read a b; do rm -rf "$b"; done`, "rm -rf /", ClassRoot, true},
		{`printf '/\0' | while read -d '' d; do rm -rf "$d"; done`, "rm -rf /", ClassRoot, true},
		{`printf '\\/\n' | while read d; do rm -rf "$d"; done`, "rm -rf /", ClassRoot, true},
		{`printf '\\/\n' | while read -r d; do rm -rf "$d"; done`, `rm -rf \/`, "", true},
		{`while read d; do rm -rf "$d"; done <<< ~`, "rm -rf /home/u", ClassHome, true},
		{`while read d; do rm -rf "$d"; done <<< '~'`, "rm -rf ~", ClassWorkspace, true}, // read does not expand ~
		{`echo / > f; while read d; do rm -rf "$d"; done < f`, "rm -rf /", ClassRoot, true},
		{`while read d; do rm -rf "$d"; done < <(echo /)`, "rm -rf /", ClassRoot, true},
		{`printf '/\n' | while read -u 3 d; do rm -rf "$d"; done`, "rm -rf /", "", false}, // another fd
		{`printf '/\n' | until read d; do rm -rf "$d"; done`, "rm -rf /", "", false},
		{`ls | while read d; do rm -rf "$d"; done`, `rm -rf "$d"`, "", true}, // unknown: as today
		// Each record runs the body where the previous run left.
		{`printf '/\n' | while read d; do rm -rf ./"$d"x; cd /tmp; done`, "rm -rf .//x", ClassWorkspace, true},
		{`printf 'a\nb\n' | while read d; do rm -rf ./"$d"; cd /tmp; done`, "rm -rf ./b", ClassUnknown, true},
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

// TestReadMatchesBash compares the record and field splitting with bash's
// own read (builtins only: printf and read, nothing else runs).
func TestReadMatchesBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	tests := []struct {
		data, ifs string
		names     int
		raw       bool
		delim     byte
	}{
		{"x /\n", " \t\n", 2, false, '\n'},
		{"  x  / y  \n", " \t\n", 2, false, '\n'},
		{"  x  / y  \n", " \t\n", 1, false, '\n'},
		{"a::b\n", ":", 3, false, '\n'},
		{"a : b :\n", ": ", 2, false, '\n'},
		{" a \n", "", 1, false, '\n'},
		{`\/ a\ b` + "\n", " \t\n", 2, false, '\n'},
		{`\/ a\ b` + "\n", " \t\n", 2, true, '\n'},
		{"a\\\nb\nc\n", " \t\n", 1, false, '\n'},
		{"/\x00x y\x00", " \t\n", 2, false, 0},
		{"last", " \t\n", 1, false, '\n'},
		{"x:y:\nx:y::\nx:y :\nx:y z:\nx: y :\n", ": ", 2, false, '\n'},
		{"x:y:\nx:y::\nx:y: \nx:y z:\nx: y :\n", ":", 2, false, '\n'},
	}
	for _, tc := range tests {
		names := []string{"v0", "v1", "v2"}[:tc.names]
		opts := ""
		if tc.raw {
			opts += " -r"
		}
		if tc.delim == 0 {
			opts += " -d ''"
		}
		var echo []string
		for _, n := range names {
			echo = append(echo, "[$"+n+"]")
		}
		script := `while IFS="$1" read` + opts + " " + strings.Join(names, " ") +
			`; do printf '%s\n' "` + strings.Join(echo, "") + `"; done`
		cmd := exec.Command(bash, "-c", script, "_", tc.ifs)
		cmd.Stdin = strings.NewReader(tc.data)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash: %v", err)
		}
		var got strings.Builder
		for _, rec := range readRecords(tc.data, readPlan{delim: tc.delim, raw: tc.raw}) {
			for _, v := range readFields(rec, tc.names, tc.ifs) {
				got.WriteString("[" + v + "]")
			}
			got.WriteString("\n")
		}
		if got.String() != string(out) {
			t.Errorf("read %q (IFS %q, %d names, raw %v): got %q, bash %q", tc.data, tc.ifs, tc.names, tc.raw, got.String(), out)
		}
	}
}

// TestXargsMatchesGNU compares the splitting with GNU xargs itself, running
// printf (and nothing else) on each input.
func TestXargsMatchesGNU(t *testing.T) {
	xargs, err := exec.LookPath("xargs")
	if err != nil {
		t.Skip("no xargs")
	}
	if out, err := exec.Command(xargs, "--version").Output(); err != nil || !strings.Contains(string(out), "GNU") {
		t.Skip("not GNU xargs")
	}
	tests := []struct {
		data string
		opts []string
	}{
		{`"/" a\ b 'c d'` + "\n", nil},
		{"  \"a b\" c\\ d 'e'  \nf\n", []string{"-I{}"}},
		{"a\n\nb c \nd\n", []string{"-L1"}},
		{"a b _ c\n", []string{"-E", "_"}},
		{"a b\x00c\x00", []string{"-0"}},
		{"a:b c:d", []string{"-d:"}},
		{"a\tb\n", []string{`-d\t`}},
		{"a \"b\n", nil},
		{"a\nb\nc\n", []string{"-n2"}},
		{"x y\n", []string{"-i"}},
	}
	for _, tc := range tests {
		o, ok := parseXargsOpts(tc.opts)
		if !ok {
			t.Fatalf("options %q not parsed", tc.opts)
		}
		// One printf per command: each argument in brackets, a line per command.
		args := append(append([]string(nil), tc.opts...), "printf", `[%s]`)
		if o.repl != "" {
			args = append(args, o.repl)
		}
		cmd := exec.Command(xargs, args...)
		cmd.Stdin = strings.NewReader(tc.data)
		out, _ := cmd.Output() // an unmatched quote exits 1 after running what it read
		var want []string
		for _, l := range xargsLines(tc.data, o) {
			for _, it := range l {
				want = append(want, "["+it+"]")
			}
		}
		if got := strings.Join(want, ""); got != string(out) {
			t.Errorf("xargs %q on %q: model %q, xargs %q", tc.opts, tc.data, got, out)
		}
	}
}

// TestDataNeverHitsTheLimit: what is built from data is extra, bounded to
// half the segment limit, so that grading it never turns a command into a
// limit hit (which denies).
func TestDataNeverHitsTheLimit(t *testing.T) {
	lines := strings.Repeat(`a\n`, 16)
	for _, in := range []string{
		`printf '` + lines + `' | while read a; do while read b; do while read c; do while read d; do while read e; do echo "$e"; done; done; done; done; done`,
		`printf '` + lines + `' > f; xargs -a f -n1 xargs -a f -n1 xargs -a f -n1 xargs -a f -n1 xargs -a f -n1 echo`,
		`printf '` + lines + `' > f; parallel -a f parallel -a f parallel -a f parallel -a f echo`,
		`printf '` + lines + `' | while read a; do ` + strings.Repeat("echo $a; ", 120) + `done`,
	} {
		c := mustParse(t, in, Workspace("/w"), Cwd("/w"))
		if c.Shape.Limit != "" {
			t.Errorf("%.60s…: limit %q hit with %d segments", in, c.Shape.Limit, len(c.Segments))
		}
	}
}

// TestPrintfMatchesBash compares the static printf with bash's builtin.
func TestPrintfMatchesBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, args := range [][]string{
		{`%s\n`, "/", "~"}, {`%s`, "r", "m"}, {`%s\0`, "/", "x y"}, {`%s %s\n`, "a", "b", "c"},
		{`a\tb%%\n`}, {`%b`, `x\ty`}, {`x`}, {`%s\n`}, {`\x72\x6d -rf /`}, {`[%s]`, "a", "", "b"},
	} {
		cmd := exec.Command(bash, append([]string{"-c", `printf "$@"`, "_"}, args...)...)
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash printf %q: %v", args, err)
		}
		got, ok := printfStatic(args[0], args[1:])
		if !ok || got != string(want) {
			t.Errorf("printf %q: got %q (%v), bash %q", args, got, ok, want)
		}
	}
	for _, f := range []string{`%d`, `%5s`, `%q`, `abc%`} {
		if _, ok := printfStatic(f, []string{"1"}); ok {
			t.Errorf("printf %q: modelled, want not", f)
		}
	}
}
