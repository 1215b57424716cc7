package codescan

import "strings"

// AwkResult describes an awk program text.
type AwkResult struct {
	Safe   bool
	Reason string // e.g. "calls system()", "pipes to or from a command", "print redirected to a file", "uses getline", "gawk @include/@load"
}

// Awk reports whether an awk program (the program text, not the command
// line) is free of anything that runs commands, writes or reads other files,
// or loads code.
//
// The program is tokenized, not pattern-matched: string literals ("..." with
// backslash escapes), regular expression literals (/.../, recognised where
// an operand is expected; elsewhere '/' is division) and comments (# to end
// of line) are skipped. In the remaining code the program is unsafe when it
// contains:
//   - the identifier system: "calls system()";
//   - the identifier getline in any form: "uses getline";
//   - the identifiers ARGV or ARGC, whose modification makes awk read other
//     files (even reading them is reported, to keep the rule simple):
//     "uses ARGV/ARGC";
//   - a '|' that is not part of '||' (cmd | getline, print | "cmd", |&):
//     "pipes to or from a command";
//   - a '>' or '>>' that redirects a print or printf statement, i.e. that
//     follows print/printf at the same parenthesis depth before the end of
//     the statement (';', '}', or a newline not following ',', '&&', '||'
//     or '{'): "print redirected to a file". So print $1 > 5 is a
//     redirection, while print ($1 > 5) and if ($1 > 5) print are not;
//     a redirection to awk's own output streams ("/dev/stdout",
//     "/dev/stderr", "/dev/fd/1", "/dev/fd/2") that ends the statement is
//     not a file and stays safe;
//   - @include, @load or @namespace: "gawk @include/@load/@namespace
//     directive"; any other '@' (gawk indirect function calls such as
//     @f(), which can reach system()): "gawk indirect function call";
//   - unbalanced braces or parentheses, an unterminated string or regex;
//   - a regex whose bracket expression contains '/' (/[/]/), where awk
//     implementations disagree on where the regex ends.
//
// Safe is true exactly when none of these is found; Reason names the first
// problem found and is empty when Safe. The files named on the awk command
// line and -v assignments are not part of the program and are not
// considered here; ENVIRON is allowed.
// Awk never panics and runs in time linear in len(program).
func Awk(program string) AwkResult {
	a := awkScanner{s: program}
	if r := a.run(); r != "" {
		return AwkResult{Reason: r}
	}
	return AwkResult{Safe: true}
}

type awkTok int

const (
	tkNone awkTok = iota
	tkComma
	tkAndOr
	tkLBrace
	tkOther
)

