//go:build linux

package adversarial_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/parser"
)

// evalScripts end in calls of probe, a program that does not exist: bash
// logs the argv it would run. known says that rivumi's static evaluation
// must know every probe's argv; otherwise it may leave words dynamic, but
// whatever it states as static must be what bash runs.
var evalScripts = []struct {
	script string
	known  bool
}{
	{`x=rm; probe $x -rf /`, true},
	{`x='a  b'; probe $x "$x"`, true},
	{`a=(r m); probe "${a[0]}${a[1]}" "${a[@]}" ${a[*]} "${#a[@]}"`, true},
	{`a=(x 'y z'); a+=(w); probe "${a[@]}" ${a[@]}`, true},
	{`IFS=,; x="rm,-rf,/"; probe $x`, true},
	{`IFS=,; x="a,,b,"; probe $x "$x"`, false},
	{`IFS=; x="a b"; probe $x`, true},
	{`unset IFS; x="a	b c"; probe $x`, true},
	{`printf -v c %s rm; probe "$c"`, true},
	{`printf -v c '%s-%s\n' a b c d; probe "$c"`, true},
	{`read -r a b <<< "rm -rf /"; probe "$a" "$b"`, true},
	{`read -r a b <<< "  x   y  z  "; probe "[$a]" "[$b]"`, true},
	{`IFS=, read -r a b <<< "x,y"; probe "$a" "$b" "$IFS"`, true},
	{`read -ra arr <<< "p q  r"; probe "${arr[@]}"`, true},
	{`for c in rm ls; do probe $c -rf /; done`, true},
	{`for c in a b; do x=$c$x; done; probe "$x"`, false},
	{`x=; for c in a b; do x=$c$x; done; probe "$x"`, true},
	{`IFS=,; x=",a"; probe $x`, false},
	{`IFS=,; x="a,"; y=",b"; probe $x$y`, false},
	{`probe "${HOME%/*}" "${HOME#/}" "${HOME##*/}" "${HOME%%/d*}"`, true},
	{`probe ${TMPDIR:-/tmp} "${UNSET_X-d}" 2>/dev/null`, false},
	{`x=abcabc; probe ${x/b/B} ${x//b/B} ${x:1:2} ${x: -2} ${#x} ${x^^} ${x^}`, true},
	{`x=; probe "${x:-d}" "${x-e}" "${x:+f}" "${x+g}"`, true},
	{`unset y; probe "${y:-d}" "${y-e}" "${y:+f}" "${y+g}"`, true},
	{`unset z; : ${z:=rm}; probe $z`, true},
	{`probe "$PWD" $PWD/../..`, true},
	{`cd /tmp && probe "$PWD" "$OLDPWD"`, true},
	{`OLDPWD=/; cd - >/dev/null && probe "$PWD"`, true},
	{`set -- a 'b c' d; probe "$@" $* "$#" "$2"`, true},
	{`set -- a b c; shift 2; probe "$@" "$1"`, true},
	{`x=1 y=$x; probe "$y"`, true},
	{`x=0; declare x=1 y=$x; probe "$y"`, true},
	{`export x=rm; probe "$x"`, true},
	{`x=ls; (x=rm); probe $x`, true},
	{`x=ls; true | x=rm; probe $x`, true},
	{`x=ls; { x=rm; } & wait; probe $x`, true},
	{`x=ls; y=$(x=rm); probe $x`, true},
	{`readonly c=rm; probe $c`, true},
	{`x=a; x+=b; probe $x`, true},
	{"c=$'\\x72m'; probe $c", true},
	{`x='*'; probe "$x"`, true},
	{`x=ls; x=rm true; probe $x`, true},
	{`export -f command_not_found_handle; x=rm /oracle/bash -c 'probe "$x"'`, true},
	{`export -f command_not_found_handle; x=rm; /oracle/bash -c 'probe "$x"'`, false},
	{`export -f command_not_found_handle; export x=rm; /oracle/bash -c 'probe "$x" "$HOME"'`, true},
	{`export -f command_not_found_handle; /oracle/bash -c 'probe "$1" $2' _ a 'b c'`, true},
	{`x=rm; eval 'probe $x'`, true},
	{`x=ls; if true; then x=rm; fi; probe $x`, false},
	{`x=ls; true || x=rm; probe $x`, false},
	{`x=ls; false && x=rm; probe $x`, false},
	{`x=ls; f() { x=rm; }; f; probe $x`, false},
	{`x=ls; eval x=rm; probe $x`, false},
	{`x=ls; while false; do x=rm; done; probe $x`, false},
	{`x=ls; declare -u x=rm; probe $x`, false},
	{`x=ls; declare -n r=x; r=rm; probe $x`, false},
	{`x=ls; read x <<< rm; probe $x`, true},
	{`x=ls; unset x; probe $x a`, true},
	{`x=ls; case a in a) x=rm ;& b) probe $x ;; esac`, false},
	{`d=/; probe $d/tmp "$d"`, true},
	{`x=~/.ssh; y=~; probe $x "$y"`, true},
	{`set -u; unset x; probe "${x-d}" "${x:+e}"`, true},
	{`set -u; set +u; unset x; probe $x a`, true},
	{"export -f command_not_found_handle; x=rm; y='a b'; /oracle/bash <<EOF\nprobe $x \"$y\" '$x' ${y%b}\nEOF", true},
	{"export -f command_not_found_handle; x=rm; /oracle/bash <<'EOF'\nprobe $x\nEOF", false},
	{`x=é; probe ${#x} ${x:0:1}`, false},
	{`n='x=1'; x=ls; (( n )); probe $x`, false},
	{`sh_x=rm; for c in a b c; do probe "$c$sh_x"; done`, true},
	{`x=ls; select y in a; do break; done </dev/null; probe $x`, true},
	{`HOME=/tmp; cd && probe "$PWD"`, true},
	// Substitutions of pure programs (issue 33; dirname and basename, which
	// the jail replaces by loggers, are in substoracle_test.go).
	{`probe $(printf %s rm) -rf "$(echo /)" $(echo a  b)`, true},
	{"x=/; probe `echo $x` \"$(printf '%s\\n\\n' \"$x\")\" $(echo $(echo -n /))", true},
	{`c=$(echo rm); probe $c "$(printf '%s-' a b)"`, true},
	{`probe $(echo -e 'a\tb') $(printf %d 1)`, false},
	// Indirection, explicit indexes, associative arrays, tildes after ':'
	// (issue 33).
	{`n=x; x='a  b'; probe ${!n} "${!n}"`, true},
	{`n=x; unset x; probe "${!n}" a`, true},
	{`n='x[1]'; x=(a b); probe "${!n}"`, false},
	{`n=x; x=(a b); probe "${!n}"`, false},
	{`a=([2]=/ [1]=-rf [0]=rm); probe "${a[@]}" ${a[*]} "${#a[@]}"`, true},
	{`a=([1]=b [0]=a c [0]=d); probe "${a[@]}"`, true},
	{`x='p  q'; a=([0]=$x [1]=*); probe "${a[@]}"`, false},
	{`a=([0]='x  y' [1]="$HOME"); probe "${a[@]}"`, true},
	{`a=([3]=x); probe "${a[@]}"`, false},
	{`declare -A m=([k]=/etc [0]=z [a_b]=c); probe "${m[k]}" $m ${m[none]} "${m[a_b]}"`, true},
	{`declare -A m=([k]='a  b'); probe ${m[k]} "${m[k]}"`, true},
	{`declare -A m=([k]=x [j]=y [l]=z); probe "${m[@]}"`, false},
	{`declare -A m=(k v); probe "${m[k]}"`, false},
	{`x=a:~:~/c; y=~/d:~; probe "$x" "$y"`, true},
	{`probe z=b:~ of=~/x q:~ b+=~ 1x=~ --o=~`, true},
	{`probe a[1]=~`, false},
	{`x=ls; declare -n r=x; r=rm; probe $x "$r"`, true},
	{`declare -n r=x; x='a  b'; probe $r "$r"`, true},
	{`declare -n r=x; read -r r <<< 'p q'; probe "$x"`, true},
	{`declare -n r=x; printf -v r %s rm; probe "$x"`, true},
	{`x=ls; declare -n r=x; unset r; probe "$x" a`, true},
	{`declare -n r=x; declare -n s=r; s=rm; probe "$x" "$r" "$s"`, true},
	{`declare -n r=x; x=a; r+=b; probe "$x"`, true},
	{`declare -n r=x; for r in a b; do :; done; probe "$r"`, false},
	{`declare -n r=x; x=ls; (r=rm); probe "$x"`, true},
	{`declare -n r=x; IFS=,; x=rm,-rf; probe $r`, true},
	{`x=a:~root; probe "$x"`, false},
	{"IFS= read -rd '' c <<< $'rm  -rf\\n/'; probe \"$c\" $c", true},
	{"read -rd '' a b <<< $'  x  y\\nz  '; probe \"[$a]\" \"[$b]\"", true},
	{"read -rd '' -a arr <<< $'p q\\nr'; probe \"${arr[@]}\"", true},
	{`a=(x rm '-rf  x' /); probe "${a[@]:1}" ${a[@]:1:2} "${a[*]:2}" "${a[@]:9}" z`, true},
	{`set -- a 'b  c' d; probe "${@:2}" ${@:1:2} "${*:2:1}"`, true},
	{`set -- a b; probe "${@:0}" "${a[@]: -1}"`, false},
	{`f() { probe "$1" "$#" "$@"; }; f 'a  b' c`, true},
	{`x=rm; f() { shift; probe $x "$@"; }; f a -rf /`, true},
	{`g() { probe "$1" "$2"; }; f() { g "$1/" x; }; f /etc`, true},
	{`f() { x=rm; y=$1; }; x=ls; f -rf; probe $x $y`, true},
	{`f() { cd /tmp; }; f; probe "$PWD" "$OLDPWD"`, false},
	{`f() { cd /tmp && y=$PWD; }; f && probe "$y"`, false},
	{`set -- a b; f() { shift; set -- z; }; f; probe "$@"`, true},
	{`f() { local x=rm; }; x=ls; f; probe $x`, false},
	{`f() { x=rm; return; }; x=ls; f; probe $x`, false},
	{`f() { x=rm; }; x=ls; f | cat; probe $x`, true},
	{"mapfile -t a <<< $'rm\\n-rf  x\\n\\n/'; probe \"${a[@]}\" \"${#a[@]}\"", true},
	{"readarray a <<'E'\np q\nr\nE\nprobe \"${a[@]}\"", true},
	{"mapfile -t b <<< ''; probe \"${#b[@]}\" \"${b[@]}\" z", true},
	{`x=a:~"b"; probe "$x" c=~"d"`, false},
}

func TestEvalOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	sb := newSandbox(t)
	ctx := context.Background()
	for i, tc := range evalScripts {
		calls, err := sb.run(ctx, i, tc.script)
		if err != nil {
			t.Fatalf("%q: %v", tc.script, err)
		}
		var ran [][]string
		for _, c := range calls {
			if len(c) > 0 && c[0] == "probe" {
				ran = append(ran, c)
			}
		}
		c, err := parser.Parse(tc.script, parser.Workspace(workspace), parser.Home(home), parser.Cwd(workspace))
		if err != nil {
			t.Fatalf("%q: %v", tc.script, err)
		}
		// The probes bash runs; the readings graded beside an unknown word
		// (${V:-word} with V unset) are children, checked against the jail,
		// where no such V is set.
		// A function's body is walked where it is defined (nothing known)
		// and again below each call with known arguments: bash runs the
		// calls, so those readings are what it is compared with.
		called := false
		for _, s := range c.Segments {
			called = called || s.Program == "probe" && s.Kind == parser.KindFunction && s.Parent >= 0
		}
		var segs []*parser.Segment
		alt := map[int]*parser.Segment{}
		for _, s := range c.Segments {
			if s.Program != "probe" || called && s.Kind == parser.KindFunction && s.Parent < 0 {
				continue
			}
			if s.Kind == parser.KindExec && s.Parent >= 0 {
				alt[s.Parent] = s
				continue
			}
			segs = append(segs, s)
		}
		if len(segs) != len(ran) {
			t.Errorf("%q: bash ran probe %d times %q, rivumi has %d probe segments", tc.script, len(ran), ran, len(segs))
			continue
		}
		for k, s := range segs {
			dyn := false
			for _, d := range s.Dynamic {
				dyn = dyn || d
			}
			got := fmt.Sprintf("%q", s.Argv)
			want := fmt.Sprintf("%q", ran[k])
			if a := alt[s.Index]; dyn && a != nil {
				if g := fmt.Sprintf("%q", a.Argv); g != want {
					t.Errorf("%q: rivumi's reading with the unknown variables unset is %s, bash ran %s", tc.script, g, want)
				}
			}
			switch {
			case dyn && tc.known:
				t.Errorf("%q: rivumi left %s dynamic; bash ran %s", tc.script, got, want)
			case !dyn && got != want:
				t.Errorf("%q: rivumi says %s, bash ran %s", tc.script, got, want)
			case !dyn && !tc.known:
				t.Logf("%q: known as %s (bash agrees)", tc.script, strings.Join(s.Argv, " "))
			}
		}
	}
}
