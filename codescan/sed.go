package codescan

import "strconv"

// SedResult describes a GNU sed script.
type SedResult struct {
	Safe     bool     // parsed fully and contains nothing that executes or writes
	Executes bool     // the `e` command, or the `e` flag of s///
	Writes   []string // files written by w/W commands or the w flag of s/// (including /dev/stdout etc. as written)
	Reads    []string // files read by r/R commands
	Reason   string   // why not safe (empty when safe)
}

// Sed parses script as a GNU sed program (the text given to -e or read with
// -f; several -e scripts should be joined with newlines by the caller) and
// describes what it can do.
//
// The parser follows GNU sed 4.9: commands are separated by ';' or newlines,
// each with an optional address (N, $, /re/ or \cREc with I/M modifiers,
// first~step, addr1,addr2, addr,+N, addr,~N, 0,/re/), an optional '!', and
// one of the commands { } s y a i c r R w W e q Q l = d D n N p P h H g G x z
// F b t T : v #. File names of r/R/w/W and of the w flag of s, and the command
// of e, run to the end of the line (a ';' does not end them), exactly as in
// GNU sed. a/i/c text runs to the end of the line, with backslash-newline
// continuing it, in both the one-liner (GNU) and the classic "a\" form (as
// in GNU, the character right after "a\" is taken literally, so "a\\" ends
// the text at the newline). Labels of : b t T end at a blank, newline, ';',
// '}' or '#' (a CR is part of a label), and every b/t/T label must be
// defined by a : command; v accepts no argument or a version up to 4.9.
//
// Contract:
//   - Executes is true when the script contains the e command or an s command
//     with the e flag.
//   - Writes lists, in order and without duplicates, the file names of w and W
//     commands and of the w flag of s; special files such as /dev/stdout are
//     reported like any other file.
//   - Reads lists, in order and without duplicates, the file names of r and R
//     commands. Reading does not make a script unsafe by itself.
//   - Safe is true only when the whole script parsed without error, Executes
//     is false and Writes is empty. Reason then is empty; otherwise Reason
//     explains the first problem found.
//   - Anything unrecognised or unterminated makes the script unsafe. Parsing
//     stops at the first syntax error, so Executes, Writes and Reads only
//     describe the part of the script before the error.
//   - A regular expression whose bracket expression contains the delimiter
//     (s/[/]/x/), or a y command containing '[', is reported unsafe because
//     sed implementations disagree on where such an argument ends.
//
// Sed never panics and runs in time linear in len(script).
func Sed(script string) SedResult {
	p := sedParser{s: script}
	p.parse()
	res := SedResult{
		Executes: p.executes,
		Writes:   p.writes,
		Reads:    p.reads,
	}
	switch {
	case p.err != "":
		res.Reason = p.err
	case p.executes:
		res.Reason = "executes a command (e)"
	case len(p.writes) > 0:
		res.Reason = "writes to file " + strconv.Quote(p.writes[0])
	default:
		res.Safe = true
	}
	if res.Reason == "" && !res.Safe {
		res.Reason = "not safe"
	}
	return res
}

type sedParser struct {
	s        string
	i        int
	depth    int
	err      string
	executes bool
	writes   []string
	reads    []string
	seenW    map[string]bool
	seenR    map[string]bool
	labels   map[string]bool
	jumps    []string
}

func (p *sedParser) eof() bool { return p.i >= len(p.s) }

// peek returns the next byte or -1 at the end of the script.
func (p *sedParser) peek() int {
	if p.i >= len(p.s) {
		return -1
	}
	return int(p.s[p.i])
}

func (p *sedParser) fail(msg string) {
	if p.err == "" {
		p.err = msg
	}
}

func sedIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// skipBlank skips spaces and tabs (GNU's in_nonblank).
func (p *sedParser) skipBlank() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *sedParser) addWrite(name string) {
	if p.seenW == nil {
		p.seenW = map[string]bool{}
	}
	if !p.seenW[name] {
		p.seenW[name] = true
		p.writes = append(p.writes, name)
	}
}

func (p *sedParser) addRead(name string) {
	if p.seenR == nil {
		p.seenR = map[string]bool{}
	}
	if !p.seenR[name] {
		p.seenR[name] = true
		p.reads = append(p.reads, name)
	}
}

