package parser_test

import (
	"strings"
	"testing"

	"github.com/rivumi/rivumi/parser"
)

// TestPureSubst: command substitutions of pure programs (echo, printf,
// dirname, basename) whose words are known have the output bash gives
// them; anything not modelled stays unknown (shown with a leading ?), and
// the substituted command is still a segment of its own.
func TestPureSubst(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		// echo
		{`probe $(echo /)`, `probe /`},
		{`probe $(echo rm -rf /)`, `probe rm -rf /`},
		{`probe "$(echo rm -rf /)"`, `probe "rm -rf /"`},
		{`probe "$(echo hi)" x`, `probe hi x`},
		{"probe `echo /`", `probe /`},
		{"probe \"`echo a  b`\"", `probe "a b"`},
		{`probe $(echo -n a)b`, `probe ab`},
		{`probe $(echo -- x)`, `probe -- x`},
		{`probe $(echo -nx)`, `probe -nx`},
		{`probe $(echo -e a)`, `probe ?"$(echo -e a)"`}, // bash takes -e, dash prints it
		{`probe $(echo -e 'a\tb')`, `probe ?"$(echo -e 'a\\tb')"`},
		{`probe $(echo 'a\tb')`, `probe ?"$(echo 'a\\tb')"`}, // dash reads the escape
		{`probe x$(echo)y`, `probe xy`},
		{`probe "$(echo)"`, `probe ""`},
		{`probe $(echo)`, `probe`},
		{`probe $(builtin echo /)`, `probe ?"$(builtin echo /)"`}, // not in dash
		{`probe $(echo -n -n x)`, `probe ?"$(echo -n -n x)"`},
		{`probe $(printf '\"')`, `probe ?"$(printf '\\\"')"`},
		{`probe $(command echo /)`, `probe /`},
		{`probe $(\echo /)`, `probe /`},
		// printf
		{`probe $(printf %s rm)`, `probe rm`},
		{`probe $(printf '%s\n' a b)`, `probe a b`},
		{`probe "$(printf '%s\n' a b)"`, `probe "a\nb"`},
		{`probe "$(printf '%s-' a b c)"`, `probe a-b-c-`},
		{`probe "$(printf '%s %s.' a b c)"`, `probe "a b.c ."`},
		{`probe "$(printf 'x%%y' a)"`, `probe x%y`},
		{`probe "$(printf '\162m')"`, `probe rm`},
		{`probe "$(printf -- %s /)"`, `probe /`},
		{`probe $(printf %d 1)`, `probe ?"$(printf %d 1)"`},
		{`probe $(printf %5s a)`, `probe ?"$(printf %5s a)"`},
		{`probe $(printf -v x a)`, `probe ?"$(printf -v x a)"`},
		{`probe $(printf '\x41')`, `probe ?"$(printf '\\x41')"`},
		{`probe $(printf '\0')`, `probe ?"$(printf '\\0')"`},
		{`probe $(printf %b 'a\nb')`, `probe ?"$(printf %b 'a\\nb')"`},
		// dirname, basename
		{`probe $(dirname /etc/x)`, `probe /etc`},
		{`probe $(dirname /etc/x/ a //)`, `probe /etc . /`},
		{`probe $(dirname a/ '' ///x//)`, `probe . . /`},
		{`probe $(dirname -z /a)`, `probe ?"$(dirname -z /a)"`},
		{`probe $(dirname -- -a/b)`, `probe -a`},
		{`probe $(basename /bin/rm)`, `probe rm`},
		{`probe $(basename /bin/rm/ /)`, `probe rm`},
		{`probe $(basename // x)`, `probe /`},
		{`probe $(basename a.sh .sh) $(basename .sh .sh)`, `probe a .sh`},
		{`probe "$(basename '')"`, `probe ""`},
		{`probe $(basename -a x y)`, `probe ?"$(basename -a x y)"`},
		{`probe $(basename a b c)`, `probe ?"$(basename a b c)"`},
		// known values, nesting
		{`x=/etc; probe $(dirname $x/passwd)`, `probe /etc`},
		{`probe $(echo $(echo /))`, `probe /`},
		{`probe "$(dirname "$(echo /a/b)")"`, `probe /a`},
		{`c=$(printf %s rm); probe $c`, `probe rm`},
		{`probe <<< $(echo x)`, `probe`},
		// splitting follows IFS; globs are not resolved
		{`IFS=:; probe $(echo a:b)`, `probe ?"$(echo a:b)"`},
		{`IFS=; probe $(echo a b)`, `probe ?"$(echo a b)"`}, // IFS changed: given up

		{`probe $(echo '*')`, `probe *`},
		{`probe $(echo *)`, `probe ?"$(echo *)"`},
		// not pure, or shadowed: unknown
		{`probe $(echo a | cat)`, `probe ?"$(echo a | cat)"`},
		{`probe $(echo a >&2)`, `probe ?"$(echo a >&2)"`},
		{`probe $(x=1 echo a)`, `probe ?"$(x=1 echo a)"`},
		{`probe $(echo a; echo b)`, `probe ?"$(echo a; echo b)"`},
		{`probe $(cat /etc/x)`, `probe ?"$(cat /etc/x)"`},
		{`probe $(echo $UNSET_X)`, `probe ?"$(echo $UNSET_X)"`},
		{`echo() { :; }; probe $(echo /)`, `probe ?"$(echo /)"`},
		{`PATH=/tmp; probe $(dirname /a/b)`, `probe ?"$(dirname /a/b)"`},
		{`source x; probe $(dirname /a/b)`, `probe ?"$(dirname /a/b)"`},
		{`probe ${x:-$(echo /)}`, `probe ?"${x:-$(echo /)}"`},
		{`probe $(echo $((1+1)))`, `probe ?"$(echo $((1+1)))"`},
	} {
		got, ok := lastProbe(t, tc.cmd)
		if !ok {
			continue
		}
		if got != tc.want {
			t.Errorf("Parse(%q): probe %s, want %s", tc.cmd, got, tc.want)
		}
	}
}

// TestPureSubstSegments: a substitution whose output is known still runs
// its command, which stays a child segment of the command using it.
func TestPureSubstSegments(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{`rm -rf "$(echo /)"`, `rm -rf / [derived] ; echo / <-0`},
		{`$(printf %s rm) -rf /`, `rm -rf / [derived] ; printf %s rm <-0`},
		{`x=$(basename /bin/rm)`, ` ; basename /bin/rm <-0`},
		{`probe $(echo $(echo /))`, `probe / [derived] ; echo / [derived] <-0 ; echo / <-1`},
	} {
		c, err := parser.Parse(tc.cmd, parser.Workspace("/work/proj"), parser.Home("/home/dev"))
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, s := range c.Segments {
			p := strings.Join(s.Argv, " ")
			if s.HasTag(parser.TagDerived) {
				p += " [derived]"
			}
			if s.Parent >= 0 {
				p += " <-" + string(rune('0'+s.Parent))
			}
			parts = append(parts, p)
		}
		if got := strings.Join(parts, " ; "); got != tc.want {
			t.Errorf("Parse(%q) = %s, want %s", tc.cmd, got, tc.want)
		}
	}
}