type awkScanner struct {
	s          string
	i          int
	paren      int
	brace      int
	operand    bool // a '/' here starts a regex
	inPrint    bool
	printParen int
	last       awkTok
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

// awkStreams are the special files every awk writes to as its own output
// streams (gawk handles them itself; the others open the fd).
var awkStreams = map[string]bool{`"/dev/stdout"`: true, `"/dev/stderr"`: true, `"/dev/fd/1"`: true, `"/dev/fd/2"`: true}

// stdStream consumes a print redirection at a.i to "/dev/stdout" or
// "/dev/stderr" that ends the statement, and reports whether it did. A
// name built on from there ("/dev/stderr" ".log") is a file.
func (a *awkScanner) stdStream() bool {
	j := a.i + 1
	if j < len(a.s) && a.s[j] == '>' {
		j++
	}
	for j < len(a.s) && (a.s[j] == ' ' || a.s[j] == '\t') {
		j++
	}
	end := len(a.s)
	for e := j + 1; e < len(a.s); e++ {
		if a.s[e] == '"' {
			end = e + 1
			break
		}
	}
	if j >= len(a.s) || a.s[j] != '"' || !awkStreams[a.s[j:min(end, len(a.s))]] {
		return false
	}
	n := end
	for n < len(a.s) && (a.s[n] == ' ' || a.s[n] == '\t') {
		n++
	}
	if n < len(a.s) && !strings.ContainsRune(";}\n#", rune(a.s[n])) {
		return false
	}
	a.i = end
	a.operand, a.last = false, tkOther
	return true
}

func (a *awkScanner) run() string {
	a.operand = true
	for a.i < len(a.s) {
		c := a.s[a.i]
		switch {
		case c == '\n':
			a.i++
			if a.inPrint && a.paren <= a.printParen && a.last != tkComma && a.last != tkAndOr && a.last != tkLBrace {
				a.inPrint = false
			}
			a.operand = true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			a.i++
			continue
		case c == '\\':
			// Line continuation; anything else is a stray backslash.
			a.i++
			if a.i < len(a.s) && a.s[a.i] == '\r' {
				a.i++
			}
			if a.i < len(a.s) && a.s[a.i] == '\n' {
				a.i++
			}
			continue
		case c == '#':
			for a.i < len(a.s) && a.s[a.i] != '\n' {
				a.i++
			}
			continue
		case c == '"':
			if !a.str() {
				return "unterminated string"
			}
			a.operand, a.last = false, tkOther
			continue
		case c == '/':
			if a.operand {
				if r := a.regex(); r != "" {
					return r
				}
				a.operand, a.last = false, tkOther
				continue
			}
			a.i++
			a.operand, a.last = true, tkOther
			continue
		case c == '|':
			if a.i+1 < len(a.s) && a.s[a.i+1] == '|' {
				a.i += 2
				a.operand, a.last = true, tkAndOr
				continue
			}
			return "pipes to or from a command"
		case c == '&':
			if a.i+1 < len(a.s) && a.s[a.i+1] == '&' {
				a.i += 2
				a.operand, a.last = true, tkAndOr
				continue
			}
			a.i++
			a.operand, a.last = true, tkOther
			continue
		case c == '>':
			if a.inPrint && a.paren <= a.printParen {
				if a.stdStream() {
					continue // print > "/dev/stderr": the output streams, not a file
				}
				return "print redirected to a file"
			}
			a.i++
			a.operand, a.last = true, tkOther
			continue
		case c == '(':
			a.paren++
			a.i++
			a.operand, a.last = true, tkOther
			continue
		case c == ')':
			a.paren--
			if a.paren < 0 {
				return "unbalanced parentheses"
			}
			a.i++
			a.operand, a.last = false, tkOther
			continue
		case c == '{':
			a.brace++
			a.i++
			a.inPrint = false
			a.operand, a.last = true, tkLBrace
			continue
		case c == '}':
			a.brace--
			if a.brace < 0 {
				return "unbalanced braces"
			}
			a.i++
			a.inPrint = false
			a.operand, a.last = true, tkOther
			continue
		case c == ';':
			a.i++
			if a.paren <= a.printParen {
				a.inPrint = false
			}
			a.operand, a.last = true, tkOther
			continue
		case c == ',':
			a.i++
			a.operand, a.last = true, tkComma
			continue
		case c == ']':
			a.i++
			a.operand, a.last = false, tkOther
			continue
		case c == '@':
			a.i++
			start := a.i
			for a.i < len(a.s) && isIdentChar(a.s[a.i]) {
				a.i++
			}
			switch a.s[start:a.i] {
			case "include", "load", "namespace":
				return "gawk @include/@load/@namespace directive"
			}
			return "gawk indirect function call (@name)"
		case c == '+' || c == '-':
			if a.i+1 < len(a.s) && a.s[a.i+1] == c {
				// ++ and --: treat what follows as division (the
				// conservative choice: a regex is then scanned as code).
				a.i += 2
				a.operand, a.last = false, tkOther
				continue
			}
			a.i++
			a.operand, a.last = true, tkOther
			continue
		case isDigit(c) || (c == '.' && a.i+1 < len(a.s) && isDigit(a.s[a.i+1])):
			for a.i < len(a.s) && (isIdentChar(a.s[a.i]) || a.s[a.i] == '.') {
				a.i++
			}
			a.operand, a.last = false, tkOther
			continue
		case isIdentStart(c):
			start := a.i
			for a.i < len(a.s) && isIdentChar(a.s[a.i]) {
				a.i++
			}
			a.last = tkOther
			switch a.s[start:a.i] {
			case "system":
				return "calls system()"
			case "getline":
				return "uses getline"
			case "ARGV", "ARGC":
				return "uses ARGV/ARGC (can make awk read other files)"
			case "print", "printf":
				a.inPrint = true
				a.printParen = a.paren
				a.operand = true
			case "return", "case", "do", "else", "in", "exit", "delete", "if", "while", "for":
				a.operand = true
			default:
				a.operand = false
			}
			continue
		case c == '$':
			a.i++
			a.operand, a.last = true, tkOther
			continue
		case c < 0x80 && c > ' ':
			// Other operators: = ! ~ < * % ^ ? : [ etc.
			a.i++
			a.operand, a.last = true, tkOther
			continue
		default:
			// Control bytes and non-ASCII: not awk syntax; skip them.
			a.i++
			continue
		}
	}
	if a.brace != 0 {
		return "unbalanced braces"
	}
	if a.paren != 0 {
		return "unbalanced parentheses"
	}
	return ""
}

// str consumes a string literal starting at '"'.
func (a *awkScanner) str() bool {
	a.i++
	for a.i < len(a.s) {
		switch a.s[a.i] {
		case '\\':
			a.i += 2
			continue
		case '"':
			a.i++
			return true
		case '\n':
			return false
		}
		a.i++
	}
	a.i = len(a.s)
	return false
}

// regex consumes a regex literal starting at '/', following gawk's lexer
// (bracket expressions may contain '/'; such regexes are rejected because
// other awks end the regex at that '/').
func (a *awkScanner) regex() string {
	a.i++
	inBrack := 0
	bIndex := -1
	start := a.i
	for a.i < len(a.s) {
		c := a.s[a.i]
		cur := a.i - start
		switch c {
		case '[':
			if (a.i+1 < len(a.s) && a.s[a.i+1] == ':') || inBrack == 0 {
				inBrack++
				if inBrack == 1 {
					bIndex = cur
				}
			}
		case ']':
			if inBrack > 0 && (cur == bIndex+1 || (cur == bIndex+2 && a.s[a.i-1] == '^')) {
				// a literal ']' at the start of a bracket expression
			} else {
				inBrack--
				if inBrack == 0 {
					bIndex = -1
				}
			}
		case '\\':
			a.i += 2
			if a.i > len(a.s) {
				return "unterminated regex"
			}
			continue
		case '/':
			if inBrack > 0 {
				return "regex with '/' inside a bracket expression (awk implementations disagree)"
			}
			a.i++
			return ""
		case '\n':
			return "unterminated regex"
		}
		a.i++
	}
	return "unterminated regex"
}