func (p *sedParser) parse() {
	for p.err == "" {
		// Skip separators between commands.
		for p.i < len(p.s) && (p.s[p.i] == ';' || sedIsSpace(p.s[p.i])) {
			p.i++
		}
		if p.eof() {
			break
		}
		hasAddr, ok := p.addresses()
		if !ok {
			return
		}
		p.skipBlank()
		if p.peek() == '!' {
			p.i++
			p.skipBlank()
			if p.peek() == '!' {
				p.fail("multiple '!'s")
				return
			}
		}
		if p.eof() {
			p.fail("missing command")
			return
		}
		p.command(hasAddr)
	}
	if p.err == "" && p.depth > 0 {
		p.fail("unmatched '{'")
	}
	for _, l := range p.jumps {
		if !p.labels[l] {
			p.fail("can't find label for jump to " + strconv.Quote(l))
			break
		}
	}
}

// addresses parses an optional address or address range. It reports whether
// an address was present, and false in ok on a syntax error.
func (p *sedParser) addresses() (has, ok bool) {
	a1, ok := p.address(true)
	if !ok {
		return false, false
	}
	if a1 == addrNone {
		return false, true
	}
	p.skipBlank()
	if p.peek() != ',' {
		if a1 == addrZero {
			p.fail("invalid usage of line address 0")
			return true, false
		}
		return true, true
	}
	p.i++
	p.skipBlank()
	a2, ok := p.address(false)
	if !ok {
		return true, false
	}
	if a2 == addrNone {
		p.fail("unexpected ','")
		return true, false
	}
	if a1 == addrZero && a2 != addrRegex {
		p.fail("invalid usage of line address 0")
		return true, false
	}
	return true, true
}

type sedAddr int

const (
	addrNone sedAddr = iota
	addrZero
	addrLine
	addrLast
	addrRegex
	addrRel
)

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digits consumes a run of decimal digits and reports whether it was all zero.
func (p *sedParser) digits() (n int, zero bool) {
	zero = true
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		if p.s[p.i] != '0' {
			zero = false
		}
		p.i++
		n++
	}
	return n, zero
}

func (p *sedParser) address(first bool) (sedAddr, bool) {
	c := p.peek()
	switch {
	case c == '/':
		p.i++
		if !p.delimited('/', true) {
			p.fail("unterminated address regex")
			return addrRegex, false
		}
		p.regexModifiers()
		return addrRegex, true
	case c == '\\':
		p.i++
		d := p.peek()
		if d < 0 || d == '\n' || d == '\\' {
			p.fail("unexpected end of address regex delimiter")
			return addrRegex, false
		}
		if d >= 0x80 {
			p.fail("non-ASCII regex delimiter")
			return addrRegex, false
		}
		p.i++
		if !p.delimited(byte(d), true) {
			p.fail("unterminated address regex")
			return addrRegex, false
		}
		p.regexModifiers()
		return addrRegex, true
	case c >= 0 && isDigit(byte(c)):
		_, zero := p.digits()
		save := p.i
		p.skipBlank()
		if p.peek() == '~' {
			p.i++
			p.skipBlank()
			if n, _ := p.digits(); n == 0 {
				p.fail("expected number after '~'")
				return addrLine, false
			}
			return addrLine, true
		}
		p.i = save
		if zero {
			return addrZero, true
		}
		return addrLine, true
	case c == '+' || c == '~':
		if first {
			p.fail("invalid usage of +N or ~N as first address")
			return addrRel, false
		}
		p.i++
		p.skipBlank()
		if n, _ := p.digits(); n == 0 {
			p.fail("expected number after '" + string(rune(c)) + "'")
			return addrRel, false
		}
		return addrRel, true
	case c == '$':
		p.i++
		return addrLast, true
	}
	return addrNone, true
}

func (p *sedParser) regexModifiers() {
	for {
		p.skipBlank()
		c := p.peek()
		if c != 'I' && c != 'M' {
			return
		}
		p.i++
	}
}

// delimited consumes text up to and including an unescaped delim, as GNU
// sed's match_slash does. When regex is true, bracket expressions are
// honoured (a delimiter inside one is reported as ambiguous). It returns
// false (after setting an error) when the text is unterminated.
func (p *sedParser) delimited(delim byte, regex bool) bool {
	brackets := regex && delim != '['
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == delim:
			p.i++
			return true
		case c == '\n':
			return false
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return false
			}
			p.i++ // escaped character, including an escaped newline
			continue
		case c == '[' && brackets:
			if !p.bracket(delim) {
				return false
			}
			continue
		}
		p.i++
	}
	return false
}

