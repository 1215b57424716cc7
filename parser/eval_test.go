package parser_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/parser"
)

// TestStaticEval: the argv of the last segment named probe (or of the only
// segment with that program) once values the command set are followed;
// words that cannot be known stay as written and are flagged dynamic
// (shown here with a leading ?).
func TestStaticEval(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		// assignments and quoting
		{`x=rm; probe $x -rf /`, `probe rm -rf /`},
		{`x='a  b'; probe $x "$x"`, `probe a b "a  b"`},
		{`x=a; x+=b; probe $x`, `probe ab`},
		{`x=1 y=$x; probe $y`, `probe 1`},
		{`x=0; declare x=1 y=$x; probe $y`, `probe 0`},
		{"c=$'\\x72m'; probe $c", `probe rm`},
		{`x='*'; probe "$x"`, `probe *`},
		{`x='*'; probe $x`, `probe ?*`},
		// arrays
		{`a=(r m); probe "${a[0]}${a[1]}" "${#a[@]}"`, `probe rm 2`},
		{`a=(x 'y z'); a+=(w); probe "${a[@]}"`, `probe x "y z" w`},
		{`a=({r,m}); probe "${a[@]}"`, `probe r m`},
		{`a=(*); probe "${a[@]}"`, `probe ?"${a[@]}"`},
		{`a=([3]=x); probe "${a[@]}"`, `probe ?"${a[@]}"`},
		// IFS
		{`IFS=,; x="rm,-rf,/"; probe $x`, `probe rm -rf /`},
		{`IFS=,; x="a,,b"; probe $x`, `probe ?$x`},
		{`probe rm${IFS}-rf`, `probe rm -rf`},
		// builtins that set values
		{`printf -v c %s rm; probe "$c"`, `probe rm`},
		{`printf -v c '%s-%s' a b c d; probe "$c"`, `probe a-bc-d`},
		{`printf -v c '%q' x; probe "$c"`, `probe ?"$c"`},
		{`read -r a b <<< "x y z"; probe "$a" "$b"`, `probe x "y z"`},
		{`IFS=, read -r a b <<< "x,y"; probe "$a" "$b" "$IFS"`, `probe x y " \t\n"`},
		{`read -ra arr <<< "p q"; probe "${arr[@]}"`, `probe p q`},
		{`read a <<< 'x\y'; probe "$a"`, `probe ?"$a"`},
		{`read -d , a <<< 'x,y'; probe "$a"`, `probe ?"$a"`},
		{"IFS= read -rd '' a <<< $'x\\ny'; probe \"$a\"", "probe \"x\\ny\\n\""},
		{`set -- a 'b c'; probe "$@" "$#" "$2"`, `probe a "b c" 2 "b c"`},
		{`set -- a b c; shift 2; probe "$@"`, `probe c`},
		{`unset z; : ${z:=rm}; probe $z`, `probe rm`},
		{`x=ls; unset x; probe $x a`, `probe a`},
		// operators
		{`probe "${HOME%/*}" "${HOME##*/}"`, `probe /home dev`},
		{`x=abcabc; probe ${x/b/B} ${x//b/B} ${x:1:2} ${x: -2} ${#x} ${x^^}`, `probe aBcabc aBcaBc bc bc 6 ABCABC`},
		{`x=abc; probe ${x/#a/b}`, `probe ?${x/#a/b}`},
		{`x=abc; probe ${x/b/&}`, `probe ?${x/b/&}`},
		{`x=abc; probe ${x#"a"*}`, `probe ?${x#"a"*}`},
		{`x=abc; probe ${x@Q}`, `probe ?${x@Q}`},
		{`x=; probe "${x:-d}" "${x-e}"`, `probe d ""`},
		{`probe "$PWD" "$OLDPWD"`, `probe /work/proj ?"$OLDPWD"`},
		{`cd /tmp && probe "$PWD" "$OLDPWD"`, `probe /tmp /work/proj`},
		{`probe ~/"$HOME"`, `probe /home/dev//home/dev`},
		// order and scope
		{`x=ls; (x=rm); probe $x`, `probe ls`},
		{`x=ls; true | x=rm; probe $x`, `probe ls`},
		{`x=ls; { x=rm; } & probe $x`, `probe ls`},
		{`x=ls; y=$(x=rm); probe $x`, `probe ls`},
		{`x=ls; x=rm true; probe $x`, `probe ls`},
		{`x=ls; if a; then x=rm; fi; probe $x`, `probe ?$x`},
		{`x=ls; a || x=rm; probe $x`, `probe ?$x`},
		{`x=ls; a && x=rm; probe $x`, `probe ?$x`},
		{`x=ls; a && x=rm && probe $x`, `probe rm`},
		{`x=ls; a || x=rm && probe $x`, `probe ?$x`},
		{`x=ls; case a in a) x=rm;; esac; probe $x`, `probe ?$x`},
		{`x=ls; while a; do probe $x; x=rm; done`, `probe ?$x`},
		{`x=ls; while read -r l; do probe $x; done`, `probe ls`},
		{`x=ls; f() { x=rm; }; f; probe $x`, `probe rm`},
		{`x=ls; f() { x=rm; }; f "$y"; probe $x`, `probe ?$x`},
		{`f() { probe $x; }; x=rm`, `probe ?$x`},
		{`x=ls; eval y=1; probe $x`, `probe ?$x`},
		{`x=ls; $y; probe $x`, `probe ?$x`},
		{`x=ls; source f; probe $x`, `probe ?$x`},
		{`x=ls; ((x=1)); probe $x`, `probe ?$x`},
		{`x=ls; declare -n r=x; r=rm; probe $x`, `probe rm`},
		{`declare -n r=x; x=/; probe $r "${!r}"`, `probe / ?"${!r}"`},
		{`declare -n r=x; f() { :; }; f; r=echo; x=rm; probe $r`, `probe rm`},
		{`declare -n r=x; f() { :; }; f "$y"; r=echo; x=rm; probe $r`, `probe ?$r`},
		{`declare -n r=x; for r in a b; do :; done; x=1; probe $x`, `probe ?$x`},
		{`declare -n r=x; g() { r=a; }; x=1; probe $x`, `probe 1`},
		{`declare -n r; r=a; probe $r`, `probe ?$r`},
		{`declare -n r=x; if a; then declare -n r=y; fi; r=1; probe $x`, `probe ?$x`},
		{`declare -u x=rm; probe $x`, `probe ?$x`},
		{`readonly c=rm; c=ls; probe $c`, `probe rm`},
		{`x=ls; trap 'x=rm' DEBUG; probe $x`, `probe ?$x`},
		{`x=rm; bash -c 'probe $x'`, `probe ?$x`},
		{`x=rm bash -c 'probe $x'`, `probe rm`},
		{`sh -c 'probe "$1"' _ a`, `probe a`},
		{`x=rm; eval 'probe $x'`, `probe rm`},
		{`for c in a b; do probe $c; done`, `probe b`},
		{`for c in a b; do probe $c; break; done`, `probe ?$c`},
		{`x=ls; for c in a b; do x=$c; done; probe $x`, `probe b`},
		{`x=ls; source ./lib.sh; x=ls; myfunc; probe $x`, `probe ?$x`},
		{`command_not_found_handle() { x=rm; }; x=ls; nosuch; probe $x`, `probe ?$x`},
		{`sh -c 'set -- $(a); probe "$1"' _ safe`, `probe ?"$1"`},
		{`sh -c 'shift; probe "$1"' _ a b`, `probe b`},
		{`x=~/.ssh; probe $x`, `probe /home/dev/.ssh`},
		{`x=~; probe "$x"`, `probe /home/dev`},
		{`x=a:~/b; probe "$x"`, `probe a:/home/dev/b`},
		// tildes after ':' in values, and in arguments shaped as assignments
		{`x=a:~:~/c; probe "$x" z=b:~ of=~/x q:~`, `probe a:/home/dev:/home/dev/c z=b:/home/dev of=/home/dev/x q:~`},
		{`x=a:~root; probe "$x"`, `probe ?"$x"`},
		{`x=a:~"b"; probe "$x"`, `probe ?"$x"`},
		{`probe z=~x`, `probe ?z=~x`},
		// mapfile / readarray of a known here-string or heredoc
		{"mapfile -t a <<< $'rm\\n-rf'; probe \"${a[@]}\"", `probe rm -rf`},
		{"readarray a <<< x; probe \"${a[0]}\"", `probe "x\n"`},
		{"mapfile -t a < f; probe \"${a[@]}\"", `probe ?"${a[@]}"`},
		{"mapfile -d , -t a <<< 'x,y'; probe \"${a[@]}\"", `probe ?"${a[@]}"`},
		// a call of a function defined in the text: its body again, $1 … bound
		{`f() { probe "$1" "$#"; }; f 'a b' c`, `probe "a b" 2`},
		{`x=rm; f() { probe $x "$@"; }; f -rf /`, `probe rm -rf /`},
		{`f() { probe "$1"; }; f $y`, `probe ?"$1"`},
		{`f() { x=rm; }; x=ls; f; probe $x`, `probe rm`},
		{`f() { local x=rm; }; x=ls; f; probe $x`, `probe ?$x`},
		{`f() { x=rm; return; }; x=ls; f; probe $x`, `probe ?$x`},
		{`f() ( x=rm ); x=ls; f; probe $x`, `probe ?$x`},
		{`set -- a; f() { set -- b; }; f; probe "$1"`, `probe a`},
		// slices of lists
		{`a=(x rm -rf /); probe "${a[@]:1}" ${a[*]:1:1}`, `probe rm -rf / rm`},
		{`set -- a b c; probe "${@:2}" "${*:1:2}"`, `probe b c "a b"`},
		{`set -- a b; probe "${@:0}"`, `probe ?"${@:0}"`},
		{`a=(x y); probe "${a[@]: -1}"`, `probe ?"\"${a[@]: -1}\""`},
		// indirection
		{`n=x; x='a b'; probe ${!n} "${!n}"`, `probe a b "a b"`},
		{`n=x; probe "${!n}"`, `probe ?"${!n}"`},
		{`n='x[0]'; x=rm; probe "${!n}"`, `probe ?"${!n}"`},
		{`n=x; x=rm; probe "${!n:-d}"`, `probe ?"${!n:-d}"`},
		// explicit indexes, associative arrays
		{`a=([2]=/ [1]=-rf [0]=rm); probe "${a[@]}"`, `probe rm -rf /`},
		{`a=([1]=b [0]=a c); probe "${a[@]}"`, `probe a c`},
		{`a=([0]='x y' [1]=$HOME); probe "${a[@]}"`, `probe "x y" /home/dev`},
		{`a=([0]=$v); probe "${a[@]}"`, `probe ?"${a[@]}"`},
		{`a=([i]=x); probe "${a[@]}"`, `probe ?"${a[@]}"`},
		{`declare -A m=([k]=/etc [0]=z); probe "${m[k]}" $m ${m[none]}`, `probe /etc z`},
		{`declare -A m=([k]=/etc); probe "${m[@]}"`, `probe ?"${m[@]}"`},
		{`declare -A m=([k]=/etc); m=([k]=x); probe "${m[k]}"`, `probe ?"${m[k]}"`},
		{`declare -A m=(k /etc); probe "${m[k]}"`, `probe ?"${m[k]}"`},
		{`x=~root; probe "$x"`, `probe ?"$x"`},
		{`set -u; unset x; probe $x a`, `probe ?$x a`},
		{`set -euo pipefail; unset x; probe ${x:-d}`, `probe d`},
		{`set -u; set +u; unset x; probe $x a`, `probe a`},
		// unknown values stay dynamic
		{`probe $UNSET_X`, `probe ?$UNSET_X`},
		{`x=$(a); probe $x`, `probe ?$x`},
		{`x=$RANDOM; probe $x`, `probe ?$x`},
		{`read x; probe $x`, `probe ?$x`},
	} {
		got, ok := lastProbe(t, tc.cmd)
		if !ok {
			continue
		}
		if got != tc.want {
			t.Errorf("Parse(%q): last probe %s, want %s", tc.cmd, got, tc.want)
		}
	}
}

