package codescan

import (
	"path"
	"strings"
	"sync"

	"github.com/rivumi/rivumi/programs"
)

// The certain half of Scan: what the code provably does with constant
// arguments, read from its calls rather than from names that merely occur.
// The floor may deny on this evidence; the flags (Spawns, Destructive,
// Network, Dynamic) stay co-occurrence heuristics that only ever ask.
//
// The analysis walks the token stream of the lexer statement by statement
// (statements end at ';', a newline or a brace outside parentheses and
// brackets) and keeps, in source order: constant values assigned to
// variables (NAME = 'text', NAME = ['a', 'b'], with my/local/let/const/var
// and sigils), variables assigned from an expression that reads the network,
// module aliases (import x as y, from x import a, y = require('x'),
// const {a} = require('x'), import {a} from 'x') and the working directory
// set by chdir('/literal'). A value is constant only when it is built from
// literals without interpolation ('a' 'b', 'a' + 'b', 'a' . 'b', 'a' .. 'b')
// or from a few expressions whose value is known: the home directory
// (os.path.expanduser('~'), Path.home(), os.homedir(), Dir.home, $ENV{HOME},
// ENV['HOME'], os.environ['HOME'], getenv('HOME'), process.env.HOME) and
// path wrappers of a constant (Path('/'), Pathname.new('/'),
// File.expand_path('~')).

// certainty is the evidence the call analysis found.
type certainty struct {
	commands []string // shell command lines run with constant arguments
	destroys []string // constant paths deleted, moved away or overwritten
	fetchRun bool     // evaluates (or runs as a command) data read from the network
	revShell bool     // runs commands read from a socket
	shellArg bool     // a command call is handed a literal that starts with a shell ("/bin/sh -i <&%d")
	wiring   bool     // file descriptors wired to stdio: dup2, fileno, reopen, .pipe(, <& or >& in a literal
}

type cvalue struct {
	kind  byte // 0 unknown, 's' string, 'l' list of strings
	s     string
	list  []string
	holes bool // parts are not known: each is a shell variable $__v in s (a command, never a path)
}

type callAnalysis struct {
	sc      *scanner
	src     string
	tcl     bool // tcl and expect: spawn and exec run the words after them
	awk     bool
	toks    []token
	vars    map[string]cvalue
	fetched map[string]bool // variables holding data read from the network
	socket  map[string]bool // variables holding data read from a raw socket
	alias   map[string]string
	cwd     string // directory set by a constant chdir, "" when unknown or not set
	out     certainty
	seen    map[string]bool
	match   []int // the index of the bracket matching each bracket, -1 for others
	budget  int   // tokens left to visit; the analysis stops when it runs out (linear time)
}

func (sc *scanner) certain(lang, code string) certainty {
	awk := false
	switch language(lang) {
	case "awk", "gawk", "mawk", "nawk":
		awk = true
	}
	if !worthCalls(code, awk, sc.mask&(mPerl|mRuby|mPHP|mGen) != 0) {
		return certainty{}
	}
	toks := make([]token, 0, len(code)/3+16)
	lx := lexer{src: code, st: sc.style, toks: &toks, emit: func(lit) {}}
	lx.run()
	// Newlines become a flag on the token after them, and brackets are
	// matched once, so that every step below is linear.
	clean := toks[:0]
	nl := false
	for _, t := range toks {
		if t.kind == tNewline {
			nl = true
			continue
		}
		if t.end < 0 {
			t.end = len(code)
		}
		t.nl, nl = nl, false
		t.idx = len(clean)
		clean = append(clean, t)
	}
	toks = clean
	match := make([]int, len(toks))
	var stack []int
	for k, t := range toks {
		match[k] = -1
		switch {
		case t.punct('(') || t.punct('[') || t.punct('{'):
			stack = append(stack, k)
		case t.punct(')') || t.punct(']') || t.punct('}'):
			if n := len(stack); n > 0 && closingOf(toks[stack[n-1]].text[0]) == t.text[0] {
				match[stack[n-1]], match[k] = k, stack[n-1]
				stack = stack[:n-1]
			}
		}
	}
	a := &callAnalysis{sc: sc, src: code, toks: toks, match: match, budget: 16*len(toks) + 4096, vars: map[string]cvalue{},
		fetched: map[string]bool{}, socket: map[string]bool{}, alias: map[string]string{}, seen: map[string]bool{}}
	a.awk = awk
	a.tcl = language(lang) == "tcl"
	for _, st := range a.statements() {
		if !a.spend(len(st)) {
			break
		}
		a.statement(st)
	}
	return a.out
}

// triggers are the identifiers without which the call analysis finds
// nothing: the last part of every sink's name, and a few more.
// (Filled by loadSinks, after the sinks; read through triggerTable.)
var triggers map[string]bool

// sinksOnce fills sinks and triggers on first use: building them at
// initialisation would cost every rivumi process, most of which scan no
// code. sinkTable and triggerTable are the only readers.
var sinksOnce sync.Once

// sinkTable returns sinks, filled.
func sinkTable() map[string][]sink {
	sinksOnce.Do(loadSinks)
	return sinks
}

// triggerTable returns triggers, filled.
func triggerTable() map[string]bool {
	sinksOnce.Do(loadSinks)
	return triggers
}

func makeTriggers() map[string]bool {
	m := map[string]bool{"open": true, "chdir": true, "qx": true, "program": true, "execute": true, "script": true,
		"Remove": true, "remove": true, "rm": true, "del": true, "erase": true, "rd": true, "ri": true, "Set": true,
		"Clear": true, "Out": true, "spawn": true, "saps": true, "Start": true, "start": true, "sh": true, "bash": true,
		"cmd": true, "wsl": true, "zsh": true}
	for n := range sinks {
		if k := strings.LastIndexByte(n, '.'); k >= 0 {
			n = n[k+1:]
		}
		m[n] = true
	}
	for n := range receiverDestroy {
		m[n] = true
	}
	return m
}

// worthCalls is a cheap first pass: does code name any trigger, or hold an
// awk pipe, or (in languages where they run commands) a backtick or %x?
func worthCalls(code string, awk, backticks bool) bool {
	for i := 0; i < len(code); {
		c := code[i]
		switch {
		case c == '|' && awk:
			return true
		case backticks && (c == '`' || c == '%' && i+1 < len(code) && code[i+1] == 'x'):
			return true
		case isIdentStart(c):
			j := i + 1
			for j < len(code) && isIdentChar(code[j]) {
				j++
			}
			if triggerTable()[code[i:j]] {
				return true
			}
			i = j
			continue
		}
		i++
	}
	return false
}

func (t token) is(kind byte, text string) bool { return t.kind == kind && t.text == text }

func (t token) punct(c byte) bool { return t.kind == tPunct && len(t.text) == 1 && t.text[0] == c }

