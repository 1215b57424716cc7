package codescan

import (
	"strings"
	"unicode/utf8"
)

// maxLiteral is the maximum length in bytes of one extracted literal.
const maxLiteral = 4096

// maxLiterals is the maximum number of literals reported by Scan.
const maxLiterals = 256

// escMode selects how the body of a string literal is unescaped.
type escMode int

const (
	escRaw        escMode = iota // no decoding at all
	escMinimal                   // only \\ and \<quote> (perl/ruby/php single quotes)
	escFull                      // C-like escapes; an unknown escape drops the backslash
	escKeep                      // C-like escapes; an unknown escape keeps the backslash
	escLua                       // lua: decimal \ddd, \z
	escPwsh                      // PowerShell double quotes: backtick escapes, "" -> "
	escPwshSingle                // PowerShell single quotes: '' -> '
)

// lexStyle describes the lexical conventions of a language family.
type lexStyle struct {
	hashComment  bool // # to end of line
	slashComment bool // // to end of line and /* */
	dashComment  bool // -- to end of line
	luaLong      bool // [[...]], [==[...]==] strings and --[[ ]] comments
	osaComment   bool // (* *) comments, nestable
	pwshComment  bool // <# #> comments
	single       escMode
	singleOn     bool // ' delimits strings
	double       escMode
	doubleOn     bool // " delimits strings
	backtick     int  // 0: not a string, 1: JS template, 2: command string
	singleLine   bool // ' and " strings end at an unescaped newline
	pyPrefix     bool // python r/b/f/u prefixes and triple quotes
	perlQuote    bool // q qq qw qx m qr s tr y
	rubyPercent  bool // %q %Q %w %x ... literals
	heredoc      int  // 0 none, 1 perl/ruby <<TAG, 2 php <<<TAG
	pwshHere     bool // @" "@ and @' '@
	regex        bool // /re/ literals where an operand is expected
	rubyInterp   bool // #{...} inside double-quoted strings
	phpInterp    bool // {$...} inside double-quoted strings
	pwshInterp   bool // $(...) inside double-quoted strings
	pod          bool // perl =pod ... =cut
	rubyDoc      bool // ruby =begin ... =end
	xIsRune      bool // \xHH is a code point (python, js), not a byte
	noEscE       bool // \e is not ESC (python)
	bigU         bool // \UHHHHHHHH (python)
}

// lit is one string literal found by the lexer.
type lit struct {
	start   int // offset of the literal token in the source
	val     string
	changed bool // decoding changed the text (escape sequences were present)
	cmd     bool // command string: backticks, qx, %x
}

type pendingDoc struct {
	tag  string
	mode escMode
	cmd  bool
	php  bool
}

// lexer walks source code once, reporting string literals through emit.
// Every helper consumes input strictly forward, so the walk is linear.
type lexer struct {
	src          string
	st           *lexStyle
	i            int
	emit         func(lit)
	prev         byte   // last significant byte: 'a' for an operand, else the punctuation
	prevWord     string // last identifier when prev == 'a'
	noRegexUntil int
	pending      []pendingDoc
	nonASCII     bool // a non-ASCII byte appeared outside literals and comments
	dynamic      bool // perl s///ee seen

	// toks, when not nil, collects the token stream for the call analysis
	// (certain.go): identifiers, numbers, punctuation, newlines and
	// literals, in source order.
	toks   *[]token
	prefix string // the python string prefix of the literal being read
}

// token is one token of the stream collected for the call analysis.
type token struct {
	kind   byte // tIdent, tNum, tPunct, tNewline, tLit, tOther
	start  int
	end    int
	text   string // identifier or punctuation as written; a literal's decoded value
	interp bool   // a literal with interpolation ("$x", f"{x}", `${x}`, "#{x}"): not a constant
	cmd    bool   // a command literal: backticks, qx, %x
	idx    int    // index in the token stream (certain.go)
	nl     bool   // a newline comes before it (certain.go)
}

const (
	tIdent   byte = 'i'
	tNum     byte = 'n'
	tPunct   byte = 'p'
	tNewline byte = 'l'
	tLit     byte = 's'
	tOther   byte = 'o' // a regex literal
)

