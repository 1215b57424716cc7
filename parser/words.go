package parser

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// word is a resolved shell word.
type word struct {
	text string // static value, or source text when dynamic
	// path is the text to classify as a path: like text, with $HOME and
	// ${HOME} read as ~; "" when the word cannot be classified.
	path string
	// raw is the source text without one level of enclosing double
	// quotes, for re-parsing dynamic code ("rm -rf $HOME" → rm -rf $HOME).
	raw string
	// children is the range of segment indices created while resolving
	// the word (substitutions inside it).
	childFrom, childTo int

	// The flags last, together: the struct holds no padding (80 bytes,
	// not 96; words are copied and kept by the slice).
	dynamic bool // some part cannot be known statically
	glob    bool // unquoted glob characters (the word is otherwise static)
	// pathGlob is true when path holds glob characters.
	pathGlob bool
	// arith is true when a variable is evaluated arithmetically.
	arith bool
	// zshQual marks an unquoted zsh glob with qualifiers or flags (*(e:…:))
	// that can run code.
	zshQual bool
	// fill is true for a placeholder filled at run time with paths under
	// path (find -exec's {}): dynamic, yet classed by its root.
	fill bool
	// secretEnv marks a read of a secret-looking or indirect variable.
	secretEnv bool
	// pipe is true when the whole word is one process substitution: the
	// program reads or writes a pipe whose other end is graded on its own.
	pipe bool
	// procSubst is true when the word is (or contains) a process substitution.
	procSubst bool
	// cmdSubst is true when the word contains a command substitution.
	cmdSubst bool
	// derived is true when the word is known only through static
	// evaluation of values the command set (x=rm; $x).
	derived bool
	// tilde is true when the word starts with a tilde the shell expands
	// to the home directory (~, ~/x; not '~' nor ~user).
	tilde bool
}

// resolveWord resolves w in frame f. Substitutions inside it are walked as
// child segments of parent.
func (p *walker) resolveWord(f *frame, w *syntax.Word, parent int) word {
	out := word{childFrom: len(p.cmd.Segments)}
	if w == nil {
		out.childTo = out.childFrom
		return out
	}
	var sb, pb textBuf
	pathOK := true
	for i, part := range w.Parts {
		p.resolvePart(f, part, parent, i == 0, false, &out, &sb, &pb, &pathOK)
	}
	out.childTo = len(p.cmd.Segments)
	if len(w.Parts) == 1 {
		_, out.pipe = w.Parts[0].(*syntax.ProcSubst)
	}
	if out.dynamic {
		out.text = f.source(w)
		out.raw = out.text
		if len(w.Parts) == 1 {
			if dq, ok := w.Parts[0].(*syntax.DblQuoted); ok && len(out.raw) >= 2 && !dq.Dollar {
				out.raw = out.raw[1 : len(out.raw)-1]
			}
		}
		out.glob = false
	} else {
		out.text = sb.String()
	}
	if pathOK {
		out.path = pb.String()
	}
	return out
}