// statements splits the tokens at ';', newlines and braces outside
// parentheses and brackets. A newline does not end a statement after a
// backslash, a comma, an operator or an opening bracket, nor before a line
// starting with '.' (a method chain).
func (a *callAnalysis) statements() [][]token {
	var out [][]token
	depth, from := 0, 0
	var braces []bool // for each open brace: a literal ({a: 1}, {execSync} = …), not a block
	cut := func(k int) {
		if k > from {
			out = append(out, a.toks[from:k])
		}
		from = k + 1
	}
	for k, t := range a.toks {
		switch {
		case t.punct('(') || t.punct('['):
			depth++
		case t.punct(')') || t.punct(']'):
			if depth > 0 {
				depth--
			}
		case depth == 0 && t.punct('{'):
			lit := k > from && braceLiteral(a.toks[k-1]) || k == from && k+1 < len(a.toks) && a.destructuring(k)
			braces = append(braces, lit)
			if lit {
				depth++
			} else {
				cut(k)
			}
		case t.punct('{'):
			depth++
			braces = append(braces, true)
		case t.punct('}'):
			lit := true
			if n := len(braces); n > 0 {
				lit, braces = braces[n-1], braces[:n-1]
			}
			if lit && depth > 0 {
				depth--
			} else {
				cut(k)
			}
		case depth == 0 && t.punct(';'):
			cut(k)
		}
		if depth == 0 && k+1 < len(a.toks) && a.toks[k+1].nl && !continues(t) && !a.toks[k+1].punct('.') && from <= k {
			cut(k + 1)
			from = k + 1
		}
	}
	cut(len(a.toks))
	return out
}

func continues(t token) bool {
	if t.kind != tPunct {
		return false
	}
	return strings.Contains(`\,+-*/=&|.(<>`, t.text)
}

// braceLiteral reports whether a brace after t opens a literal (a hash, a
// dict, a destructuring pattern) rather than a block.
func braceLiteral(t token) bool {
	switch t.kind {
	case tPunct:
		return strings.Contains("=,:([", t.text)
	case tIdent:
		switch t.text {
		case "const", "let", "var", "import", "export", "return":
			return true
		}
	}
	return false
}

// destructuring reports a statement starting with a brace that is a
// pattern: {a, b} = require('x').
func (a *callAnalysis) destructuring(k int) bool {
	e := a.matching(a.toks, k)
	return e+1 < len(a.toks) && a.toks[e+1].punct('=')
}

// spend takes n from the budget and reports whether any was left.
func (a *callAnalysis) spend(n int) bool {
	a.budget -= n + 1
	return a.budget > 0
}

// matching returns the index in ts of the bracket matching the one at k, or
// len(ts) when it is not in ts.
func (a *callAnalysis) matching(ts []token, k int) int {
	m := a.match[ts[k].idx]
	if m < 0 {
		return len(ts)
	}
	local := m - ts[0].idx
	if local < 0 || local >= len(ts) {
		return len(ts)
	}
	return local
}

// splitArgs splits ts at commas outside brackets.
func splitArgs(ts []token) [][]token {
	var out [][]token
	depth, from := 0, 0
	for k, t := range ts {
		switch {
		case t.punct('(') || t.punct('[') || t.punct('{'):
			depth++
		case t.punct(')') || t.punct(']') || t.punct('}'):
			depth--
		case depth == 0 && t.punct(','):
			out = append(out, ts[from:k])
			from = k + 1
		}
	}
	if from < len(ts) {
		out = append(out, ts[from:])
	}
	return out
}

var declWords = map[string]bool{"my": true, "our": true, "local": true, "const": true, "let": true, "var": true, "export": true}

func (a *callAnalysis) statement(st []token) {
	a.imports(st)
	a.assignment(st)
	for k := 0; k < len(st); k++ {
		t := st[k]
		if t.kind == tLit && t.cmd {
			if t.interp {
				a.command(a.holeText(t.text))
			} else {
				a.command(t.text) // `rm -rf /`, qx{…}, %x(…)
			}
		}
		if t.kind == tLit && (strings.Contains(t.text, "<&") || strings.Contains(t.text, ">&")) {
			a.out.wiring = true // "/bin/sh -i <&3 >&3", open(STDIN, ">&S")
		}
		if t.kind != tIdent {
			continue
		}
		switch t.text {
		case "dup2", "dup", "fileno", "reopen":
			a.out.wiring = true // os.dup2(s.fileno(), 0), $stdin.reopen(sock)
		case "pipe":
			if k > 0 && st[k-1].punct('.') {
				a.out.wiring = true // client.pipe(sh.stdin)
			}
		}
		full := a.fullName(st, k)
		bare := t.text
		if bare == "program" && k >= 2 && st[k-1].punct('-') && st[k-2].is(tIdent, "run") {
			full, bare = "run-program", "run-program"
		}
		interesting := len(a.sinksFor(full, bare)) > 0 || receiverDestroy[bare] || bare == "open" ||
			bare == "chdir"
		if !interesting {
			continue
		}
		var args [][]token
		switch {
		case k+1 < len(st) && st[k+1].punct('('):
			e := a.matching(st, k+1)
			if !a.spend(e - k) {
				return
			}
			args = splitArgs(st[k+2 : min(e, len(st))])
		case k+1 < len(st) && a.cmdForm(st, k):
			if !a.spend(len(st) - k) {
				return
			}
			args = a.elems(st[k+1 : groupEnd(st, k+1)])
		default:
			if a.evalName(full, t.text) && a.regionNetwork(st) {
				a.out.fetchRun = true // fetch(u).then(r => r.text()).then(eval)
			}
			continue
		}
		a.call(st, k, full, t.text, args)
	}
	if a.awk {
		a.awkPipes(st)
	}
	a.otherForms(st)
}

// otherForms reads command shapes of languages without a scanner of their
// own and of AppleScript and PowerShell: do shell script "…", "…".! (scala),
// "…".execute() (groovy), Remove-Item PATH.
func (a *callAnalysis) otherForms(st []token) {
	if len(st) > 1 && st[0].kind == tIdent && (a.tcl && (st[0].text == "exec" || st[0].text == "spawn") ||
		a.sc.mask&mPwsh != 0 && isShellWord(st[0].text)) {
		// spawn sh -c "…" (expect), bash -c '…' run from PowerShell: the
		// words are a shell command (their quoting is close enough).
		if a.tcl {
			a.command(joinArgv(a.words(st[1:])))
		} else {
			a.command(a.src[st[0].start:st[len(st)-1].end])
		}
	}
	if a.sc.mask&mPwsh != 0 && len(st) > 2 && st[0].kind == tIdent && (strings.EqualFold(st[0].text, "saps") ||
		strings.EqualFold(st[0].text, "start") && st[1].punct('-') && strings.EqualFold(st[2].text, "process")) {
		// Start-Process PROG -ArgumentList 'a','b'
		k := 1
		if !strings.EqualFold(st[0].text, "saps") {
			k = 3
		}
		var words []string
		for ; k < len(st); k++ {
			t := st[k]
			switch {
			case t.punct('-') && k+1 < len(st) && st[k+1].kind == tIdent:
				k++ // an option name: -ArgumentList, -NoNewWindow
			case t.kind == tLit:
				words = append(words, t.text)
			case t.kind == tIdent && len(words) == 0:
				words = append(words, t.text)
			}
		}
		if len(words) > 0 {
			a.command(joinArgv(words))
		}
	}
	if a.sc.mask&(mGen|mOsa) != 0 {
		for k := 0; k+1 < len(st); k++ {
			t := st[k]
			if t.kind == tLit && k+2 < len(st) && st[k+1].punct('.') &&
				(st[k+2].punct('!') || st[k+2].is(tIdent, "execute")) {
				a.command(t.text)
			}
			if t.kind == tIdent && strings.EqualFold(t.text, "do") && k+3 < len(st) &&
				strings.EqualFold(st[k+1].text, "shell") && strings.EqualFold(st[k+2].text, "script") && st[k+3].kind == tLit {
				a.command(st[k+3].text)
			}
		}
	}
	if a.sc.mask&mPwsh != 0 && len(st) > 0 && st[0].kind == tIdent {
		verb := strings.ToLower(st[0].text)
		n := 1
		if (verb == "remove" || verb == "set" || verb == "clear" || verb == "out") && len(st) > 2 && st[1].punct('-') &&
			st[2].kind == tIdent {
			verb += "-" + strings.ToLower(st[2].text)
			n = 3
		}
		switch verb {
		case "remove-item", "rm", "del", "erase", "rd", "ri", "rmdir", "set-content", "clear-content", "out-file":
		default:
			return
		}
		end := st[len(st)-1].end
		if n < len(st) {
			for _, w := range strings.Fields(a.src[st[n].start:end]) {
				if w != "" && w[0] != '-' {
					a.destroy(pwshPath(w))
				}
			}
		}
	}
}