func (lx *lexer) tok(kind byte, start, end int) {
	if lx.toks == nil {
		return
	}
	text := ""
	switch {
	case kind == tNewline:
	case end == start+1 && lx.src[start] < 0x80:
		text = oneByte[lx.src[start]] // no pointer into the source for punctuation
	default:
		text = lx.src[start:end]
	}
	*lx.toks = append(*lx.toks, token{kind: kind, start: start, end: end, text: text})
}

var oneByte = func() (t [128]string) {
	for i := range t {
		t[i] = string(rune(i))
	}
	return t
}()

// endLits sets the end of the literal tokens just emitted (end 0) to lx.i.
func (lx *lexer) endLits() {
	if lx.toks == nil {
		return
	}
	t := *lx.toks
	for k := len(t) - 1; k >= 0 && t[k].kind == tLit && t[k].end < 0; k-- {
		t[k].end = lx.i
	}
}

// interpolates reports whether a literal body read in mode is built at run
// time by the language (a constant only when false).
func (lx *lexer) interpolates(body string, mode escMode) bool {
	st := lx.st
	switch {
	case st.pyPrefix:
		return strings.ContainsAny(lx.prefix, "fFtT")
	case st.backtick == 1: // JS: template literals
		return strings.Contains(body, "${")
	case mode == escRaw || mode == escMinimal || mode == escPwshSingle || mode == escLua:
		return false
	case st.rubyInterp:
		return strings.Contains(body, "#{") || strings.Contains(body, "#$") || strings.Contains(body, "#@")
	case st.perlQuote || st.phpInterp || st.pwshInterp:
		for k := 0; k+1 < len(body); k++ {
			if (body[k] == '$' || body[k] == '@' && st.perlQuote) && (isIdentStart(body[k+1]) || body[k+1] == '{' ||
				body[k+1] == '(' && st.pwshInterp) && (k == 0 || body[k-1] != '\\') {
				return true
			}
		}
		return false
	}
	return strings.Contains(body, "#{") // other languages: elixir's and the like
}

func (lx *lexer) at(i int) byte {
	if i >= 0 && i < len(lx.src) {
		return lx.src[i]
	}
	return 0
}

func (lx *lexer) run() {
	s := lx.src
	for lx.i < len(s) {
		c := s[lx.i]
		if c == '\n' {
			lx.tok(tNewline, lx.i, lx.i+1)
			lx.i++
			if len(lx.pending) > 0 {
				lx.heredocBodies()
				lx.endLits()
			}
			lx.lineStartDoc()
			continue
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
			lx.i++
			continue
		}
		if lx.i == 0 && lx.lineStartDoc() {
			continue
		}
		if lx.comment() {
			continue
		}
		if lx.quote() {
			lx.endLits()
			continue
		}
		switch {
		case isIdentStart(c):
			start := lx.i
			for lx.i < len(s) && isIdentChar(s[lx.i]) {
				lx.i++
			}
			w := s[start:lx.i]
			if lx.afterWord(start, w) {
				lx.endLits()
				continue
			}
			lx.tok(tIdent, start, lx.i)
			lx.prev, lx.prevWord = 'a', w
		case isDigit(c):
			start := lx.i
			for lx.i < len(s) && (isIdentChar(s[lx.i]) || s[lx.i] == '.') {
				lx.i++
			}
			lx.tok(tNum, start, lx.i)
			lx.prev, lx.prevWord = 'a', ""
		case c == '/' && lx.st.regex && lx.regexAllowed():
			start := lx.i
			if !lx.skipRegex() {
				lx.i++
				lx.tok(tPunct, start, lx.i)
				lx.prev, lx.prevWord = '/', ""
			} else {
				lx.tok(tOther, start, lx.i)
				lx.prev, lx.prevWord = 'a', ""
			}
		default:
			if c >= 0x80 {
				lx.nonASCII = true
			}
			lx.tok(tPunct, lx.i, lx.i+1)
			lx.i++
			if c == ')' || c == ']' {
				lx.prev = 'a'
			} else {
				lx.prev = c
			}
			lx.prevWord = ""
		}
	}
}