func (p *walker) resolvePart(f *frame, part syntax.WordPart, parent int, first, inDq bool, out *word, sb, pb *textBuf, pathOK *bool) {
	switch x := part.(type) {
	case *syntax.Lit:
		v := x.Value
		if inDq {
			v = unescapeDq(v)
		} else {
			if first && strings.HasPrefix(v, "~") {
				rest := v[1:]
				name := rest
				if i := strings.IndexByte(rest, '/'); i >= 0 {
					name = rest[:i]
				}
				if name != "" {
					// ~user, ~+, ~-: not knowable.
					out.dynamic = true
					*pathOK = false
				} else {
					out.tilde = true
				}
			}
			if hasGlob(v, f.shell) {
				out.glob = true
				out.pathGlob = true
			}
			if f.shell == "zsh" && strings.ContainsAny(v, "(") {
				out.zshQual = true
			}
			if first && f.shell == "zsh" && len(v) > 1 && v[0] == '=' {
				// =cmd (EQUALS, on by default) is the path of cmd in PATH:
				// a program or a write target nobody can know from the text.
				out.dynamic = true
				*pathOK = false
			}
			v = unescapeLit(v)
		}
		sb.WriteString(v)
		pb.WriteString(v)
	case *syntax.SglQuoted:
		v := x.Value
		if x.Dollar {
			if i := strings.Index(v, "\\c@"); i >= 0 {
				v = v[:i] // \c@ is a NUL too
			}
			v = ansiC(v)
			if i := strings.IndexByte(v, 0); i >= 0 {
				v = v[:i] // bash cuts $'…' at a NUL: $'.envrc\0.txt' is .envrc
			}
		}
		sb.WriteString(v)
		pb.WriteString(v)
	case *syntax.DblQuoted:
		// $"…" is a locale translation; with no message catalogue (the
		// usual case) it is the string itself, so it reads as "…".
		for _, q := range x.Parts {
			p.resolvePart(f, q, parent, false, true, out, sb, pb, pathOK)
		}
	case *syntax.ParamExp:
		if v, ok := p.positionalValue(x); ok {
			sb.WriteString(v)
			pb.WriteString(v)
			return
		}
		if x.Param != nil && isSimpleParam(x) {
			if v, ok := p.loopVars[x.Param.Value]; ok {
				sb.WriteString(v.text)
				pb.WriteString(v.path)
				if v.dynamic {
					// Items of different texts: classed like them, known as none.
					out.dynamic, out.fill = true, true
				}
				out.glob = out.glob || v.glob
				out.pathGlob = out.pathGlob || v.pathGlob
				return
			}
		}
		out.dynamic = true
		if x.Param != nil && x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
			p.vars.forget(x.Param.Value) // ${x:=…} assigns what nobody knows
		}
		if x.GlobSubst == syntax.OptOn && !inDq {
			// zsh's ${~x} / $~x make the value a glob pattern, whose
			// qualifiers (*(e:…:)) run code.
			out.zshQual = true
		}
		if x.Excl || (x.Param != nil && secretVarName(x.Param.Value) && !p.presence[x] && !lengthOnly(x)) {
			out.secretEnv = true
			p.secretRead = true // wherever it is expanded: an argument, a here-string, [[ ]], case, for
		}
		p.walkParamExp(f, x, parent, out)
		if isHomeParam(x) && pb.Len() == 0 {
			pb.WriteString("~")
		} else {
			*pathOK = false
		}
	case *syntax.CmdSubst:
		out.dynamic = true
		out.cmdSubst = true
		*pathOK = false
		p.walkCmdSubst(f, x, parent)
	case *syntax.ArithmExp:
		out.dynamic = true
		*pathOK = false
		if p.walkArithm(f, x.X, parent) {
			out.arith = true
		}
	case *syntax.ProcSubst:
		out.dynamic = true
		out.procSubst = true
		*pathOK = false
		p.cmd.Shape.ProcSubsts++
		nf := f.child(x.Stmts, KindProcSubst, parent)
		if x.Op == syntax.CmdOut {
			// >(cmd) reads what the enclosing command writes into it.
			nf.stdin, nf.procOut = "pipe", true
		}
		sn := p.vars.snap()
		p.walkStmts(nf, x.Stmts)
		p.vars.restore(sn)
		p.visited[x] = true
	case *syntax.ExtGlob:
		out.dynamic = true
		out.glob = true
		*pathOK = false
		if x.Op == syntax.GlobExcept && x.Pattern != nil && parent >= 0 {
			// Without extglob (bash -c's default) !(cmd) is a negated
			// subshell: grade its contents as the code they may be.
			p.script(f, x.Pattern.Value, parent, KindScript, true)
		}
	default:
		// BraceExp (only after SplitBraces) and anything new: not static.
		out.dynamic = true
		*pathOK = false
	}
}

// walkCmdSubst walks a command substitution's statements as children of
// parent, in a subshell.
func (p *walker) walkCmdSubst(f *frame, x *syntax.CmdSubst, parent int) {
	p.cmd.Shape.Substitutions++
	sn := p.vars.snap() // a subshell
	p.walkStmts(f.child(x.Stmts, KindSubst, parent), x.Stmts)
	p.vars.restore(sn)
	p.visited[x] = true
}

// walkKnownSubsts walks the command substitutions of a word whose value is
// known (a pure program's output, eval_subst.go): the program still runs,
// and is graded. It returns the range of segments made.
func (p *walker) walkKnownSubsts(f *frame, w *syntax.Word, parent int) (from, to int) {
	from = len(p.cmd.Segments)
	if hasCmdSubst(w) {
		for _, part := range w.Parts {
			switch x := part.(type) {
			case *syntax.CmdSubst:
				p.walkCmdSubst(f, x, parent)
			case *syntax.DblQuoted:
				for _, q := range x.Parts {
					if cs, ok := q.(*syntax.CmdSubst); ok {
						p.walkCmdSubst(f, cs, parent)
					}
				}
			}
		}
	}
	return from, len(p.cmd.Segments)
}

