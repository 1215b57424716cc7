//go:build linux

package adversarial_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/parser"
)

// substScripts use command substitutions of pure programs (issue 33): echo
// and printf (bash's builtins), dirname and basename (the host's GNU
// coreutils, which the jail of evalScripts replaces by loggers). known says
// that rivumi must know every probe's argv; otherwise whatever it states
// as static must be what bash passes.
var substScripts = []struct {
	script string
	known  bool
}{
	{`probe $(echo /) "$(echo /)" x$(echo)y "$(echo)"`, true},
	{`probe $(echo rm -rf /) "$(echo rm -rf /)"`, true},
	{"probe `echo /` \"`echo a  b`\" `echo \"x  y\"`", true},
	{`probe $(echo -n a) $(echo -nx) $(echo -) $(echo -- -n) $(echo -n)`, true},
	{`probe $(echo -e a) $(echo -E -n a) $(echo -ne) $(echo -n -n a)`, false},
	{`probe "$(echo 'a\tb')" "$(echo -e 'a\tb')"`, false},
	{`probe $(command echo b) $(\echo c) $(command printf %s d)`, true},
	{`probe $(builtin echo a)`, false},
	{`probe $(printf %s rm) "$(printf '%s\n' a b)" $(printf '%s\n' a b)`, true},
	{`probe "$(printf '%s-' a b c)" "$(printf '%s %s.' a b c)" "$(printf 'x%%y' a)" "$(printf 'x' a b)"`, true},
	{`probe "$(printf '\162m\n\n\n')" "$(printf '\0101|\1012')" "$(printf 'a\\b')"`, true},
	{`probe "$(printf 'a\"')"`, false},
	{`probe "$(printf '\t|\v|\f|\r|\a|\b')" "$(printf -- %s /)" "$(printf %s)" "$(printf '%s\n')"`, true},
	{`probe "$(printf %d 1)" "$(printf %5s a)" "$(printf '\x41')" "$(printf %b 'a\nb')" "$(printf '\e')"`, false},
	{`probe $(dirname /etc/x) $(dirname /etc/x/ a //) $(dirname a/ '' ///x// /a//b//) $(dirname -- -a/b)`, true},
	{`probe $(dirname . .. / //a a/b/c) "$(dirname '/a b/c d')"`, true},
	{`probe $(basename /bin/rm) $(basename /bin/rm/ /) $(basename // x) $(basename a.sh .sh) $(basename .sh .sh)`, true},
	{`probe "$(basename '')" $(basename /a/b.c.c .c) $(basename / /) $(basename ///) $(basename -- -x) $(basename a/b/ b)`, true},
	{`probe $(basename -a x y) $(dirname -z /a) $(basename -s .c a.c)`, false},
	{`x=/etc; probe $(dirname $x/passwd) "$(basename "$x")"`, true},
	{`probe $(echo $(echo /)) "$(dirname "$(echo /a/b)")" $(basename $(dirname /x/y/z))`, true},
	{`c=$(printf %s rm); d="$(dirname /etc/x)"; probe $c "$d"`, true},
	{`IFS=:; probe $(echo a:b)`, false},
	{`probe $(echo '*') "$(echo '*')"`, true},
	{`probe $(echo a | cat) $(echo a >&2) $(echo a; echo b)`, false},
	{`echo() { builtin echo x; }; probe $(echo /)`, false},
	{"probe `echo \\$HOME` \"`echo \\\"a  b\\\"`\"", true},
	{`probe "$(echo "a  b")" $(echo "a  b") $(echo a\ b) $(echo ~) "$(echo ~/x)"`, true},
	{`probe $(printf '%s\n' '  lead' 'trail  ') "$(echo a)"$(echo ' b c ')d`, true},
	{`x='a  b'; probe "$(echo $x)" "$(echo "$x")" $(printf '[%s]' $x)`, true},
	{`set -- 'p q' r; probe $(echo "$@") "$(printf '<%s>' "$@")"`, false}, // set changes the shell: given up
	{`probe $(echo \*) $(echo '[a]')`, false},                             // a glob in the words: given up
}

// TestSubstOracle runs each script under bash (and dash, when present)
// with probe a function that reports its argv, in a jail that sees the
// host read-only, and checks rivumi's probe segments against it.
func TestSubstOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("bwrap not found; the bash oracle needs bubblewrap")
	}
	const probe = `probe() { printf '%s\0' "$#" "$@"; }`
	shells := []string{"bash"}
	if _, err := exec.LookPath("dash"); err == nil {
		// An inline sh -c script is walked as bash, and /bin/sh may be
		// dash: what rivumi knows must hold under both.
		shells = append(shells, "dash")
	}
	for _, sh := range shells {
		for _, tc := range substScripts {
			substCheck(t, bwrap, sh, probe, tc.script, tc.known)
		}
	}
}

func substCheck(t *testing.T, bwrap, sh, probe, script string, known bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	args := []string{"--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
		"--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", home, "--setenv", "LANG", "C.UTF-8",
		"--ro-bind", "/", "/", "--tmpfs", "/tmp", "--tmpfs", "/work", "--dir", workspace, "--chdir", workspace, sh}
	if sh == "bash" {
		args = append(args, "--norc", "--noprofile")
	}
	c := exec.CommandContext(ctx, bwrap, append(args, "-c", probe+"\n"+script)...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	if _, exit := err.(*exec.ExitError); err != nil && !exit || strings.HasPrefix(stderr.String(), "bwrap:") {
		t.Fatalf("%s: %q: %v: %s", sh, script, err, stderr.String())
	}
	ran := splitProbes(stdout.Bytes())
	cmd, err := parser.Parse(script, parser.Workspace(workspace), parser.Home(home), parser.Cwd(workspace))
	if err != nil {
		t.Fatalf("%q: %v", script, err)
	}
	var segs []*parser.Segment
	for _, s := range cmd.Segments {
		if s.Program == "probe" {
			segs = append(segs, s)
		}
	}
	if len(segs) != len(ran) {
		if known || sh == "bash" {
			t.Errorf("%s: %q: ran probe %d times %q, rivumi has %d probe segments", sh, script, len(ran), ran, len(segs))
		}
		return
	}
	for k, s := range segs {
		got, want := fmt.Sprintf("%q", s.Argv), fmt.Sprintf("%q", ran[k])
		dyn := false
		for _, d := range s.Dynamic {
			dyn = dyn || d
		}
		switch {
		case dyn && known:
			t.Errorf("%s: %q: rivumi left %s dynamic; the shell ran %s", sh, script, got, want)
		case !dyn && got != want:
			t.Errorf("%s: %q: rivumi says %s, the shell ran %s", sh, script, got, want)
		case !dyn && !known:
			t.Logf("%s: %q: known as %s (the shell agrees)", sh, script, got)
		}
	}
}

// splitProbes reads the records probe writes: a count, then the words,
// each ended by a NUL; the program name probe is put first.
func splitProbes(b []byte) [][]string {
	fields := strings.Split(string(b), "\x00")
	var out [][]string
	for i := 0; i < len(fields)-1; {
		n := 0
		fmt.Sscan(fields[i], &n)
		i++
		if i+n > len(fields)-1 {
			break
		}
		out = append(out, append([]string{"probe"}, fields[i:i+n]...))
		i += n
	}
	return out
}