var regexKeywords = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true,
	"new": true, "delete": true, "void": true, "throw": true, "case": true,
	"do": true, "else": true, "yield": true, "await": true, "split": true,
	"grep": true, "map": true, "join": true, "and": true, "or": true,
	"not": true, "if": true, "unless": true, "while": true, "until": true,
	"when": true, "push": true, "unshift": true, "puts": true, "print": true,
	"p": true, "then": true, "elsif": true,
}

// regexAllowed reports whether a '/' (or a bare ruby %) at lx.i starts a
// literal rather than being an operator.
func (lx *lexer) regexAllowed() bool {
	if lx.i < lx.noRegexUntil {
		return false
	}
	if lx.prev == 0 {
		return true
	}
	if lx.prev == 'a' {
		return regexKeywords[lx.prevWord]
	}
	return true
}

// skipRegex consumes a /regex/ literal on the current line. It returns false
// (consuming nothing) when the regex does not end on this line.
func (lx *lexer) skipRegex() bool {
	s := lx.src
	j := lx.i + 1
	inClass := false
	for j < len(s) {
		switch s[j] {
		case '\\':
			j += 2
			continue
		case '\n':
			lx.noRegexUntil = j
			return false
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '/':
			if !inClass {
				j++
				for j < len(s) && isIdentChar(s[j]) { // flags
					j++
				}
				lx.i = j
				return true
			}
		}
		j++
	}
	lx.noRegexUntil = len(s)
	return false
}

// lineStartDoc skips perl POD and ruby =begin/=end blocks at lx.i, which must
// be at the start of a line.
func (lx *lexer) lineStartDoc() bool {
	if lx.at(lx.i) != '=' || !isIdentStart(lx.at(lx.i+1)) {
		return false
	}
	s := lx.src
	var end string
	switch {
	case lx.st.rubyDoc && strings.HasPrefix(s[lx.i:], "=begin"):
		end = "\n=end"
	case lx.st.pod:
		end = "\n=cut"
	default:
		return false
	}
	k := strings.Index(s[lx.i:], end)
	if k < 0 {
		lx.i = len(s)
		return true
	}
	lx.i += k + len(end)
	for lx.i < len(s) && s[lx.i] != '\n' {
		lx.i++
	}
	return true
}

func (lx *lexer) skipToEOL() {
	for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
		lx.i++
	}
}

// comment consumes a comment starting at lx.i, if any.
func (lx *lexer) comment() bool {
	s, i, st := lx.src, lx.i, lx.st
	c := s[i]
	switch {
	case c == '#' && st.hashComment:
		if i > 0 && s[i-1] == '$' && st.perlQuote { // perl $#array
			return false
		}
		lx.skipToEOL()
		return true
	case c == '#' && i == 0 && lx.at(1) == '!': // shebang
		lx.skipToEOL()
		return true
	case c == '/' && st.slashComment && lx.at(i+1) == '/':
		lx.skipToEOL()
		return true
	case c == '/' && st.slashComment && lx.at(i+1) == '*':
		k := strings.Index(s[i+2:], "*/")
		if k < 0 {
			lx.i = len(s)
		} else {
			lx.i = i + 2 + k + 2
		}
		return true
	case c == '-' && st.dashComment && lx.at(i+1) == '-':
		if st.luaLong && lx.at(i+2) == '[' {
			if end, ok := lx.longBracket(i + 2); ok {
				lx.i = end
				return true
			}
		}
		lx.skipToEOL()
		return true
	case c == '(' && st.osaComment && lx.at(i+1) == '*':
		depth := 0
		j := i
		for j < len(s) {
			if s[j] == '(' && j+1 < len(s) && s[j+1] == '*' {
				depth++
				j += 2
				continue
			}
			if s[j] == '*' && j+1 < len(s) && s[j+1] == ')' {
				depth--
				j += 2
				if depth == 0 {
					break
				}
				continue
			}
			j++
		}
		lx.i = j
		return true
	case c == '<' && st.pwshComment && lx.at(i+1) == '#':
		k := strings.Index(s[i+2:], "#>")
		if k < 0 {
			lx.i = len(s)
		} else {
			lx.i = i + 2 + k + 2
		}
		return true
	}
	return false
}

// longBracket skips a lua long bracket [==[ ... ]==] starting at i and
// returns the offset after it.
func (lx *lexer) longBracket(i int) (end int, ok bool) {
	_, end, ok = lx.longBracketBody(i)
	return end, ok
}