// bracket consumes a bracket expression starting at '['. It fails when the
// expression is unterminated on its line or contains the delimiter.
func (p *sedParser) bracket(delim byte) bool {
	switch delim {
	case ']', '^', ':', '.', '=':
		// The delimiter is itself bracket syntax: too ambiguous to guess.
		p.fail("regex delimiter inside a bracket expression (sed implementations disagree)")
		return false
	}
	p.i++ // '['
	if p.peek() == '^' {
		p.i++
	}
	if p.peek() == ']' {
		p.i++
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '\n':
			return false
		case ']':
			p.i++
			return true
		case delim:
			p.fail("regex delimiter inside a bracket expression (sed implementations disagree)")
			return false
		case '[':
			if p.i+1 < len(p.s) {
				if k := p.s[p.i+1]; k == ':' || k == '.' || k == '=' {
					// [:class:], [.coll.], [=equiv=]
					p.i += 2
					for {
						if p.i+1 >= len(p.s) || p.s[p.i] == '\n' {
							return false
						}
						if p.s[p.i] == delim {
							p.fail("regex delimiter inside a bracket expression (sed implementations disagree)")
							return false
						}
						if p.s[p.i] == k && p.s[p.i+1] == ']' {
							p.i += 2
							break
						}
						p.i++
					}
					continue
				}
			}
		}
		p.i++
	}
	return false
}

// endOfCmd implements GNU's read_end_of_cmd.
func (p *sedParser) endOfCmd(cmd byte) bool {
	p.skipBlank()
	c := p.peek()
	switch c {
	case -1, '\n', ';':
		if c >= 0 {
			p.i++
		}
		return true
	case '}', '#':
		return true
	}
	p.fail("extra characters after command '" + string(rune(cmd)) + "'")
	return false
}

// restOfLine implements GNU's read_filename: skip blanks, then everything up
// to the end of the line.
func (p *sedParser) restOfLine() string {
	p.skipBlank()
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != '\n' {
		p.i++
	}
	return p.s[start:p.i]
}

// label implements GNU's read_label: skip blanks, then read up to a space,
// tab, newline, ';', '}' or '#' (a CR, VT or FF is part of the label, as in
// GNU sed 4.9), consuming a space, tab, newline or ';' terminator.
func (p *sedParser) label() string {
	p.skipBlank()
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '}' || c == '#' {
			break
		}
		p.i++
	}
	l := p.s[start:p.i]
	if p.i < len(p.s) && p.s[p.i] != '}' && p.s[p.i] != '#' {
		p.i++
	}
	return l
}

// sedVersionOK reports whether the argument of v names a GNU sed version
// this parser knows (4.9 or older); an empty argument is fine.
func sedVersionOK(v string) bool {
	if v == "" {
		return true
	}
	major, minor := -1, 0
	part, n := 0, 0
	for k := 0; k <= len(v); k++ {
		if k == len(v) || v[k] == '.' {
			if n == 0 {
				return false
			}
			part++
			n = 0
			continue
		}
		if !isDigit(v[k]) || n > 4 {
			return false
		}
		n++
		d := int(v[k] - '0')
		switch part {
		case 0:
			if major < 0 {
				major = 0
			}
			major = major*10 + d
		case 1:
			minor = minor*10 + d
		}
	}
	return major < 4 || (major == 4 && minor <= 9)
}

func (p *sedParser) command(hasAddr bool) {
	c := p.s[p.i]
	p.i++
	switch c {
	case '#':
		if hasAddr {
			p.fail("comments don't accept any addresses")
			return
		}
		for p.i < len(p.s) && p.s[p.i] != '\n' {
			p.i++
		}
	case '{':
		p.depth++
	case '}':
		if p.depth == 0 {
			p.fail("unexpected '}'")
			return
		}
		if hasAddr {
			p.fail("'}' doesn't want any addresses")
			return
		}
		p.depth--
		p.endOfCmd(c)
	case ':':
		if hasAddr {
			p.fail("':' doesn't want any addresses")
			return
		}
		l := p.label()
		if l == "" {
			p.fail("':' lacks a label")
			return
		}
		if p.labels == nil {
			p.labels = map[string]bool{}
		}
		p.labels[l] = true
	case 'b', 't', 'T':
		if l := p.label(); l != "" {
			p.jumps = append(p.jumps, l)
		}
	case 'v':
		if !sedVersionOK(p.label()) {
			p.fail("expected newer version of sed")
		}
	case '=', 'd', 'D', 'F', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z':
		p.endOfCmd(c)
	case 'l', 'q', 'Q':
		p.skipBlank()
		p.digits()
		p.skipBlank()
		switch p.peek() {
		case '}', '#':
		case -1, '\n', ';':
			if !p.eof() {
				p.i++
			}
		default:
			p.fail("extra characters after command '" + string(rune(c)) + "'")
		}
	case 'a', 'i', 'c':
		p.text()
	case 'r', 'R':
		name := p.restOfLine()
		if name == "" {
			p.fail("missing filename in r/R/w/W commands")
			return
		}
		p.addRead(name)
	case 'w', 'W':
		name := p.restOfLine()
		if name == "" {
			p.fail("missing filename in r/R/w/W commands")
			return
		}
		p.addWrite(name)
	case 'e':
		p.executes = true
		p.restOfLine()
	case 's':
		p.subst()
	case 'y':
		p.translit()
	default:
		if c >= 0x20 && c < 0x7f {
			p.fail("unknown command: '" + string(rune(c)) + "'")
		} else {
			p.fail("unknown command: " + strconv.QuoteToASCII(string(rune(c))))
		}
	}
}