// assocKey reports ${m[key]} of a known associative array with a plain
// key: a string, which bash does not evaluate arithmetically.
func (p *walker) assocKey(x *syntax.ParamExp) bool {
	return x.Param != nil && p.vars.vars[x.Param.Value].Kind == expand.Associative && elemKey(x.Index) != ""
}

// walkParamExp walks the words nested in a parameter expansion
// (${x:-$(cmd)}, ${x/a/$(b)}) and its arithmetic.
func (p *walker) walkParamExp(f *frame, x *syntax.ParamExp, parent int, out *word) {
	if x.Exp != nil && x.Exp.Word != nil {
		p.resolveWord(f, x.Exp.Word, parent)
	}
	if x.Repl != nil {
		p.resolveWord(f, x.Repl.Orig, parent)
		p.resolveWord(f, x.Repl.With, parent)
	}
	if x.Index != nil && !isAllIndex(x.Index) && !p.assocKey(x) && p.walkArithm(f, x.Index, parent) {
		// ${a[$i]}: bash evaluates the subscript arithmetically.
		out.arith = true
	}
	if x.Slice != nil {
		if p.walkArithm(f, x.Slice.Offset, parent) || p.walkArithm(f, x.Slice.Length, parent) {
			out.arith = true
		}
	}
	if x.Exp != nil && x.Exp.Op == syntax.OtherParamOps && x.Exp.Word != nil && strings.ContainsAny(x.Exp.Word.Lit(), "PE") {
		// ${x@P} (prompt) and ${x@E} (escapes) expand the value again: P runs
		// its command substitutions.
		out.arith = true
	}
	if x.NestedParam != nil || x.Flags != nil || x.Excl || len(x.Modifiers) > 0 {
		// zsh flags such as ${(e)…} evaluate; ${!x} is indirection.
		out.arith = out.arith || x.Flags != nil
	}
	if x.NestedParam != nil {
		var sb, pb textBuf
		ok := false
		p.resolvePart(f, x.NestedParam, parent, false, false, out, &sb, &pb, &ok)
	}
}

// walkArithm walks an arithmetic expression for substitutions and reports
// whether it reads a variable not known to hold a number.
func (p *walker) walkArithm(f *frame, e syntax.ArithmExpr, parent int) bool {
	tainted := false
	var visit func(e syntax.ArithmExpr)
	visit = func(e syntax.ArithmExpr) {
		switch x := e.(type) {
		case nil:
		case *syntax.BinaryArithm:
			if isAssignOp(x.Op) {
				if w, ok := x.X.(*syntax.Word); ok {
					if name := w.Lit(); name != "" {
						if isResolutionName(name) {
							// ((PATH=1)), let HOME=1: changes what later
							// commands resolve to.
							p.arithResolution = true
							p.changeShell()
						}
						put(&p.numeric, name, true)
						p.vars.forget(name) // assigned a number nobody computed
						visit(x.Y)
						return
					}
				}
				p.vars.clear() // ((a[i] = 1)), (($n = 1)): some name
			}
			visit(x.X)
			visit(x.Y)
		case *syntax.UnaryArithm:
			if w, ok := x.X.(*syntax.Word); ok && (x.Op == syntax.Inc || x.Op == syntax.Dec) {
				if l := w.Lit(); l != "" {
					p.vars.forget(l)
				} else {
					p.vars.clear()
				}
			}
			visit(x.X)
		case *syntax.ParenArithm:
			visit(x.X)
		case *syntax.FlagsArithm:
			visit(x.X)
		case *syntax.Word:
			if lit := x.Lit(); lit != "" {
				if !isNumber(lit) && !p.numeric[lit] {
					tainted = true
				}
				return
			}
			w := p.resolveWord(f, x, parent)
			if w.dynamic || w.arith {
				tainted = true
			} else if p.arithString(f, w.text, parent) {
				tainted = true
			}
		}
	}
	visit(e)
	if tainted {
		// bash evaluates the value as an expression, which may assign any
		// variable (n='x=1'; (( n ))).
		p.vars.clear()
	}
	return tainted
}

// arithString judges a static string bash will evaluate arithmetically
// (let "n = m + 1", [[ "$s" -eq 0 ]] with s static): a name that is not a
// known number taints it, and $( ) or backticks inside are code, parsed as
// such.
func (p *walker) arithString(f *frame, s string, parent int) bool {
	if p.arithTainted(f, s, parent) {
		p.vars.clear() // the expression may assign any variable
		return true
	}
	return false
}