// longBracketBody parses a lua long bracket starting at i and returns its
// body and the offset after it; an unclosed bracket runs to the end.
func (lx *lexer) longBracketBody(i int) (body string, end int, ok bool) {
	s := lx.src
	j := i + 1
	for j < len(s) && s[j] == '=' {
		j++
	}
	if j >= len(s) || s[j] != '[' {
		return "", 0, false
	}
	level := j - i - 1
	j++
	closing := "]" + strings.Repeat("=", level) + "]"
	k := strings.Index(s[j:], closing)
	if k < 0 {
		return s[j:], len(s), true
	}
	return s[j : j+k], j + k + len(closing), true
}

// quote consumes a string literal (or literal-like construct) at lx.i.
func (lx *lexer) quote() bool {
	s, i, st := lx.src, lx.i, lx.st
	c := s[i]
	switch {
	case c == '\'' && st.singleOn:
		if st.pyPrefix && strings.HasPrefix(s[i:], "'''") {
			lx.triple(i, "", "'''")
			return true
		}
		lx.simpleString(i, c, st.single, false)
		return true
	case c == '"' && st.doubleOn:
		if st.pyPrefix && strings.HasPrefix(s[i:], `"""`) {
			lx.triple(i, "", `"""`)
			return true
		}
		lx.simpleString(i, c, st.double, false)
		return true
	case c == '`' && st.backtick == 1:
		lx.template(i)
		return true
	case c == '`' && st.backtick == 2:
		lx.simpleString(i, c, escFull, true)
		return true
	case c == '[' && st.luaLong && (lx.at(i+1) == '[' || lx.at(i+1) == '='):
		body, end, ok := lx.longBracketBody(i)
		if !ok {
			return false
		}
		body = strings.TrimPrefix(body, "\n")
		lx.emitLit(i, body, escRaw, false)
		lx.i = end
		lx.prev, lx.prevWord = 'a', ""
		return true
	case c == '%' && st.rubyPercent:
		return lx.rubyPercentLit(i)
	case c == '<' && st.heredoc != 0 && lx.at(i+1) == '<':
		return lx.heredocStart(i)
	case c == '@' && st.pwshHere && (lx.at(i+1) == '"' || lx.at(i+1) == '\''):
		return lx.pwshHereString(i)
	}
	return false
}

// emitLit decodes body and reports it.
func (lx *lexer) emitLit(start int, body string, mode escMode, cmd bool) {
	val, changed := decodeLiteral(body, mode, lx.st)
	lx.emit(lit{start: start, val: val, changed: changed, cmd: cmd})
	if lx.toks != nil {
		*lx.toks = append(*lx.toks, token{kind: tLit, start: start, end: -1, text: val,
			interp: lx.interpolates(body, mode), cmd: cmd})
	}
}

// simpleString consumes a quoted string starting at i with quote q.
func (lx *lexer) simpleString(i int, q byte, mode escMode, cmd bool) {
	s := lx.src
	st := lx.st
	j := i + 1
	singleLine := st.singleLine
	interp := q != '\'' && (st.rubyInterp || st.phpInterp || st.pwshInterp)
	for j < len(s) {
		b := s[j]
		if b == q {
			if (mode == escPwsh || mode == escPwshSingle) && j+1 < len(s) && s[j+1] == q {
				j += 2 // doubled quote
				continue
			}
			break
		}
		if b == '\\' && mode != escPwsh && mode != escPwshSingle {
			j += 2
			continue
		}
		if b == '`' && mode == escPwsh {
			j += 2
			continue
		}
		if b == '\n' && singleLine {
			break
		}
		if interp {
			switch {
			case st.rubyInterp && b == '#' && j+1 < len(s) && s[j+1] == '{':
				j = lx.skipBalanced(j+2, '{', '}')
				continue
			case st.phpInterp && b == '{' && j+1 < len(s) && s[j+1] == '$':
				j = lx.skipBalanced(j+1, '{', '}')
				continue
			case st.pwshInterp && b == '$' && j+1 < len(s) && s[j+1] == '(':
				j = lx.skipBalanced(j+2, '(', ')')
				continue
			}
		}
		j++
	}
	if j > len(s) {
		j = len(s)
	}
	lx.emitLit(i, s[i+1:j], mode, cmd)
	if j < len(s) && s[j] == q {
		j++
	}
	lx.i = j
	lx.prev, lx.prevWord = 'a', ""
}