// text consumes the argument of a, i or c.
func (p *sedParser) text() {
	p.skipBlank()
	if p.eof() {
		p.fail("expected \\ after 'a', 'c' or 'i'")
		return
	}
	if p.s[p.i] == '\\' {
		// "a\" + newline: the text is on the next line. Otherwise GNU
		// takes the character after the backslash literally, even a
		// backslash or a CR (so "a\\" + newline ends the text there).
		p.i += 2
		if p.i > len(p.s) {
			p.i = len(p.s)
		}
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '\\' {
			p.i += 2 // escaped character, including newline (continuation)
			continue
		}
		if c == '\n' {
			p.i++
			break
		}
		p.i++
	}
	if p.i > len(p.s) {
		p.i = len(p.s)
	}
}

func (p *sedParser) subst() {
	if p.eof() {
		p.fail("unterminated 's' command")
		return
	}
	d := p.s[p.i]
	if d == '\n' || d == '\\' {
		p.fail("unterminated 's' command")
		return
	}
	if d >= 0x80 {
		p.fail("non-ASCII delimiter in 's' command")
		return
	}
	p.i++
	if !p.delimited(d, true) || !p.delimited(d, false) {
		p.fail("unterminated 's' command")
		return
	}
	seenG, seenP, seenN := false, false, false
	for {
		if p.eof() {
			return
		}
		c := p.s[p.i]
		switch {
		case c == 'i' || c == 'I' || c == 'm' || c == 'M' || c == ' ' || c == '\t':
			p.i++
		case c == 'e':
			p.executes = true
			p.i++
		case c == 'g':
			if seenG {
				p.fail("multiple 'g' options to 's' command")
				return
			}
			seenG = true
			p.i++
		case c == 'p':
			if seenP {
				p.fail("multiple 'p' options to 's' command")
				return
			}
			seenP = true
			p.i++
		case isDigit(c):
			if seenN {
				p.fail("multiple number options to 's' command")
				return
			}
			seenN = true
			if _, zero := p.digits(); zero {
				p.fail("number option to 's' command may not be zero")
				return
			}
		case c == 'w':
			p.i++
			name := p.restOfLine()
			if name == "" {
				p.fail("missing filename in r/R/w/W commands")
				return
			}
			p.addWrite(name)
			return
		case c == '}' || c == '#':
			return
		case c == '\n' || c == ';':
			p.i++
			return
		case c == '\r' && p.i+1 < len(p.s) && p.s[p.i+1] == '\n':
			p.i += 2
			return
		default:
			p.fail("unknown option to 's'")
			return
		}
	}
}

func (p *sedParser) translit() {
	if p.eof() {
		p.fail("unterminated 'y' command")
		return
	}
	d := p.s[p.i]
	if d == '\n' || d == '\\' {
		p.fail("unterminated 'y' command")
		return
	}
	if d >= 0x80 {
		p.fail("non-ASCII delimiter in 'y' command")
		return
	}
	p.i++
	start := p.i
	for range 2 { // the source characters, then their replacements
		if !p.delimited(d, false) {
			p.fail("unterminated 'y' command")
			return
		}
	}
	for k := start; k < p.i; k++ {
		if p.s[k] == '[' && d != '[' {
			p.fail("'[' in 'y' command (sed implementations disagree)")
			return
		}
	}
	p.endOfCmd('y')
}