// words groups tokens not separated by blanks into words: a lone literal
// is its decoded text, anything else its source.
func (a *callAnalysis) words(ts []token) []string {
	var out []string
	for k := 0; k < len(ts); {
		e := k + 1
		for e < len(ts) && ts[e].start == ts[e-1].end {
			e++
		}
		if e == k+1 && ts[k].kind == tLit {
			out = append(out, ts[k].text)
		} else {
			out = append(out, a.src[ts[k].start:ts[e-1].end])
		}
		k = e
	}
	return out
}

// pwshPath maps a PowerShell path to the form rivumi classes: a drive root
// is the root, $HOME and $env:USERPROFILE are home.
func pwshPath(w string) string {
	w = strings.Trim(w, `'"`)
	lw := strings.ToLower(w)
	for _, h := range []string{"$home", "$env:userprofile", "$env:home", "~"} {
		if strings.HasPrefix(lw, h) {
			return "~" + strings.ReplaceAll(w[len(h):], `\`, "/")
		}
	}
	if len(w) >= 2 && w[1] == ':' && isIdentStart(w[0]) {
		return "/" + strings.TrimLeft(strings.ReplaceAll(w[2:], `\`, "/"), "/")
	}
	return strings.ReplaceAll(w, `\`, "/")
}

// groupEnd returns the index of the first bracket closing a group opened
// before k, or len(st): where arguments written without parentheses end.
func groupEnd(st []token, k int) int {
	depth := 0
	for j := k; j < len(st); j++ {
		switch {
		case st[j].punct('(') || st[j].punct('[') || st[j].punct('{'):
			depth++
		case st[j].punct(')') || st[j].punct(']') || st[j].punct('}'):
			depth--
			if depth < 0 {
				return j
			}
		}
	}
	return len(st)
}

// elems splits a list's elements at commas; in the generic scan, a list
// without commas is split into atoms (lisp's (list "-c" "x"), clojure's
// ["-rf" "/"]).
func (a *callAnalysis) elems(ts []token) [][]token {
	parts := splitArgs(ts)
	if a.sc.mask&mGen == 0 || len(parts) != 1 {
		return parts
	}
	var out [][]token
	for k := 0; k < len(ts); k++ {
		e := k
		if ts[k].punct('(') || ts[k].punct('[') || ts[k].punct('{') {
			e = a.matching(ts, k)
			if e >= len(ts) {
				e = len(ts) - 1
			}
		}
		out = append(out, ts[k:e+1])
		k = e
	}
	return out
}

// cmdForm reports a perl/ruby list-operator call (system "ls", exec $c) or
// a lua call with a string argument (os.execute "ls").
func (a *callAnalysis) cmdForm(st []token, k int) bool {
	n := st[k+1]
	if a.sc.mask&(mPerl|mRuby|mGen) != 0 {
		switch {
		case n.kind == tLit && !n.cmd:
			return true
		case n.kind == tPunct && (n.text == "$" || n.text == "@"):
			return true
		case n.kind == tIdent && !cmdStopWords[n.text] && (k == 0 || !st[k-1].punct('.')):
			return a.sc.mask&mRuby != 0
		}
	}
	return a.sc.mask&mLua != 0 && n.kind == tLit
}

// fullName returns the qualified name of the identifier at k, its
// qualifiers resolved through module aliases: subprocess.run, os.path.join,
// child_process.execSync (require('child_process').execSync too).
func (a *callAnalysis) fullName(st []token, k int) string {
	parts := []string{st[k].text}
	j := k
	for len(parts) < 4 {
		sep := 0
		switch {
		case j >= 1 && (st[j-1].punct('.')):
			sep = 1
			if j >= 2 && st[j-2].punct('?') {
				sep = 2
			}
		case j >= 2 && st[j-1].punct(':') && st[j-2].punct(':'):
			sep = 2
		case j >= 1 && st[j-1].punct(':') && a.sc.mask&mGen != 0:
			sep = 1 // erlang's os:cmd, lisp's sb-ext:run-program
		case j >= 2 && st[j-1].punct('>') && st[j-2].punct('-'):
			sep = 2
		}
		if sep == 0 {
			break
		}
		q := j - sep - 1
		if q < 0 {
			break
		}
		if st[q].punct(')') {
			// require('x').name, Path('/').unlink
			o := a.match[st[q].idx] - st[0].idx
			if o < 0 || o > q {
				break
			}
			if o > 0 && st[o-1].kind == tIdent {
				switch st[o-1].text {
				case "require", "__import__", "import", "import_module":
					if q == o+2 && st[o+1].kind == tLit {
						parts = append(parts, moduleName(st[o+1].text))
						return joinName(parts)
					}
				}
				parts = append(parts, st[o-1].text+"()")
			}
			break
		}
		if st[q].kind != tIdent {
			break
		}
		parts = append(parts, st[q].text)
		j = q
	}
	if len(parts) == 1 {
		if m, ok := a.alias["."+parts[0]]; ok {
			return m // from subprocess import run; const {execSync} = require('child_process')
		}
	} else if m, ok := a.alias[parts[len(parts)-1]]; ok {
		parts[len(parts)-1] = m
	}
	return joinName(parts)
}

func joinName(rev []string) string {
	var b strings.Builder
	for i := len(rev) - 1; i >= 0; i-- {
		if rev[i] == "promises" || rev[i] == "default" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(rev[i])
	}
	return b.String()
}

// moduleName normalises a module: node:fs, fs/promises and fs-extra are fs.
func moduleName(m string) string {
	m = strings.TrimPrefix(m, "node:")
	switch m {
	case "fs/promises", "fs-extra", "graceful-fs":
		return "fs"
	case "os.path", "posixpath":
		return "os.path"
	}
	return m
}

// imports records module aliases.
func (a *callAnalysis) imports(st []token) {
	if len(st) < 2 {
		return
	}
	switch {
	case st[0].is(tIdent, "import") && st[1].kind == tIdent && a.sc.mask&(mPy|mGen) != 0:
		// import a.b as c, d
		for _, part := range splitArgs(st[1:]) {
			name, as := dotted(part)
			if as != "" {
				a.alias[as] = name
			}
		}
	case st[0].is(tIdent, "from") && st[1].kind == tIdent:
		// from subprocess import run as r, call
		k := 1
		for k < len(st) && !st[k].is(tIdent, "import") {
			k++
		}
		mod, _ := dotted(st[1:k])
		if k+1 >= len(st) {
			return
		}
		rest := st[k+1:]
		if rest[0].punct('(') {
			rest = rest[1:]
		}
		for _, part := range splitArgs(rest) {
			if len(part) == 0 || part[0].kind != tIdent {
				continue
			}
			local := part[0].text
			if len(part) >= 3 && part[1].is(tIdent, "as") {
				local = part[2].text
			}
			a.alias["."+local] = mod + "." + part[0].text
		}
	case st[0].is(tIdent, "import"):
		// import {a, b as c} from 'm'; import * as n from 'm'; import n from 'm'
		k := len(st) - 1
		if st[k].kind != tLit || k < 2 || !st[k-1].is(tIdent, "from") {
			return
		}
		mod := moduleName(st[k].text)
		names := st[1 : k-1]
		if len(names) >= 3 && names[0].punct('*') && names[1].is(tIdent, "as") {
			a.alias[names[2].text] = mod
			return
		}
		if len(names) == 1 && names[0].kind == tIdent {
			a.alias[names[0].text] = mod
			return
		}
		a.destructure(names, mod)
	}
	// n = require('m'); const {a, b: c} = require('m')
	k := 0
	for k < len(st) && st[k].kind == tIdent && declWords[st[k].text] {
		k++
	}
	if k+5 < len(st)+1 && k+2 < len(st) {
		eq := -1
		for j := k; j < len(st); j++ {
			if st[j].punct('=') {
				eq = j
				break
			}
		}
		if eq < 0 || eq+4 > len(st) {
			return
		}
		r := st[eq+1:]
		if len(r) == 4 && r[0].kind == tIdent && (r[0].text == "require" || r[0].text == "__import__") &&
			r[1].punct('(') && r[2].kind == tLit && r[3].punct(')') {
			mod := moduleName(r[2].text)
			lhs := st[k:eq]
			if len(lhs) == 1 && lhs[0].kind == tIdent {
				a.alias[lhs[0].text] = mod
			} else {
				a.destructure(lhs, mod)
			}
		}
	}
}

// destructure records {a, b: c} (or {a, b as c}) bound from module mod.
func (a *callAnalysis) destructure(ts []token, mod string) {
	if len(ts) < 2 || !ts[0].punct('{') {
		return
	}
	inner := ts[1:]
	if e := len(inner) - 1; e >= 0 && inner[e].punct('}') {
		inner = inner[:e]
	}
	for _, part := range splitArgs(inner) {
		if len(part) == 0 || part[0].kind != tIdent {
			continue
		}
		local := part[0].text
		if len(part) >= 3 && (part[1].punct(':') || part[1].is(tIdent, "as")) && part[2].kind == tIdent {
			local = part[2].text
		}
		a.alias["."+local] = mod + "." + part[0].text
	}
}

// dotted reads a.b.c [as d] from part.
func dotted(part []token) (name, as string) {
	var b strings.Builder
	for k := 0; k < len(part); k++ {
		t := part[k]
		switch {
		case t.kind == tIdent && t.text == "as" && k+1 < len(part):
			return b.String(), part[k+1].text
		case t.kind == tIdent:
			b.WriteString(t.text)
		case t.punct('.'):
			b.WriteByte('.')
		}
	}
	n := b.String()
	return n, ""
}

// assignment records NAME = value.
func (a *callAnalysis) assignment(st []token) {
	k := 0
	for k < len(st) && st[k].kind == tIdent && declWords[st[k].text] {
		k++
	}
	if k < len(st) && (st[k].punct('$') || st[k].punct('@')) {
		k++
	}
	if k+2 > len(st) || st[k].kind != tIdent || !st[k+1].punct('=') {
		return
	}
	if k+2 < len(st) && (st[k+2].punct('=') || st[k+2].punct('~')) {
		return // ==, =~
	}
	name, rhs := st[k].text, st[k+2:]
	v := a.value(rhs)
	if v.kind == 0 {
		delete(a.vars, name)
	} else {
		a.vars[name] = v
	}
	a.fetched[name] = a.regionNetwork(rhs)
	a.socket[name] = a.regionSocketRead(rhs)
}

// value evaluates an expression to a constant, when it is one.
func (a *callAnalysis) value(ts []token) cvalue {
	if !a.spend(len(ts)) {
		return cvalue{}
	}
	for len(ts) >= 2 && ts[0].punct('(') && a.matching(ts, 0) == len(ts)-1 {
		inner := ts[1 : len(ts)-1]
		if parts := splitArgs(inner); len(parts) > 1 || len(inner) > 0 && inner[len(inner)-1].punct(',') {
			return a.list(parts) // ('rm', '-rf', '/'): a perl list or a python tuple
		}
		ts = inner
	}
	if len(ts) == 0 {
		return cvalue{}
	}
	// Path wrappers and home expressions.
	if v, ok := a.known(ts); ok {
		return v
	}
	switch {
	case ts[0].punct('[') && a.matching(ts, 0) == len(ts)-1:
		return a.list(a.elems(ts[1 : len(ts)-1]))
	case a.sc.mask&mGen != 0 && len(ts) > 1 && ts[0].kind == tIdent && (ts[0].text == "list" || ts[0].text == "vector"):
		return a.list(a.elems(ts[1:])) // (list "-c" "rm -rf /")
	case ts[0].is(tIdent, "array") && len(ts) >= 3 && ts[1].punct('(') && a.matching(ts, 1) == len(ts)-1:
		return a.list(splitArgs(ts[2 : len(ts)-1]))
	case ts[0].punct('{') && a.sc.mask&mLua != 0 && a.matching(ts, 0) == len(ts)-1:
		return a.list(splitArgs(ts[1 : len(ts)-1]))
	}
	if len(ts) == 1 && ts[0].kind == tIdent {
		return a.vars[ts[0].text]
	}
	if len(ts) == 2 && (ts[0].punct('$') || ts[0].punct('@')) && ts[1].kind == tIdent {
		return a.vars[ts[1].text]
	}
	// Words of one qw(…) or %w(…): a list.
	if len(ts) > 1 && ts[0].kind == tLit && ts[len(ts)-1].kind == tLit && ts[0].start == ts[len(ts)-1].start {
		var l []string
		for _, t := range ts {
			if t.kind != tLit || t.start != ts[0].start {
				return cvalue{}
			}
			l = append(l, t.text)
		}
		return cvalue{kind: 'l', list: l}
	}
	// Concatenated constants, and strings with holes: interpolations and
	// operands that are not constant ('rm -rf ' + d) become $__v, so that a
	// command keeps its known shape (curl $__v | sh) and a path is never
	// made of them.
	var b strings.Builder
	holes, consts := false, 0
	parts := a.concatParts(ts)
	if len(parts) == 1 && !(len(ts) == 1 && ts[0].kind == tLit && !ts[0].cmd) {
		return cvalue{}
	}
	for _, part := range parts {
		if len(part) == 1 && part[0].kind == tLit && !part[0].cmd {
			if part[0].interp {
				b.WriteString(a.holeText(part[0].text))
				holes = true
			} else {
				b.WriteString(part[0].text)
			}
			consts++
			continue
		}
		if v := a.value(part); v.kind == 's' {
			b.WriteString(v.s)
			holes = holes || v.holes
			consts++
			continue
		}
		b.WriteString("$__v")
		holes = true
	}
	if consts == 0 {
		return cvalue{}
	}
	return cvalue{kind: 's', s: b.String(), holes: holes}
}

// concatParts splits ts at the string concatenation operator of the
// language outside brackets ('+'; perl and php '.'; lua '..'); adjacent
// literals ('a' 'b', python) are parts of their own.
func (a *callAnalysis) concatParts(ts []token) [][]token {
	var out [][]token
	depth, from := 0, 0
	dotConcat := a.sc.mask&(mPerl|mPHP) != 0
	for k := 0; k < len(ts); k++ {
		t := ts[k]
		switch {
		case t.punct('(') || t.punct('[') || t.punct('{'):
			depth++
		case t.punct(')') || t.punct(']') || t.punct('}'):
			depth--
		case depth == 0 && (t.punct('+') || dotConcat && t.punct('.')):
			out = append(out, ts[from:k])
			from = k + 1
		case depth == 0 && a.sc.mask&(mLua|mGen) != 0 && t.punct('.') && k+1 < len(ts) && ts[k+1].punct('.'):
			out = append(out, ts[from:k])
			k++
			from = k + 1
		case depth == 0 && k > from && t.kind == tLit && ts[k-1].kind == tLit:
			out = append(out, ts[from:k])
			from = k
		}
	}
	return append(out, ts[from:])
}

// holeText writes an interpolating literal with each interpolation as the
// shell variable $__v, and the home directory's as $HOME.
func (a *callAnalysis) holeText(v string) string {
	var b strings.Builder
	st := a.sc.style
	for k := 0; k < len(v); k++ {
		c := v[k]
		switch {
		case st.pyPrefix && c == '{' && k+1 < len(v) && v[k+1] == '{':
			b.WriteByte('{')
			k++
		case st.pyPrefix && c == '}' && k+1 < len(v) && v[k+1] == '}':
			b.WriteByte('}')
			k++
		case st.pyPrefix && c == '{':
			k = skipTo(v, k, '}')
			b.WriteString("$__v")
		case (c == '$' || c == '#') && k+1 < len(v) && v[k+1] == '{' && !st.perlQuote && !st.phpInterp:
			k = skipTo(v, k+1, '}') // ${x} (JS), #{x} (ruby and others)
			b.WriteString("$__v")
		case (st.perlQuote || st.phpInterp || st.pwshInterp || st.rubyInterp) && (c == '$' || c == '@') &&
			k+1 < len(v) && (isIdentStart(v[k+1]) || v[k+1] == '{' || v[k+1] == '$' || v[k+1] == '@'):
			j := k + 1
			for j < len(v) && (isIdentChar(v[j]) || v[j] == ':') {
				j++
			}
			name := strings.ToLower(v[k+1 : j])
			for j < len(v) && (v[j] == '{' || v[j] == '[') {
				e := skipTo(v, j, closingOf(v[j]))
				if name == "env" || name == "_server" || name == "_env" {
					key := strings.Trim(v[j+1:e], `'" `)
					if key == "HOME" {
						name = "env:home"
					}
				}
				j = e + 1
			}
			if name == "env:home" || st.pwshInterp && name == "home" {
				b.WriteString("$HOME")
			} else {
				b.WriteString("$__v")
			}
			k = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// skipTo returns the offset of the byte closing the bracket at k (nesting),
// or the last offset.
func skipTo(v string, k int, cl byte) int {
	open := v[k]
	depth := 0
	for j := k; j < len(v); j++ {
		switch v[j] {
		case open:
			depth++
		case cl:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(v) - 1
}

func (a *callAnalysis) list(parts [][]token) cvalue {
	var l []string
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		v := a.value(p)
		switch v.kind {
		case 's':
			l = append(l, v.s)
		case 'l':
			l = append(l, v.list...) // perl flattens lists
		default:
			return cvalue{}
		}
	}
	if len(l) == 0 {
		return cvalue{}
	}
	return cvalue{kind: 'l', list: l}
}

// homeForms are expressions whose value is the home directory, written
// without spaces.
var homeForms = map[string]bool{
	"Path.home()": true, "pathlib.Path.home()": true, "os.homedir()": true, "require('os').homedir()": true,
	"require('node:os').homedir()": true, "Dir.home": true,
	"Dir.home()": true, "process.env.HOME": true, "$ENV{HOME}": true, "ENV.fetch('HOME')": true,
	"File.expand_path('~')": true,
}

var homeEnv = map[string]bool{
	"os.environ[": true, "ENV[": true, "process.env[": true, "$ENV{": true, "os.getenv(": true, "getenv(": true,
	"os.environ.get(": true, "$_SERVER[": true, "$_ENV[": true, "Sys.getenv(": true,
}

var pathWrappers = map[string]bool{
	"Path": true, "pathlib.Path": true, "PurePath": true, "PosixPath": true, "Pathname": true, "Pathname.new": true,
	"File.expand_path": true, "os.path.expanduser": true, "os.path.abspath": true, "os.path.realpath": true,
	"os.path.normpath": true, "path.resolve": true, "path.normalize": true, "realpath": true,
	"expanduser": true, "File.absolute_path": true, "normalizePath": true, "path.expand": true,
}

// known evaluates path wrappers of a constant and expressions naming the
// home directory.
func (a *callAnalysis) known(ts []token) (cvalue, bool) {
	// A trailing .expanduser() / .resolve() / .absolute() keeps the value.
	for len(ts) >= 4 && ts[len(ts)-1].punct(')') && ts[len(ts)-2].punct('(') && ts[len(ts)-4].punct('.') {
		switch ts[len(ts)-3].text {
		case "expanduser", "resolve", "absolute", "expand_path", "realpath":
			ts = ts[:len(ts)-4]
			continue
		}
		break
	}
	var b strings.Builder
	for _, t := range ts {
		if t.kind == tLit {
			b.WriteString("'" + t.text + "'")
		} else {
			b.WriteString(t.text)
		}
	}
	c := strings.ReplaceAll(b.String(), `"`, "'")
	if homeForms[c] {
		return cvalue{kind: 's', s: "~"}, true
	}
	for pre := range homeEnv {
		if strings.HasPrefix(c, pre) && (strings.HasSuffix(c, "'HOME']") || strings.HasSuffix(c, "'HOME')") ||
			strings.HasSuffix(c, "'HOME'}") || c == "$ENV{HOME}") {
			return cvalue{kind: 's', s: "~"}, true
		}
	}
	// wrapper(constant)
	for k := len(ts) - 2; k >= 1; k-- {
		if !ts[k].punct('(') || a.matching(ts, k) != len(ts)-1 {
			continue
		}
		name := a.fullName(ts, k-1)
		if !pathWrappers[name] {
			return cvalue{}, false
		}
		args := splitArgs(ts[k+1 : len(ts)-1])
		if len(args) != 1 {
			return cvalue{}, false
		}
		v := a.value(args[0])
		if v.kind != 's' {
			return cvalue{}, false
		}
		return v, true
	}
	return cvalue{}, false
}

// sinks, by qualified name (after aliases), then by bare name.
type sinkKind byte

const (
	skCmd        sinkKind = iota + 1 // the first argument is a command line or an argv list
	skProgArgs                       // a program and a list of its arguments (spawn('rm', ['-rf', '/']))
	skArgv                           // every argument is a word of the argv (perl/ruby system('rm', '-rf', '/'))
	skExecv                          // a path, then the argv list whose first word it replaces
	skExecl                          // a path, argv[0], then the other words
	skDestroy                        // the arguments at pos are paths deleted or overwritten
	skDestroyAll                     // every constant argument not starting with '-' is such a path
	skOpen                           // open(path, mode): a write mode overwrites path
	skEval                           // evaluates its argument as code
)

type sink struct {
	kind sinkKind
	mask langMask
	pos  []int
}

var sinks = map[string][]sink{}

func addSink(names string, kind sinkKind, mask langMask, pos ...int) {
	for _, n := range strings.Fields(names) {
		sinks[n] = append(sinks[n], sink{kind: kind, mask: mask, pos: pos})
	}
}

// loadSinks fills sinks and triggers (once, through sinksOnce).
func loadSinks() {
	addSink("os.system os.popen subprocess.run subprocess.call subprocess.check_call subprocess.check_output "+
		"subprocess.Popen subprocess.getoutput subprocess.getstatusoutput commands.getoutput "+
		"commands.getstatusoutput pty.spawn asyncio.create_subprocess_shell os.popen2 os.popen3 os.popen4 "+
		"popen2.popen2 popen2.popen3 sh.Command", skCmd, mPy|mGen)
	addSink("asyncio.create_subprocess_exec", skArgv, mPy|mGen)
	addSink("os.execv os.execve os.execvp os.execvpe", skExecv, mPy|mGen)
	addSink("os.execl os.execle os.execlp os.execlpe", skExecl, mPy|mGen)
	addSink("child_process.exec child_process.execSync execa.command execa.commandSync execaCommand "+
		"execaCommandSync shelljs.exec Bun.spawn Bun.spawnSync", skCmd, mJS|mGen)
	addSink("child_process.spawn child_process.spawnSync child_process.execFile child_process.execFileSync "+
		"execa execa.sync execaSync", skProgArgs, mJS|mGen)
	addSink("system exec spawn Kernel.system Kernel.exec Kernel.spawn Process.spawn POSIX.system CORE.system",
		skArgv, mPerl|mRuby|mGen)
	addSink("system exec shell_exec passthru popen proc_open", skCmd, mPHP|mGen)
	addSink("pcntl_exec", skExecv, mPHP|mGen)
	addSink("IO.popen Open3.capture2 Open3.capture2e Open3.capture3 Open3.popen2 Open3.popen2e Open3.popen3 "+
		"Open3.pipeline Open3.pipeline_r Open3.pipeline_w PTY.spawn", skArgv, mRuby|mGen)
	addSink("os.execute io.popen", skCmd, mLua|mGen)
	addSink("system system2 shell os.cmd System.shell", skCmd, mGen) // R, awk, erlang, elixir, babashka …
	addSink("System.cmd run-program", skProgArgs, mGen)
	addSink("doShellScript app.doShellScript", skCmd, mJS|mOsa|mGen)

	addSink("shutil.rmtree os.remove os.unlink os.rmdir os.removedirs os.truncate", skDestroy, mPy|mGen, 0)
	addSink("shutil.move os.rename os.replace os.renames", skDestroy, mPy|mGen, 0, 1)
	addSink("shutil.copy shutil.copy2 shutil.copyfile shutil.copytree", skDestroy, mPy|mGen, 1)
	addSink("open io.open codecs.open os.open", skOpen, mPy|mGen)
	addSink("fs.rmSync fs.rmdirSync fs.unlinkSync fs.rm fs.rmdir fs.unlink fs.writeFileSync fs.writeFile "+
		"fs.appendFileSync fs.appendFile fs.truncateSync fs.truncate fs.remove fs.removeSync fs.emptyDir "+
		"fs.emptyDirSync fs.outputFile fs.outputFileSync rimraf rimraf.sync rimrafSync rimraf.rimraf "+
		"Deno.remove Deno.removeSync Deno.writeTextFile Deno.writeFile Bun.write", skDestroy, mJS|mGen, 0)
	addSink("fs.renameSync fs.rename fs.moveSync fs.move", skDestroy, mJS|mGen, 0, 1)
	addSink("fs.copyFileSync fs.copyFile fs.cpSync fs.cp fs.copySync fs.copy", skDestroy, mJS|mGen, 1)
	addSink("shelljs.rm", skDestroyAll, mJS|mGen)
	addSink("unlink rmtree remove_tree File.Path.rmtree File.Path.remove_tree", skDestroyAll, mPerl|mGen)
	addSink("rmdir", skDestroy, mPerl|mPHP|mGen, 0)
	addSink("rename", skDestroy, mPerl|mPHP|mGen, 0, 1)
	addSink("unlink file_put_contents", skDestroy, mPHP|mGen, 0)
	addSink("copy", skDestroy, mPHP, 1)
	addSink("open", skOpen, mPerl|mRuby|mGen)
	addSink("fopen File.open File.new", skOpen, mPHP|mRuby|mGen)
	addSink("FileUtils.rm FileUtils.rm_f FileUtils.rm_r FileUtils.rm_rf FileUtils.rmtree FileUtils.remove "+
		"FileUtils.remove_dir FileUtils.remove_entry FileUtils.remove_entry_secure FileUtils.rmdir "+
		"FileUtils.safe_unlink File.delete File.unlink", skDestroyAll, mRuby|mGen)
	addSink("FileUtils.mv FileUtils.move File.rename", skDestroy, mRuby|mGen, 0, 1)
	addSink("File.write IO.write File.binwrite Dir.rmdir Dir.delete Dir.unlink", skDestroy, mRuby|mGen, 0)
	addSink("os.remove", skDestroy, mLua, 0)
	addSink("os.rename", skDestroy, mLua, 0, 1)
	addSink("unlink file.remove", skDestroy, mGen, 0) // R

	addSink("exec eval compile builtins.exec builtins.eval pickle.loads pickle.load marshal.loads dill.loads "+
		"cPickle.loads jsonpickle.decode", skEval, mPy|mGen)
	addSink("eval Function vm.runInThisContext vm.runInNewContext vm.runInContext vm.Script vm.compileFunction",
		skEval, mJS|mGen)
	addSink("eval instance_eval class_eval module_eval Kernel.eval binding.eval", skEval, mPerl|mRuby|mGen)
	addSink("eval assert create_function", skEval, mPHP|mGen)
	addSink("load loadstring dostring", skEval, mLua|mGen)
	addSink("Invoke-Expression iex", skEval, mPwsh)
	triggers = makeTriggers()
}

// receiverPath reports the constant path of a Path(...)-like receiver for
// methods that delete or overwrite it: Path('/etc').rmdir(),
// Pathname.new('/').rmtree.
var receiverDestroy = map[string]bool{
	"unlink": true, "rmdir": true, "rmtree": true, "write_text": true, "write_bytes": true, "delete": true,
	"rename": true, "replace": true,
}

func (a *callAnalysis) sinksFor(full, bare string) []sink {
	var out []sink
	for _, s := range sinkTable()[full] {
		if s.mask&a.sc.mask != 0 {
			out = append(out, s)
		}
	}
	if len(out) > 0 || full == bare {
		return out
	}
	// A qualifier rivumi cannot resolve (an alias bound some other way):
	// names whose meaning does not depend on it.
	switch bare {
	case "system":
		if strings.HasPrefix(full, "platform.") {
			return nil
		}
		return a.sinksFor("os.system", "os.system")
	case "popen", "check_output", "check_call", "getoutput", "getstatusoutput", "Popen":
		return a.sinksFor("subprocess."+bare, "subprocess."+bare)
	case "execSync", "spawnSync", "execFileSync":
		return a.sinksFor("child_process."+bare, "child_process."+bare)
	case "rmtree":
		return a.sinksFor("shutil.rmtree", "shutil.rmtree")
	case "rmSync", "rmdirSync", "unlinkSync", "writeFileSync", "appendFileSync", "renameSync", "copyFileSync":
		return a.sinksFor("fs."+bare, "fs."+bare)
	case "rm_rf", "rm_r":
		return a.sinksFor("FileUtils."+bare, "FileUtils."+bare)
	}
	return nil
}

func (a *callAnalysis) evalName(full, bare string) bool {
	for _, s := range a.sinksFor(full, bare) {
		if s.kind == skEval {
			return true
		}
	}
	return false
}

// call applies the sinks of the call at k.
func (a *callAnalysis) call(st []token, k int, full, bare string, args [][]token) {
	if full == "chdir" || strings.HasSuffix(full, ".chdir") {
		if len(args) > 0 {
			if v := a.value(args[0]); v.kind == 's' && v.s != "" && !v.holes {
				a.cwd = joinPath(a.cwd, v.s)
			} else {
				a.cwd = "?"
			}
		}
		return
	}
	// Path('/').unlink(), Pathname.new('/').rmtree
	if receiverDestroy[bare] && k >= 2 && st[k-1].punct('.') {
		if v, ok := a.receiver(st, k-1); ok {
			a.destroy(v)
		}
	}
	for _, s := range a.sinksFor(full, bare) {
		a.apply(s, args)
	}
	if bare == "open" && len(args) > 0 && a.sc.mask&(mPerl|mRuby|mGen) != 0 {
		a.pipeOpen(args)
	}
}

// receiver evaluates the expression before the '.' at dot when it is a
// path wrapper of a constant or a variable bound to one.
func (a *callAnalysis) receiver(st []token, dot int) (string, bool) {
	e := dot - 1
	if e < 0 {
		return "", false
	}
	if st[e].kind == tIdent {
		if v := a.vars[st[e].text]; v.kind == 's' {
			return v.s, true
		}
		return "", false
	}
	if !st[e].punct(')') {
		return "", false
	}
	o := a.match[st[e].idx] - st[0].idx
	if o < 0 || o > e {
		return "", false
	}
	b := o - 1
	for b-2 >= 0 && st[b-1].punct('.') && st[b-2].kind == tIdent {
		b -= 2
	}
	if b < 0 {
		return "", false
	}
	v, ok := a.known(st[b : e+1])
	return v.s, ok && v.kind == 's'
}

func (a *callAnalysis) apply(s sink, args [][]token) {
	if s.kind <= skExecl {
		a.shellLiteral(args)
	}
	val := func(i int) cvalue {
		if i < len(args) {
			return a.value(args[i])
		}
		return cvalue{}
	}
	switch s.kind {
	case skCmd:
		v := val(0)
		switch v.kind {
		case 's':
			a.command(v.s)
		case 'l':
			a.command(joinArgv(v.list))
		}
		a.networkInto(args)
	case skProgArgs:
		p, rest := val(0), val(1)
		if p.kind == 's' {
			switch {
			case len(args) == 1 || rest.kind == 0 && len(args) > 1 && !isListStart(args[1]):
				a.command(joinArgv([]string{p.s}))
			case rest.kind == 'l':
				a.command(joinArgv(append([]string{p.s}, rest.list...)))
			}
		}
		a.networkInto(args)
	case skArgv:
		var words []string
	argv:
		for i := range args {
			v := val(i)
			switch {
			case v.kind == 's':
				words = append(words, v.s)
			case v.kind == 'l':
				words = append(words, v.list...)
			case i == 0 && isHash(args[0]):
				continue // ruby system({"ENV" => "x"}, "cmd")
			default:
				words = nil // a word not known: no argv
				break argv
			}
		}
		if len(words) == 1 {
			a.command(words[0]) // one string: a shell command line
		} else if len(words) > 1 {
			a.command(joinArgv(words))
		}
		a.networkInto(args)
	case skExecv:
		p, argv := val(0), val(1)
		if p.kind == 's' && argv.kind == 'l' {
			a.command(joinArgv(append([]string{p.s}, argv.list[1:]...)))
		}
		a.networkInto(args)
	case skExecl:
		if v := val(0); v.kind == 's' && len(args) >= 2 {
			words := []string{v.s}
			for i := 2; i < len(args); i++ {
				w := val(i)
				if w.kind != 's' {
					return
				}
				words = append(words, w.s)
			}
			a.command(joinArgv(words))
		}
	case skDestroy:
		for _, i := range s.pos {
			if v := val(i); v.kind == 's' && !v.holes {
				a.destroy(v.s)
			}
		}
	case skDestroyAll:
		for i := range args {
			v := val(i)
			switch v.kind {
			case 's':
				if !strings.HasPrefix(v.s, "-") && !v.holes {
					a.destroy(v.s)
				}
			case 'l':
				for _, w := range v.list {
					a.destroy(w)
				}
			}
		}
	case skOpen:
		a.open(args)
	case skEval:
		if len(args) > 0 && a.regionNetwork(flat(args)) {
			a.out.fetchRun = true
		}
	}
}

// shellLiteral notes a literal naming a shell among a command call's
// arguments, however the command is built.
func (a *callAnalysis) shellLiteral(args [][]token) {
	for _, t := range flat(args) {
		if t.kind == tLit && isShellWord(firstWord(t.text)) {
			a.out.shellArg = true
		}
	}
}

func isListStart(ts []token) bool { return len(ts) > 0 && ts[0].punct('[') }

func isHash(ts []token) bool { return len(ts) > 0 && ts[0].punct('{') }

func flat(args [][]token) []token {
	var out []token
	for _, a := range args {
		out = append(out, a...)
	}
	return out
}

// networkInto records a command call fed with data read from the network:
// os.system(requests.get(u).text), subprocess.run(d, shell=True) with d
// read from a socket.
func (a *callAnalysis) networkInto(args [][]token) {
	r := flat(args)
	if a.regionSocketRead(r) {
		a.out.revShell = true
	} else if a.regionNetwork(r) {
		a.out.fetchRun = true
	}
}

// open grades open(path, mode) and perl's open(FH, MODE, path) /
// open(FH, '>path').
func (a *callAnalysis) open(args [][]token) {
	if len(args) == 0 {
		return
	}
	first := a.value(args[0])
	if first.kind == 's' && !first.holes && len(args) >= 2 {
		// open(path, 'w'), File.open(path, 'w'), fopen(path, 'w'), io.open(path, 'w')
		for _, m := range args[1:] {
			mm := m
			if len(mm) >= 3 && mm[0].is(tIdent, "mode") && mm[1].punct('=') {
				mm = mm[2:]
			}
			if v := a.value(mm); v.kind == 's' && isWriteMode(v.s) {
				a.destroy(first.s)
			}
		}
	}
	if a.sc.mask&(mPerl|mGen) == 0 || len(args) < 2 {
		return
	}
	mode := a.value(args[1])
	if mode.kind != 's' || mode.holes {
		return
	}
	m := strings.TrimSpace(mode.s)
	switch {
	case len(args) >= 3 && (m == ">" || m == ">>" || m == "+<" || m == "+>"):
		if p := a.value(args[2]); p.kind == 's' && !p.holes {
			a.destroy(p.s)
		}
	case len(args) == 2 && (strings.HasPrefix(m, ">") || strings.HasPrefix(m, "+<")) && !strings.HasPrefix(m, ">&"):
		a.destroy(strings.TrimSpace(strings.TrimLeft(m, "+<>")))
	}
}

// pipeOpen reads perl's and ruby's open with a pipe: open(FH, "| cmd"),
// open(FH, "cmd |"), open(FH, "-|", "rm", "-rf", "/"), open("| cmd").
func (a *callAnalysis) pipeOpen(args [][]token) {
	for i, arg := range args {
		v := a.value(arg)
		if v.kind != 's' {
			continue
		}
		m := strings.TrimSpace(v.s)
		switch {
		case m == "|-" || m == "-|":
			var words []string
			for _, r := range args[i+1:] {
				w := a.value(r)
				if w.kind != 's' {
					return
				}
				words = append(words, w.s)
			}
			if len(words) == 1 {
				a.command(words[0])
			} else if len(words) > 1 {
				a.command(joinArgv(words))
			}
			return
		case len(m) > 1 && strings.HasPrefix(m, "|"):
			a.command(strings.TrimSpace(m[1:]))
		case len(m) > 1 && strings.HasSuffix(m, "|"):
			a.command(strings.TrimSpace(m[:len(m)-1]))
		}
	}
}

// awkPipes reads awk's command positions: print … | "cmd", "cmd" | getline,
// and print "text" | "sh" (the text is the command).
func (a *callAnalysis) awkPipes(st []token) {
	for k, t := range st {
		if !t.punct('|') || k > 0 && st[k-1].punct('|') || k+1 < len(st) && st[k+1].punct('|') {
			continue
		}
		if k+1 < len(st) && st[k+1].punct('&') {
			k++ // |& coprocess
		}
		if k+1 < len(st) && st[k+1].kind == tLit {
			cmd := st[k+1].text
			a.command(cmd)
			if isShellWord(firstWord(cmd)) && k >= 2 && st[k-1].kind == tLit {
				a.command(st[k-1].text) // print "rm -rf /" | "sh"
			}
		}
		if k >= 1 && st[k-1].kind == tLit && k+1 < len(st) && st[k+1].is(tIdent, "getline") {
			a.command(st[k-1].text)
		}
	}
}

func (a *callAnalysis) command(c string) {
	c = strings.TrimSpace(c)
	if c == "" || a.seen["c"+c] {
		return
	}
	a.seen["c"+c] = true
	if len(a.out.commands) < maxLiterals {
		a.out.commands = append(a.out.commands, capString(c))
	}
}

func (a *callAnalysis) destroy(p string) {
	p = strings.TrimSpace(p)
	if p == "" {
		return
	}
	if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
		if a.cwd == "" || a.cwd == "?" {
			return // relative to the directory the code started in
		}
		p = joinPath(a.cwd, p)
	}
	if a.seen["d"+p] || len(a.out.destroys) >= maxLiterals {
		return
	}
	a.seen["d"+p] = true
	a.out.destroys = append(a.out.destroys, p)
}

func joinPath(cwd, p string) string {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return p
	}
	if cwd == "" || cwd == "?" {
		return "?"
	}
	if strings.HasPrefix(cwd, "~") {
		return "~/" + strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(cwd, "~")+"/"+p), "/")
	}
	return path.Join(cwd, p)
}