// skipBalanced returns the offset just after the close byte matching an
// already consumed open byte, skipping simple quoted strings inside.
func (lx *lexer) skipBalanced(j int, open, close byte) int {
	s := lx.src
	depth := 1
	for j < len(s) {
		b := s[j]
		switch b {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return j + 1
			}
		case '\\':
			j += 2
			continue
		case '\'', '"', '`':
			j++
			for j < len(s) && s[j] != b {
				if s[j] == '\\' {
					j++
				}
				j++
			}
		}
		j++
	}
	return len(s)
}

// template consumes a JS template literal. The text is kept as written,
// including ${...} parts.
func (lx *lexer) template(i int) {
	s := lx.src
	j := i + 1
	for j < len(s) {
		b := s[j]
		if b == '`' {
			break
		}
		if b == '\\' {
			j += 2
			continue
		}
		if b == '$' && j+1 < len(s) && s[j+1] == '{' {
			j = lx.skipBalanced(j+2, '{', '}')
			continue
		}
		j++
	}
	if j > len(s) {
		j = len(s)
	}
	lx.emitLit(i, s[i+1:j], escFull, false)
	if j < len(s) {
		j++
	}
	lx.i = j
	lx.prev, lx.prevWord = 'a', ""
}

// triple consumes a python triple-quoted string whose opening quotes start
// at i (after any prefix).
func (lx *lexer) triple(i int, prefix, q string) {
	s := lx.src
	j := i + 3
	for j < len(s) {
		if s[j] == '\\' {
			j += 2
			continue
		}
		if strings.HasPrefix(s[j:], q) {
			break
		}
		j++
	}
	if j > len(s) {
		j = len(s)
	}
	lx.emitLit(i, s[i+3:j], pyMode(prefix), false)
	if j < len(s) {
		j += 3
		if j > len(s) {
			j = len(s)
		}
	}
	lx.i = j
	lx.prev, lx.prevWord = 'a', ""
}

func pyMode(prefix string) escMode {
	if strings.ContainsAny(prefix, "rR") {
		return escRaw
	}
	return escKeep
}

func isPyPrefix(w string) bool {
	if len(w) > 2 {
		return false
	}
	for k := 0; k < len(w); k++ {
		switch w[k] {
		case 'r', 'R', 'b', 'B', 'u', 'U', 'f', 'F', 't', 'T':
		default:
			return false
		}
	}
	return true
}

// afterWord handles constructs introduced by an identifier: python string
// prefixes and perl quote-like operators. It reports whether it consumed
// a literal.
func (lx *lexer) afterWord(start int, w string) bool {
	s := lx.src
	st := lx.st
	if st.pyPrefix && isPyPrefix(w) && lx.i < len(s) && (s[lx.i] == '\'' || s[lx.i] == '"') {
		lx.prefix = w
		defer func() { lx.prefix = "" }()
		q := s[lx.i : lx.i+1]
		if strings.HasPrefix(s[lx.i:], q+q+q) {
			lx.triple(lx.i, w, q+q+q)
			return true
		}
		lx.simpleString(lx.i, s[lx.i], pyMode(w), false)
		return true
	}
	if st.perlQuote {
		switch w {
		case "q", "qq", "qw", "qx", "m", "qr", "s", "tr", "y":
			return lx.perlQuoteLike(start, w)
		}
	}
	return false
}

func closingOf(d byte) byte {
	switch d {
	case '(':
		return ')'
	case '[':
		return ']'
	case '{':
		return '}'
	case '<':
		return '>'
	}
	return d
}

// delimitedPart consumes text after an opening delimiter d at j-1 and
// returns the body and the offset after the closing delimiter. Bracketing
// delimiters nest.
func (lx *lexer) delimitedPart(j int, d byte) (string, int) {
	s := lx.src
	cl := closingOf(d)
	depth := 1
	start := j
	for j < len(s) {
		b := s[j]
		if b == '\\' {
			j += 2
			continue
		}
		if b == cl {
			depth--
			if depth == 0 {
				return s[start:j], j + 1
			}
		} else if b == d && cl != d {
			depth++
		}
		j++
	}
	if start > len(s) {
		start = len(s)
	}
	return s[start:], len(s)
}

