package codescan

import (
	"strings"
	"testing"
)

var awkCases = []struct {
	prog   string
	safe   bool
	reason string // substring of Reason when not safe
}{
	// Safe programs.
	{prog: "{print $1}", safe: true},
	// awk's own output streams are not files.
	{prog: `{print > "/dev/stderr"}`, safe: true},
	{prog: `{print $1 >> "/dev/stdout"; n++} END {print n}`, safe: true},
	{prog: `{printf "%s\n", $0 > "/dev/fd/2"}`, safe: true},
	{prog: `{print > "/dev/stderr" ".log"}`, reason: "redirected"},
	{prog: `{print > "/dev/stderrx"}`, reason: "redirected"},
	{prog: `{print > "/dev/sda"}`, reason: "redirected"},
	{prog: "NR==1", safe: true},
	{prog: "$3 > 100 {print}", safe: true},
	{prog: "{ s += $2 } END { print s }", safe: true},
	{prog: "{print ($1 > 2)}", safe: true},
	{prog: "/a|b/ {print}", safe: true},
	{prog: `{ print "a|b" }`, safe: true},
	{prog: `$1 == "x" || $2 == "y"`, safe: true},
	{prog: `BEGIN{FS=":"} {print $1}`, safe: true},
	{prog: "{ if ($1 > 5) print $2 }", safe: true},
	{prog: "{a[$1]++} END {for (k in a) print k, a[k]}", safe: true},
	{prog: "length > 72", safe: true},
	{prog: `{ printf "%s %d\n", $1, $2 }`, safe: true},
	{prog: "{ x = $1 / 2; print x }", safe: true},
	{prog: "{ print $1 / $2 }", safe: true},
	{prog: "$0 ~ /^#/ { next } { print }", safe: true},
	{prog: `{ gsub(/a|b/, "c"); print }`, safe: true},
	{prog: "# comment with system and | and getline\n{print}", safe: true},
	{prog: `{print "system"}`, safe: true},
	{prog: `{print "getline > x | y"}`, safe: true},
	{prog: "{ n = split($0, a, /,/) ; print n }", safe: true},
	{prog: "BEGIN { while (i < 3) i++; print i }", safe: true},
	{prog: "!seen[$0]++", safe: true},
	{prog: "{print $NF}", safe: true},
	{prog: "END{print NR}", safe: true},
	{prog: `{ $1 = ""; print substr($0, 2) }`, safe: true},
	{prog: "{ getline_count++ }", safe: true},
	{prog: "{ mysystem = 1; systems = 2 }", safe: true},
	{prog: "{ x = 1 > 2 }", safe: true},
	{prog: "{ print 1,\n 2 }", safe: true},
	{prog: `$1 ~ "a|b"`, safe: true},
	{prog: "{ print $1\n if ($2 > 3) n++ }", safe: true},
	{prog: "{ print $1 }\n$2 > 3 { n++ }", safe: true},
	{prog: "{ print $1 ;\n x > 3 }", safe: true},
	{prog: "BEGIN { x = 4 / 2 / 1 }", safe: true},
	{prog: "{ print(i > 2) }", safe: true},
	{prog: `{ printf("%d", i > 2) }`, safe: true},
	{prog: `{ print ($1 > $2) ? "a" : "b" }`, safe: true},
	{prog: `/a\/b/ { print }`, safe: true},
	{prog: "/[[:alpha:]]+/", safe: true},
	{prog: "/[]a]/", safe: true},
	{prog: "/[^]a]/", safe: true},
	{prog: "{ x = a /2; y = 3/ b }", safe: true},
	{prog: "{ print } # trailing | comment", safe: true},
	{prog: "function f(x) { return x * 2 } { print f($1) }", safe: true},
	{prog: "{ print \"\xff\" }", safe: true},
	{prog: "", safe: true},
	{prog: "{ close(\"x\"); fflush() }", safe: true},

	// system, getline, pipes.
	{prog: `BEGIN { system("rm -rf /") }`, reason: "calls system()"},
	{prog: `{ system ("x") }`, reason: "calls system()"},
	{prog: `{ print | "sh" }`, reason: "pipes"},
	{prog: `{ "date" | getline d }`, reason: "pipes"},
	{prog: `{ getline line < "/etc/shadow" }`, reason: "uses getline"},
	{prog: "{ getline }", reason: "uses getline"},
	{prog: `{ print |& "cmd" }`, reason: "pipes"},
	{prog: `{ "cmd" |& getline }`, reason: "pipes"},
	{prog: `BEGIN{FS=":"} {print $1 | "sort"}`, reason: "pipes"},

	// Redirections.
	{prog: `{print > "out"}`, reason: "print redirected"},
	{prog: `{printf "%s\n", $1 >> "f"}`, reason: "print redirected"},
	{prog: `{ printf "%s", $0 > "/dev/stderr" }`, safe: true}, // the output stream, not a file (issue 14)
	{prog: "{ print $1 > 5 }", reason: "print redirected"},
	{prog: "{ print $1, $2 > $3 }", reason: "print redirected"},
	{prog: `{ printf("%s\n", $1) > "f" }`, reason: "print redirected"},
	{prog: `{ print "a" > "b" ? 1 : 0 }`, reason: "print redirected"},
	{prog: "{ print $1,\n $2 > \"f\" }", reason: "print redirected"},
	{prog: "{ print $1 &&\n $2 > \"f\" }", reason: "print redirected"},
	{prog: "{ print $1 \\\n > \"f\" }", reason: "print redirected"},
	{prog: `BEGIN { printf "x" > "/inet/tcp/0/h/80" }`, reason: "print redirected"},
	{prog: `{ print("a") > "f" }`, reason: "print redirected"},
	{prog: `{ if (x) print "a" > "f" }`, reason: "print redirected"},
	{prog: `{ print (1)(2) > "f" }`, reason: "print redirected"},
	{prog: `{ for (i = 0; i < 3; i++) print i > "f" }`, reason: "print redirected"},
	{prog: "{ print a[$1 > 2] }", reason: "print redirected"}, // conservative: brackets do not protect

	{prog: `BEGIN { ARGV[1] = "/etc/shadow"; ARGC = 2 } { print }`, reason: "ARGV/ARGC"},
	{prog: `BEGIN { print ARGC }`, reason: "ARGV/ARGC"},
	{prog: `{ myARGV = 1; ARGVx = 2 }`, safe: true},

	// gawk extensions.
	{prog: `@include "x.awk"`, reason: "@include"},
	{prog: `@load "filefuncs"`, reason: "@load"},
	{prog: `@namespace "x"`, reason: "@namespace"},
	{prog: `BEGIN { f = "system"; @f("id") }`, reason: "indirect"},

	// Syntax problems.
	{prog: `{ print "unterminated }`, reason: "unterminated string"},
	{prog: "{ print \"a\nb\" }", reason: "unterminated string"},
	{prog: "{ print $1", reason: "unbalanced braces"},
	{prog: "}", reason: "unbalanced braces"},
	{prog: "{ x = (1 }", reason: "unbalanced parentheses"},
	{prog: "{ x = 1) }", reason: "unbalanced parentheses"},
	{prog: "/unterminated", reason: "unterminated regex"},
	{prog: "/a\nb/", reason: "unterminated regex"},
	{prog: "/[/]/ { print }", reason: "bracket"},

	// Attacker-minded: hiding code in what looks like a string, regex or
	// comment.
	{prog: `/[/]x,/ ; system("id"); y = /z/`, reason: "bracket"},
	{prog: "{ print } # \n BEGIN { system(\"x\") }", reason: "calls system()"},
	{prog: `{ print "a\"b"; system("x") }`, reason: "calls system()"},
	{prog: `{ print "a\\"; system("x") }`, reason: "calls system()"},
	{prog: `/a\/b/ { system("x") }`, reason: "calls system()"},
	{prog: `{ a = 1 / 2 ; system("x") ; b = 3 / 4 }`, reason: "calls system()"},
	{prog: `{ x = a /2; system("x"); y = 3/ b }`, reason: "calls system()"},
	{prog: `{ x = a[1] / 2; system("x"); y = 3 / 1 }`, reason: "calls system()"},
	{prog: `{ x = (a) / 2; system("x"); y = 3 / 1 }`, reason: "calls system()"},
	{prog: `{ x = i++ / 2; system("x"); y = 3 / 1 }`, reason: "calls system()"},
	{prog: "{ print \"x\" }\x00{ system(\"x\") }", reason: "calls system()"},
}

func TestAwk(t *testing.T) {
	for _, tc := range awkCases {
		got := Awk(tc.prog)
		if got.Safe != tc.safe {
			t.Errorf("Awk(%q) = %+v; want safe=%v", tc.prog, got, tc.safe)
			continue
		}
		if got.Safe != (got.Reason == "") {
			t.Errorf("Awk(%q): Safe=%v but Reason=%q", tc.prog, got.Safe, got.Reason)
		}
		if tc.reason != "" && !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("Awk(%q).Reason = %q; want it to contain %q", tc.prog, got.Reason, tc.reason)
		}
	}
}

// Appending a statement that calls system() to any safe program, on a new
// line or inside a new block, must be noticed.
func TestAwkConcatenation(t *testing.T) {
	for _, tc := range awkCases {
		if !tc.safe {
			continue
		}
		for _, tail := range []string{"\nBEGIN { system(\"x\") }", "\n{ print | \"sh\" }", "\n{ print > \"f\" }"} {
			prog := tc.prog + tail
			if got := Awk(prog); got.Safe {
				t.Errorf("Awk(%q) is safe; the appended code was hidden", prog)
			}
		}
	}
}