// regionNetwork reports whether the tokens read from the network: a
// network name of the scanner's rules in their code (string contents left
// out, so open('requests.txt') is not one), a URL literal, or a variable
// assigned from such an expression.
func (a *callAnalysis) regionNetwork(ts []token) bool {
	if !a.spend(2 * len(ts)) {
		return false
	}
	var b strings.Builder
	prevEnd := -1
	for _, t := range ts {
		if prevEnd >= 0 && t.start > prevEnd {
			b.WriteByte(' ')
		}
		prevEnd = t.end
		switch t.kind {
		case tLit:
			if hasURLScheme(t.text) {
				return true
			}
			b.WriteString(`""`)
		case tIdent:
			if a.fetched[t.text] || a.socket[t.text] {
				return true
			}
			switch t.text {
			case "urlopen", "urlretrieve", "recv", "recvfrom", "recv_into", "sysread":
				return true
			}
			if m, ok := a.alias[t.text]; ok {
				b.WriteString(m) // u.urlopen after import urllib.request as u
			} else if m, ok := a.alias["."+t.text]; ok {
				b.WriteString(m)
			} else {
				b.WriteString(t.text)
			}
		default:
			b.WriteString(t.text)
		}
	}
	st := &scanState{seen: map[string]bool{}}
	a.sc.words(b.String(), st)
	return st.f.Network || a.regionSocketRead(ts)
}