func isSpaceByte(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

func (lx *lexer) perlQuoteLike(start int, w string) bool {
	s := lx.src
	// Not an operator after a sigil, an arrow or in a hash subscript.
	if start > 0 {
		switch s[start-1] {
		case '$', '@', '%', '&', '*', '>', ':', '-':
			return false
		}
	}
	k := lx.i
	for k < len(s) && isSpaceByte(s[k]) {
		k++
	}
	if k >= len(s) {
		return false
	}
	d := s[k]
	if isIdentChar(d) || d >= 0x80 {
		return false
	}
	switch d {
	case '=', ',', ';', ')', ']', '}', '>':
		return false
	case '#':
		if k != lx.i {
			return false // a comment
		}
	}
	body, j := lx.delimitedPart(k+1, d)
	switch w {
	case "s", "tr", "y":
		if closingOf(d) != d {
			for j < len(s) && isSpaceByte(s[j]) {
				j++
			}
			if j < len(s) {
				d2 := s[j]
				_, j = lx.delimitedPart(j+1, d2)
			}
		} else {
			_, j = lx.delimitedPart(j, d)
		}
	}
	m := j
	for j < len(s) && isIdentChar(s[j]) {
		j++
	}
	mods := s[m:j]
	switch w {
	case "q":
		lx.emitLit(start, body, escMinimal, false)
	case "qq":
		lx.emitLit(start, body, escFull, false)
	case "qx":
		lx.emitLit(start, body, escFull, true)
	case "qw":
		for _, f := range strings.Fields(body) {
			lx.emitLit(start, f, escRaw, false)
		}
	case "s":
		if strings.Count(mods, "e") >= 2 {
			lx.dynamic = true
		}
	}
	lx.i = j
	lx.prev, lx.prevWord = 'a', ""
	return true
}

func isAlnum(b byte) bool { return isIdentChar(b) && b != '_' }

// rubyPercentLit consumes %q(...) and friends.
func (lx *lexer) rubyPercentLit(i int) bool {
	s := lx.src
	j := i + 1
	kind := byte(0)
	if j < len(s) && strings.IndexByte("qQwWiIxrs", s[j]) >= 0 {
		kind = s[j]
		j++
	}
	if j >= len(s) {
		return false
	}
	d := s[j]
	if isAlnum(d) || isSpaceByte(d) || d >= 0x80 || d == '=' {
		return false
	}
	if kind == 0 && !lx.regexAllowed() {
		return false
	}
	body, end := lx.delimitedPart(j+1, d)
	switch kind {
	case 'q':
		lx.emitLit(i, body, escMinimal, false)
	case 0, 'Q':
		lx.emitLit(i, body, escFull, false)
	case 'x':
		lx.emitLit(i, body, escFull, true)
	case 'w', 'W', 'i', 'I':
		for _, f := range strings.Fields(body) {
			lx.emitLit(i, f, escRaw, false)
		}
	}
	lx.i = end
	lx.prev, lx.prevWord = 'a', ""
	return true
}

// heredocStart recognises <<TAG, <<~TAG, <<-TAG, <<"TAG", <<'TAG' (perl,
// ruby) and <<<TAG, <<<"TAG", <<<'TAG' (php). The body is read when the
// current line ends.
func (lx *lexer) heredocStart(i int) bool {
	s := lx.src
	j := i + 2
	php := lx.st.heredoc == 2
	if php {
		if lx.at(j) != '<' {
			return false
		}
		j++
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
	} else if lx.at(j) == '~' || lx.at(j) == '-' {
		j++
	}
	mode := escFull
	if php {
		mode = escKeep
	}
	cmd := false
	var tag string
	switch q := lx.at(j); {
	case q == '"' || q == '\'' || (q == '`' && !php):
		k := j + 1
		for k < len(s) && isIdentChar(s[k]) {
			k++
		}
		if k == j+1 || lx.at(k) != q {
			return false
		}
		tag = s[j+1 : k]
		j = k + 1
		if q == '\'' {
			mode = escRaw
		}
		cmd = q == '`'
	case isIdentStart(q):
		if !php && !(q == '_' || (q >= 'A' && q <= 'Z')) {
			return false
		}
		k := j
		for k < len(s) && isIdentChar(s[k]) {
			k++
		}
		tag = s[j:k]
		j = k
	default:
		return false
	}
	lx.pending = append(lx.pending, pendingDoc{tag: tag, mode: mode, cmd: cmd, php: php})
	lx.i = j
	lx.prev, lx.prevWord = 'a', ""
	return true
}

// heredocBodies reads the bodies of pending heredocs; lx.i is at the start
// of the line after the one that introduced them.
func (lx *lexer) heredocBodies() {
	s := lx.src
	docs := lx.pending
	lx.pending = nil
	for _, d := range docs {
		start := lx.i
		pos := start
		end := -1
		for pos < len(s) {
			e := strings.IndexByte(s[pos:], '\n')
			lineEnd := len(s)
			if e >= 0 {
				lineEnd = pos + e
			}
			line := strings.TrimSpace(s[pos:lineEnd])
			if line == d.tag || (d.php && strings.HasPrefix(line, d.tag) && !isIdentChar(line[len(d.tag)])) {
				end = pos
				pos = lineEnd
				if pos < len(s) {
					pos++
				}
				break
			}
			pos = lineEnd + 1
		}
		if pos > len(s) {
			pos = len(s)
		}
		if end < 0 {
			end = len(s)
		}
		if start > end {
			start = end
		}
		lx.emitLit(start, s[start:end], d.mode, d.cmd)
		lx.i = pos
	}
}

// pwshHereString consumes @"...\n"@ and @'...\n'@.
func (lx *lexer) pwshHereString(i int) bool {
	s := lx.src
	q := s[i+1]
	j := i + 2
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
		j++
	}
	if j >= len(s) || s[j] != '\n' {
		return false
	}
	j++
	closing := "\n" + string(q) + "@"
	k := strings.Index(s[j-1:], closing)
	body, end := "", len(s)
	if k < 0 {
		body = s[j:]
	} else {
		bodyEnd := j - 1 + k
		if bodyEnd < j {
			bodyEnd = j
		}
		body = s[j:bodyEnd]
		end = j - 1 + k + len(closing)
	}
	mode := escPwsh
	if q == '\'' {
		mode = escRaw
	}
	lx.emitLit(i, body, mode, false)
	lx.i = end
	lx.prev, lx.prevWord = 'a', ""
	return true
}