func (p *walker) arithTainted(f *frame, s string, parent int) bool {
	if strings.Contains(s, "$(") || strings.Contains(s, "`") {
		if parent >= 0 {
			p.script(f, ": "+s, parent, KindScript, true)
		}
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			if i > 0 && (s[i-1] >= '0' && s[i-1] <= '9' || s[i-1] == '#') {
				i = j // 0x1f, 16#ff
				continue
			}
			if !p.numeric[s[i:j]] {
				return true
			}
			i = j
		}
	}
	return false
}

// nameString judges a static string used as a variable name (test -v,
// read, printf -v, unset): a subscript a[…] is evaluated arithmetically.
func (p *walker) nameString(f *frame, s string, parent int) bool {
	i := strings.IndexByte(s, '[')
	if i < 0 || !strings.HasSuffix(s, "]") {
		return false
	}
	return p.arithString(f, s[i+1:len(s)-1], parent) || strings.Contains(s, "$(")
}

func isAssignOp(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
		syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
		return true
	}
	return false
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	if _, err := strconv.ParseInt(s, 0, 64); err == nil {
		return true
	}
	// base#digits
	if i := strings.IndexByte(s, '#'); i > 0 {
		_, err := strconv.Atoi(s[:i])
		return err == nil
	}
	return false
}

func isSimpleParam(x *syntax.ParamExp) bool {
	return x.Exp == nil && x.Repl == nil && x.Index == nil && x.Slice == nil && !x.Excl && !x.Length &&
		x.Flags == nil && x.NestedParam == nil && len(x.Modifiers) == 0
}

// positionalValue resolves $0…$9, and $@ or $* with one argument, inside
// an inline script whose arguments are static.
func (p *walker) positionalValue(x *syntax.ParamExp) (string, bool) {
	if p.positional == nil || p.vars.posTouched || x.Param == nil || x.Exp != nil || x.Repl != nil || x.Index != nil ||
		x.Slice != nil || x.Excl || x.Length || x.Flags != nil {
		return "", false
	}
	switch n := x.Param.Value; {
	case len(n) == 1 && n[0] >= '0' && n[0] <= '9':
		i := int(n[0] - '0')
		if i < len(p.positional) {
			return p.positional[i], true
		}
		return "", true // unset: empty
	case (n == "@" || n == "*") && len(p.positional) == 2:
		return p.positional[1], true
	}
	return "", false
}

// secretVarName reports variable names that usually hold credentials.
func secretVarName(n string) bool {
	u := strings.ToUpper(n)
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "CREDENTIAL", "PRIVATE_KEY",
		"ACCESS_KEY", "AUTH", "DATABASE_URL", "_DSN", "CONNECTION_STRING", "WEBHOOK", "COOKIE", "SESSION_KEY", "SIGNING_KEY"} {
		if strings.Contains(u, s) {
			return true
		}
	}
	return false
}

func isHomeParam(x *syntax.ParamExp) bool {
	if x.Exp != nil {
		switch x.Exp.Op {
		case syntax.ErrorUnset, syntax.ErrorUnsetOrNull, syntax.DefaultUnset, syntax.DefaultUnsetOrNull,
			syntax.AssignUnset, syntax.AssignUnsetOrNull:
			// ${HOME:?}, ${HOME:-x}: home whenever HOME is set.
		case syntax.RemSmallSuffix, syntax.RemLargeSuffix:
			if x.Exp.Word == nil || x.Exp.Word.Lit() != "/" {
				return false
			}
			// ${HOME%/}: home without a trailing slash.
		default:
			return false
		}
	}
	return x.Param != nil && x.Param.Value == "HOME" && x.Repl == nil &&
		x.Index == nil && x.Slice == nil && !x.Excl && !x.Length && x.Flags == nil && x.NestedParam == nil
}

// hasGlob reports unescaped glob characters in an unquoted literal.
func hasGlob(v, shell string) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			// A bracket expression needs its closing ]; a lone [ is literal.
			if strings.IndexByte(v[i+1:], ']') >= 0 {
				return true
			}
		case '^', '#':
			if shell == "zsh" {
				return true
			}
		}
	}
	return false
}