// regionSocketRead reports data read from a raw socket: recv, recvfrom,
// recv_into, sysread, or a variable assigned from one.
func (a *callAnalysis) regionSocketRead(ts []token) bool {
	for _, t := range ts {
		if t.kind != tIdent {
			continue
		}
		switch t.text {
		case "recv", "recvfrom", "recv_into", "recvmsg", "sysread", "socket", "Socket", "TCPSocket", "fsockopen",
			"pfsockopen", "stream_socket_client", "createConnection":
			return true
		}
		if a.socket[t.text] {
			return true
		}
	}
	return false
}

// joinArgv quotes each word for a POSIX shell and joins them.
func joinArgv(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		if w != "" && !strings.ContainsAny(w, " \t\n'\"\\$`!*?[]{}();&|<>~#") {
			q[i] = w
			continue
		}
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

func firstWord(c string) string {
	f := strings.Fields(c)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// isShellWord reports a shell named as a program (/bin/bash, sh, cmd.exe,
// pwsh), by the program registry.
func isShellWord(w string) bool {
	w = strings.ToLower(path.Base(strings.ReplaceAll(w, `\`, "/")))
	w = strings.TrimSuffix(w, ".exe")
	if w == "cmd" || w == "busybox" {
		return true
	}
	p := programs.Lookup(w)
	if p == nil {
		p = programs.Lookup(trimVersion(w))
	}
	return p != nil && (p.Shell || p.Language == "pwsh")
}

// shellSpawned reports a certain command that starts a shell.
func (c certainty) shellSpawned() bool {
	if c.shellArg {
		return true
	}
	for _, cmd := range c.commands {
		if isShellWord(strings.Trim(firstWord(cmd), `'`)) {
			return true
		}
	}
	return false
}