// decodeLiteral unescapes body according to mode. changed reports whether
// any escape sequence was seen. The result is never longer than body.
func decodeLiteral(body string, mode escMode, st *lexStyle) (string, bool) {
	switch mode {
	case escRaw:
		return body, false
	case escPwshSingle:
		if !strings.Contains(body, "''") {
			return body, false
		}
		return strings.ReplaceAll(body, "''", "'"), true
	}
	escByte := byte('\\')
	if mode == escPwsh {
		escByte = '`'
	}
	if strings.IndexByte(body, escByte) < 0 && !(mode == escPwsh && strings.Contains(body, `""`)) {
		return body, false
	}
	b := make([]byte, 0, len(body))
	changed := false
	for i := 0; i < len(body); {
		c := body[i]
		if mode == escPwsh && c == '"' && i+1 < len(body) && body[i+1] == '"' {
			b = append(b, '"')
			i += 2
			changed = true
			continue
		}
		if c != escByte || i+1 >= len(body) {
			b = append(b, c)
			i++
			continue
		}
		changed = true
		d := body[i+1]
		i += 2
		if mode == escMinimal {
			if d == '\\' || d == '\'' || d == '"' {
				b = append(b, d)
			} else {
				b = append(b, '\\', d)
			}
			continue
		}
		if mode == escPwsh {
			switch d {
			case '0':
				b = append(b, 0)
			case 'a':
				b = append(b, 7)
			case 'b':
				b = append(b, 8)
			case 'e':
				b = append(b, 0x1b)
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'v':
				b = append(b, '\v')
			case 'u':
				if r, n, ok := braceHex(body[i:]); ok {
					b = utf8.AppendRune(b, r)
					i += n
				} else {
					b = append(b, d)
				}
			default:
				b = append(b, d)
			}
			continue
		}
		switch d {
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'r':
			b = append(b, '\r')
		case 'a':
			b = append(b, 7)
		case 'b':
			b = append(b, 8)
		case 'f':
			b = append(b, '\f')
		case 'v':
			b = append(b, '\v')
		case 'e':
			if st.noEscE {
				b = append(b, '\\', 'e')
			} else {
				b = append(b, 0x1b)
			}
		case '\n':
			// line continuation
		case '\r':
			if i < len(body) && body[i] == '\n' {
				i++
			}
		case '\\', '\'', '"', '`', '$', '/', '?', '{', '}', '@', '#':
			b = append(b, d)
		case 'x':
			if r, n, ok := braceHex(body[i:]); ok {
				b = utf8.AppendRune(b, r)
				i += n
				break
			}
			v, n := hexDigits(body[i:], 2)
			if n == 0 {
				b = appendUnknown(b, mode, d)
				break
			}
			i += n
			if st.xIsRune {
				b = utf8.AppendRune(b, rune(v))
			} else {
				b = append(b, byte(v))
			}
		case 'u':
			if r, n, ok := braceHex(body[i:]); ok {
				b = utf8.AppendRune(b, r)
				i += n
				break
			}
			v, n := hexDigits(body[i:], 4)
			if n != 4 {
				b = appendUnknown(b, mode, d)
				break
			}
			i += n
			b = utf8.AppendRune(b, rune(v))
		case 'U':
			v, n := hexDigits(body[i:], 8)
			if !st.bigU || n != 8 {
				b = appendUnknown(b, mode, d)
				break
			}
			i += n
			b = utf8.AppendRune(b, rune(v))
		case 'z':
			if mode == escLua {
				for i < len(body) && isSpaceByte(body[i]) {
					i++
				}
				break
			}
			b = appendUnknown(b, mode, d)
		default:
			switch {
			case mode == escLua && isDigit(d):
				v := int(d - '0')
				for n := 0; n < 2 && i < len(body) && isDigit(body[i]); n++ {
					v = v*10 + int(body[i]-'0')
					i++
				}
				b = append(b, byte(v))
			case d >= '0' && d <= '7':
				v := int(d - '0')
				for n := 0; n < 2 && i < len(body) && body[i] >= '0' && body[i] <= '7'; n++ {
					v = v*8 + int(body[i]-'0')
					i++
				}
				if st.xIsRune {
					b = utf8.AppendRune(b, rune(v))
				} else {
					b = append(b, byte(v))
				}
			default:
				b = appendUnknown(b, mode, d)
			}
		}
	}
	return string(b), changed
}