// unescapeLit removes backslash escapes from an unquoted literal.
func unescapeLit(v string) string {
	if !strings.Contains(v, "\\") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
			if v[i] == '\n' {
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// unescapeDq removes the escapes that are special inside double quotes.
func unescapeDq(v string) string {
	if !strings.Contains(v, "\\") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// ansiC decodes the body of $'…'.
func ansiC(v string) string {
	s, _, err := expand.Format(&expand.Config{}, v, nil)
	if err != nil {
		return v
	}
	return s
}

// braceWords expands static brace expressions ({a,b}, {1..3}) when the
// result is small; it returns nil when w has none or too many.
func braceWords(w *syntax.Word) []*syntax.Word {
	hasBrace := false
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			hasBrace = true
		}
	}
	if !hasBrace {
		return nil
	}
	return expandBraces(w)
}

// expandBraces is braceWords past its cheap check, apart so that the state
// of its range-over-func loop is allocated only for words with a brace.
func expandBraces(w *syntax.Word) []*syntax.Word {
	split := cloneWord(w)
	if !syntax.SplitBraces(split) {
		return nil
	}
	n := 1
	for _, part := range split.Parts {
		if b, ok := part.(*syntax.BraceExp); ok {
			n *= braceCount(b)
			if n > 64 || n <= 0 {
				return nil
			}
		}
	}
	if n == 1 {
		if _, ok := findBrace(split); !ok {
			return nil
		}
	}
	var out []*syntax.Word
	for word, err := range expand.BracesSeq(nil, split) {
		if err != nil || len(out) == 64 {
			return nil // too large: left unexpanded, as counted above
		}
		out = append(out, word)
	}
	return out
}

func findBrace(w *syntax.Word) (*syntax.BraceExp, bool) {
	for _, part := range w.Parts {
		if b, ok := part.(*syntax.BraceExp); ok {
			return b, true
		}
	}
	return nil, false
}

func braceCount(b *syntax.BraceExp) int {
	if !b.Sequence {
		n := 0
		for _, e := range b.Elems {
			c := 1
			for _, part := range e.Parts {
				if nb, ok := part.(*syntax.BraceExp); ok {
					c *= braceCount(nb)
				}
			}
			n += c
		}
		return n
	}
	if len(b.Elems) < 2 {
		return 1
	}
	from, to := b.Elems[0].Lit(), b.Elems[1].Lit()
	a, err1 := strconv.Atoi(from)
	z, err2 := strconv.Atoi(to)
	if err1 != nil || err2 != nil {
		if len(from) == 1 && len(to) == 1 {
			a, z = int(from[0]), int(to[0])
		} else {
			return 1 << 30
		}
	}
	d := z - a
	if d < 0 {
		d = -d
	}
	if d > 1<<20 {
		return 1 << 30
	}
	return d + 1
}

// cloneWord copies a word's part list so SplitBraces does not touch the
// original tree.
func cloneWord(w *syntax.Word) *syntax.Word {
	c := *w
	c.Parts = append([]syntax.WordPart(nil), w.Parts...)
	for i, part := range c.Parts {
		if l, ok := part.(*syntax.Lit); ok {
			lc := *l
			c.Parts[i] = &lc
		}
	}
	return &c
}

// isAllIndex reports ${a[@]} and ${a[*]}, which are not arithmetic.
func isAllIndex(e syntax.ArithmExpr) bool {
	w, ok := e.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

// lengthOnly reports ${#NAME}: the length of a value, not the value.
func lengthOnly(x *syntax.ParamExp) bool {
	return x.Length && !x.Excl && x.Index == nil && x.Exp == nil && x.Repl == nil && x.Slice == nil
}

// textBuf gathers a word's text as strings.Builder does, without copying
// when the text is a single write (most words are one literal).
type textBuf struct {
	s     string          // the text while it is at most one write
	b     strings.Builder // the text once a second write joins it
	multi bool            // b holds the text
}

func (t *textBuf) WriteString(v string) {
	switch {
	case t.multi:
		t.b.WriteString(v)
	case t.s == "":
		t.s = v
	case v != "":
		t.b.Grow(len(t.s) + len(v))
		t.b.WriteString(t.s)
		t.b.WriteString(v)
		t.s, t.multi = "", true
	}
}

// Len is the length of the text so far.
func (t *textBuf) Len() int {
	if t.multi {
		return t.b.Len()
	}
	return len(t.s)
}

// String is the text so far.
func (t *textBuf) String() string {
	if t.multi {
		return t.b.String()
	}
	return t.s
}