// lastProbe parses cmd in the tests' context (workspace /work/proj, home
// /home/dev) and shows the argv of its last segment named probe ("" when
// there is none); ok is false, the error reported, when cmd does not
// parse.
func lastProbe(t *testing.T, cmd string) (string, bool) {
	t.Helper()
	c, err := parser.Parse(cmd, parser.Workspace("/work/proj"), parser.Home("/home/dev"))
	if err != nil {
		t.Errorf("Parse(%q): %v", cmd, err)
		return "", false
	}
	var got string
	for _, s := range c.Segments {
		if s.Program == "probe" {
			got = showArgv(s)
		}
	}
	return got, true
}

func showArgv(s *parser.Segment) string {
	parts := make([]string, len(s.Argv))
	for i, a := range s.Argv {
		if a == "" || strings.ContainsAny(a, " \t\n") {
			a = fmt.Sprintf("%q", a)
		}
		if s.Dynamic[i] {
			a = "?" + a
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

// TestStaticEvalTags: a segment with an evaluated word says so; an unknown
// program's tail and the unset reading of ${V:-word} become child segments.
func TestStaticEvalTags(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{`x=rm; $x -rf /`, `; rm -rf / [derived]`},
		{`$SUDO rm -rf /`, `$SUDO rm -rf / [dynamic-program]; rm -rf /`},
		{`$SUDO -u root rm -rf /`, `$SUDO -u root rm -rf / [dynamic-program]; root rm -rf /; rm -rf /`},
		{`$SH -c 'rm -rf /'`, `$SH -c "rm -rf /" [dynamic-program dynamic-code]; rm -rf / [dynamic-code]`},
		{`rm -rf ${T:-/tmp}/x`, `rm -rf ${T:-/tmp}/x [dynamic-args]; rm -rf /tmp/x [derived]`},
	} {
		c, err := parser.Parse(tc.cmd, parser.Workspace("/work/proj"), parser.Home("/home/dev"))
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, s := range c.Segments {
			p := strings.Join(s.Argv, " ")
			if strings.Contains(p, " ") && strings.Contains(tc.want, `"`) && s.Index == 0 {
				p = showArgv(s)
				p = strings.ReplaceAll(p, "?", "")
			}
			var tags []string
			for _, tg := range []string{parser.TagDerived, parser.TagDynamicProgram, parser.TagDynamicCode, parser.TagDynamicArgs} {
				if s.HasTag(tg) {
					tags = append(tags, tg)
				}
			}
			if len(tags) > 0 {
				p += " [" + strings.Join(tags, " ") + "]"
			}
			parts = append(parts, p)
		}
		if got := strings.Join(parts, "; "); got != tc.want {
			t.Errorf("Parse(%q) = %s, want %s", tc.cmd, got, tc.want)
		}
	}
}

// TestStaticEvalBounds: values that double, and long || lists, stay cheap.
func TestStaticEvalBounds(t *testing.T) {
	for _, cmd := range []string{
		"x=ab; " + strings.Repeat("x=$x$x; ", 60) + "probe $x",
		"x=ab; " + strings.Repeat("for i in 1 2 3 4 5 6 7 8; do x=$x$x; done; ", 6) + "probe $x",
		"x=a; probe " + strings.Repeat("$x$x$x$x", 20000),
		"x=aaaaaaaaaa; probe ${x//a/" + strings.Repeat("b", 4000) + "}",
		strings.Repeat("x=1 || ", 900) + "probe $x",
		strings.Repeat("a=1 && b=2 || ", 400) + "probe $a",
	} {
		start := time.Now()
		c, _ := parser.Parse(cmd, parser.Workspace("/work/proj"))
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Parse(%.60q…) took %v", cmd, d)
		}
		for _, s := range c.Segments {
			for _, a := range s.Argv {
				if len(a) > 1<<20 {
					t.Errorf("Parse(%.60q…): a word of %d bytes", cmd, len(a))
				}
			}
		}
	}
}