func appendUnknown(b []byte, mode escMode, d byte) []byte {
	if mode == escKeep || mode == escLua {
		return append(b, '\\', d)
	}
	return append(b, d)
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// hexDigits parses up to max hex digits.
func hexDigits(s string, max int) (v, n int) {
	for n < max && n < len(s) {
		h := hexVal(s[n])
		if h < 0 {
			break
		}
		v = v*16 + h
		n++
	}
	return v, n
}

// braceHex parses {HHHH} (1 to 8 hex digits) and returns the code point and
// the number of bytes consumed.
func braceHex(s string) (rune, int, bool) {
	if len(s) < 3 || s[0] != '{' {
		return 0, 0, false
	}
	v, n := hexDigits(s[1:], 8)
	if n == 0 || 1+n >= len(s) || s[1+n] != '}' {
		return 0, 0, false
	}
	if v > utf8.MaxRune {
		v = utf8.RuneError
	}
	return rune(v), n + 2, true
}

// capString truncates s to maxLiteral bytes, backing off to a rune boundary
// when the cut would split a valid UTF-8 sequence.
func capString(s string) string {
	if len(s) <= maxLiteral {
		return s
	}
	cut := maxLiteral
	for k := 0; k < utf8.UTFMax && cut > 0 && !utf8.RuneStart(s[cut]); k++ {
		cut--
	}
	if cut == 0 {
		cut = maxLiteral
	}
	return s[:cut]
}
