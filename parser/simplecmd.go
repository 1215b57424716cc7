// Simple commands: the segment a call expression makes, its words,
// assignments and redirects.

package parser

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// resolutionNames are variables whose assignment changes how later words
// resolve or what the shell runs on its own.
var resolutionNames = map[string]bool{
	"PATH": true, "IFS": true, "BASH_ENV": true, "ENV": true, "CDPATH": true, "GLOBIGNORE": true,
	"SHELLOPTS": true, "BASHOPTS": true, "PROMPT_COMMAND": true, "PS0": true, "PS1": true, "PS2": true,
	"PS4": true, "BASH_XTRACEFD": true, "HOME": true, "FPATH": true, "fpath": true, "path": true,
	"BASH_COMPAT": true, "POSIXLY_CORRECT": true, "EXECIGNORE": true, "FIGNORE": true, "HISTFILE": true,
	"TMOUT": true, "precmd_functions": true, "preexec_functions": true, "chpwd_functions": true,
	"ZDOTDIR": true, "BASH_LOADABLES_PATH": true, "PWD": true, "OLDPWD": true, "LD_PRELOAD": true,
	"LD_LIBRARY_PATH": true, "BASH_ALIASES": true, "BASH_CMDS": true,
}

func isResolutionName(n string) bool {
	return resolutionNames[n] || strings.HasPrefix(n, "BASH_FUNC_")
}

// segmentAlloc is a segment with room for the words, flags and tags most
// segments have, so that one allocation holds them (the slices move out
// when they grow past it).
type segmentAlloc struct {
	Segment
	argv    [5]string
	dynamic [5]bool
	flags   [2]string
	tags    [2]string
}

// newSegment reserves a segment for a simple command in frame f.
func (p *walker) newSegment(f *frame, src string) *Segment {
	sa := &segmentAlloc{}
	seg := &sa.Segment
	*seg = Segment{
		Index:      len(p.cmd.Segments),
		Parent:     f.parent,
		Depth:      f.depth,
		Kind:       f.kind,
		Text:       abridge(src),
		Argv:       sa.argv[:0],
		Dynamic:    sa.dynamic[:0],
		Wrappers:   []Wrapper{},
		Flags:      sa.flags[:0],
		Options:    map[string][]string{},
		Operands:   []Operand{},
		Redirects:  []Redirect{},
		Assigns:    []Assign{},
		Upstream:   []string{},
		Downstream: []string{},
		Code:       []Code{},
		Writes:     []Operand{},
		Reads:      []Operand{},
		Tags:       sa.tags[:0],
		Stdin:      f.stdin,
		hdoc:       f.hdoc,
		procOut:    f.procOut,
	}
	seg.ws = p.cfg.workspace
	if p.env.cwd != "" {
		// Known only when certain: after a cd that may have failed the
		// shell may be in p.env.alt instead.
		seg.Cwd, seg.CwdKnown = p.env.display(p.env.cwd), p.env.alt == ""
		if !hasNUL(p.env.cwd) {
			seg.cwdAbs = p.env.cwd
		}
	}
	if p.changed {
		seg.tag(TagChangedShell)
	}
	if f.background {
		seg.tag(TagBackground)
	}
	if f.kind == KindRemote {
		seg.tag(TagRemote)
	}
	p.cmd.Segments = append(p.cmd.Segments, seg)
	return seg
}

func (p *walker) callExpr(f *frame, c *syntax.CallExpr, s *syntax.Stmt) {
	p.visited[c] = true
	seg := p.newSegment(f, f.source(s))
	// Words first: their substitutions become children of this segment.
	words := make([]word, 0, len(c.Args))
	p.markPresence(c.Args, nil)
	for _, w := range c.Args {
		words = p.appendArgWords(words, f, w, seg.Index)
	}
	// Assignments next, left to right, each seeing the ones before it. On a
	// command they last only for it (they are exported to it).
	var before *snapshot
	if len(words) > 0 && len(c.Assigns) > 0 {
		sn := p.vars.snap()
		before = &sn
	}
	for _, a := range c.Assigns {
		as := p.assign(f, a, seg.Index)
		seg.Assigns = append(seg.Assigns, as)
		p.applyAssign(as, len(words) > 0)
	}
	seg.Redirects = append(seg.Redirects, f.redirs...)
	for _, w := range words {
		if w.arith {
			seg.tag(TagArithDynamic)
		}
		if w.zshQual {
			seg.tag(TagDynamicCode) // zsh glob qualifiers and flags can run code
		}
		if w.secretEnv {
			seg.tag(TagSecretEnv)
		}
	}
	if len(words) == 0 {
		p.assignOnly(seg, c)
		return
	}
	p.command(f, seg, words)
	p.substListing(seg, c.Args, words)
	p.funcCallReading(f, seg)
	p.globReadings(f, seg, words)
	p.extglobReadings(f, seg, c.Args, words)
	p.procOutCode(f, seg)
	if seg.HasTag(TagDynamicArgs) || seg.HasTag(TagDynamicProgram) {
		p.defaultReading(f, seg, c.Args)
	}
	effects := p.shellEffects(f, seg)
	if before != nil {
		p.vars.restore(*before)
		switch {
		case f.shell == "sh" && specialBuiltins[seg.Program] && seg.PathKind == "bare" && inShell(seg) && !p.funcs[seg.Program]:
			// POSIX special builtins keep their prefix assignments (dash:
			// x=rm : leaves x set).
			for _, a := range seg.Assigns {
				p.applyAssign(a, false)
			}
		case f.shell == "sh" && specialBuiltins[seg.Program] || p.funcs[seg.Program]:
			for _, a := range seg.Assigns {
				p.vars.forget(a.Name)
			}
		}
	}
	effects()
}

// appendArgWords resolves one argument word into the words bash passes,
// appended to out: braces expanded (when small and static), known values
// expanded and split.
func (p *walker) appendArgWords(out []word, f *frame, w *syntax.Word, parent int) []word {
	if f.shell != "sh" && f.shell != "zsh" && assignTildeRisk(w) {
		// bash expands the tildes of of=~/x and PATH=a:~/b (tilde.go).
		home, _ := p.vars.str("HOME")
		nw, found, ok := colonTildes(w, home, true)
		switch {
		case !ok:
			r := p.resolveWord(f, w, parent)
			r.dynamic, r.path = true, "" // what the tilde stands for is not known
			return append(out, r)
		case found:
			w = nw
		}
	}
	if exp := braceWords(w); exp != nil && f.shell != "sh" {
		for _, e := range exp {
			if ev, ok := p.evalFields(f, e, parent); ok {
				out = append(out, ev...)
				continue
			}
			r := p.resolveWord(f, e, parent)
			if r.text == "" && !r.dynamic && !hasQuotes(e) {
				continue // an empty unquoted word vanishes: {sh,} is just sh
			}
			out = append(out, r)
		}
		return out
	}
	if ev, ok := p.evalFields(f, w, parent); ok {
		return append(out, ev...)
	}
	return append(out, p.resolveWord(f, w, parent))
}

// procOutCode settles shells inside >( ) of seg once seg is known: they
// read seg's output, so a fetch there is fetched code and static text is
// parsed as the code it is.
func (p *walker) procOutCode(f *frame, seg *Segment) {
	for _, c := range p.cmd.Segments[min(f.redirFrom, seg.Index):] {
		mine := c.Parent == seg.Index || c.Index < seg.Index && c.Parent == f.parent
		if !mine || !c.procOut || !c.HasTag(TagStdinCode) {
			continue
		}
		if isFetcher(seg.Program) || isDecoder(seg) {
			c.tag(TagFetchedCode)
		}
		if text, ok := p.staticOutput(seg); ok && isShell(c.Program) {
			p.script(f, text, c.Index, KindStdin, false)
		}
	}
}

// assignOnly handles a statement of assignments (and redirects) alone.
func (p *walker) assignOnly(seg *Segment, c *syntax.CallExpr) {
	for _, a := range seg.Assigns {
		if isResolutionName(a.Name) {
			seg.tag(TagResolution)
			p.changeShell()
		}
		if !a.Dynamic && isNumber(a.Value) {
			put(&p.numeric, a.Name, true)
		} else {
			delete(p.numeric, a.Name)
		}
	}
	p.redirectFacts(seg)
}

// assign resolves one assignment; literal values that hold code are parsed
// as scripts.
func (p *walker) assign(f *frame, a *syntax.Assign, parent int) Assign {
	out := Assign{}
	if a.Name != nil {
		out.Name = a.Name.Value
	}
	if a.Index != nil && p.walkArithm(f, a.Index, parent) {
		out.Dynamic = true // arr[$i]=x evaluates $i arithmetically
		if parent >= 0 {
			p.cmd.Segments[parent].tag(TagArithDynamic)
		}
	}
	out.known = a.Index == nil
	out.appends = a.Append
	if a.Array != nil {
		var vals []string
		out.array = true
		for _, el := range a.Array.Elems {
			key := ""
			if el.Index != nil {
				if key = elemKey(el.Index); key == "" || !p.declAssoc {
					p.walkArithm(f, el.Index, parent) // declare -A's plain keys are strings
				}
				if key == "" {
					out.known = false // [$i]=, [i+1]=: not followed
				}
				out.indexed = true
			}
			if el.Value == nil {
				if key != "" {
					out.list, out.keys = append(out.list, ""), append(out.keys, key) // [k]= is the empty string
				}
				continue
			}
			ws := p.appendArgWords(nil, f, el.Value, parent)
			if el.Index != nil && len(ws) != 1 {
				// [k]=value is an assignment: bash neither splits nor
				// globs it, so only a value that is one word either way
				// is followed.
				out.known = false
			}
			for _, w := range ws {
				vals = append(vals, w.text)
				out.list, out.keys = append(out.list, w.text), append(out.keys, key)
				out.Dynamic = out.Dynamic || w.dynamic
				out.known = out.known && !w.dynamic && !w.glob
			}
		}
		out.Value = "(" + strings.Join(vals, " ") + ")"
		out.known = out.known && !out.Dynamic
		return out
	}
	if a.Value != nil {
		var w word
		if v, ok := p.evalLiteral(f, a.Value, parent); ok {
			w = v
		} else {
			w = p.resolveWord(f, a.Value, parent)
			if !w.dynamic && tildeValue(a.Value) {
				out.known = false // x=~/a: expanded from HOME when it is not known
			}
		}
		out.Value, out.Dynamic = w.text, out.Dynamic || w.dynamic
		out.known = out.known && !out.Dynamic
		switch {
		case parent >= 0 && codeEnvNames[out.Name] != "":
			p.codeEnv(f, p.cmd.Segments[parent], out.Name, w)
		case !w.dynamic && looksLikeCode(w.text) && (parent < 0 || p.assignedCodeRuns(out.Name)):
			p.script(f, w.text, parent, KindScript, false)
		case !w.dynamic && looksLikeCode(w.text):
			p.cmd.Segments[parent].tag(TagDynamicCode)
			p.cmd.Segments[parent].Code = append(p.cmd.Segments[parent].Code, Code{Lang: "shell", Text: w.text, Dynamic: true})
		}
	}
	if a.Naked && a.Value != nil && a.Name == nil {
		out.Name = out.Value
	}
	if a.Naked {
		out.known, out.naked = false, true
	}
	return out
}

// elemKey is the subscript of an array element written as one plain
// literal ([2]=, [name]=), "" for anything else. As an indexed array's
// index it must also be digits (bash evaluates it arithmetically); as an
// associative array's key it is the key.
func elemKey(e syntax.ArithmExpr) string {
	w, ok := e.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return ""
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || !plainKey(l.Value) {
		return ""
	}
	return l.Value
}

// plainKey reports a subscript made only of letters, digits, _ . : / and
// -, which bash's expansion of it leaves as written.
func plainKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c != '_' && c != '.' && c != ':' && c != '/' && c != '-' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// tildeValue reports an assignment value with an unquoted ~ that bash
// expands (at the start, or after a colon).
func tildeValue(w *syntax.Word) bool {
	for i, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok && (i == 0 && strings.HasPrefix(l.Value, "~") || strings.Contains(l.Value, ":~")) {
			return true
		}
	}
	return false
}

// codeEnvNames are variables whose value a program runs: "shell" values
// are command lines (git runs $PAGER through sh), "file" values are
// scripts a shell sources at start-up, "lessopen" is less's input filter.
var codeEnvNames = map[string]string{
	"PAGER": "shell", "GIT_PAGER": "shell", "MANPAGER": "shell", "SYSTEMD_PAGER": "shell",
	"EDITOR": "shell", "VISUAL": "shell", "GIT_EDITOR": "shell", "GIT_SEQUENCE_EDITOR": "shell",
	"SUDO_EDITOR": "shell", "SYSTEMD_EDITOR": "shell", "FCEDIT": "shell", "GIT_SSH_COMMAND": "shell",
	"GIT_SSH": "shell", "GIT_EXTERNAL_DIFF": "shell", "GIT_PROXY_COMMAND": "shell", "GIT_ASKPASS": "shell",
	"SSH_ASKPASS": "shell", "RSYNC_RSH": "shell", "BROWSER": "shell", "PROMPT_COMMAND": "shell",
	"BASH_ENV": "file", "ENV": "file", "LESSOPEN": "lessopen", "LESSCLOSE": "lessopen",
}

// codeEnv parses the value of a code-carrying variable as the code it is.
func (p *walker) codeEnv(f *frame, seg *Segment, name string, w word) {
	kind := codeEnvNames[name]
	if w.dynamic {
		if kind == "file" {
			// BASH_ENV=<(…): the script is the substitution's output.
			for _, c := range p.cmd.Segments[w.childFrom:w.childTo] {
				if text, ok := p.staticOutput(c); ok {
					p.script(f, text, seg.Index, KindScript, false)
				}
			}
		}
		p.dynamicCodeIn(f, seg, "shell", w)
		return
	}
	switch kind {
	case "shell":
		p.script(f, w.text, seg.Index, KindScript, false)
	case "lessopen":
		v := strings.TrimLeft(strings.TrimLeft(w.text, "|"), "-")
		p.script(f, strings.ReplaceAll(v, "%s", "FILE"), seg.Index, KindScript, false)
	case "file":
		seg.tag(TagScriptFile)
	}
}

func hasQuotes(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

func looksLikeCode(s string) bool {
	return strings.Contains(s, "$(") || strings.Contains(s, "`") || strings.Contains(s, "${")
}

// resolveRedirect resolves a redirect of frame f; it returns heredoc info
// when the redirect feeds standard input.
func (p *walker) resolveRedirect(f *frame, r *syntax.Redirect) (Redirect, *hdocInfo) {
	p.visited[r] = true
	out := Redirect{Op: r.Op.String()}
	if r.N != nil {
		out.Fd = r.N.Value
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		p.cmd.Shape.Heredocs++
		var text string
		var body word
		if delimQuoted(r.Word) {
			// Any quoting in the delimiter (<<'EOF', <<E"O"F, <<\EOF) makes
			// the body literal: nothing in it expands.
			text = literalBody(f, r.Hdoc)
			p.markVisited(r.Hdoc)
		} else if v, ok := p.evalDocument(f, r.Hdoc); ok {
			text = v // cat <<EOF | sh with known values: the text sh reads
			p.markVisited(r.Hdoc)
		} else {
			body = p.resolveWord(f, r.Hdoc, f.parent)
			text = body.text
			if r.Hdoc != nil && body.dynamic {
				text = literalBody(f, r.Hdoc)
			}
			if src := f.source(r.Hdoc); r.Hdoc != nil && strings.Contains(src, "\\\n") && p.cmd.Shape.Error == nil {
				// bash joins backslash-newline in an unquoted body before it
				// looks for the delimiter (tr\⏎ue ends <<true): the body and
				// what follows may not be what this parser sees.
				off := int(r.Hdoc.Pos().Offset())
				p.cmd.Shape.Error = posError(f.src, min(off, len(f.src)), "a backslash-newline in an unquoted heredoc: bash may end it earlier than this parser")
			}
		}
		if r.Op == syntax.DashHdoc {
			text = stripTabs(text)
		}
		out.Target = Operand{Text: "", Class: ClassNull}
		return out, &hdocInfo{text: text, dynamic: body.dynamic, op: out.Op, fetch: body.dynamic && p.subtreeFetches(body)}
	case syntax.WordHdoc:
		var body word
		if v, ok := p.evalLiteral(f, r.Word, f.parent); ok {
			body = v
		} else {
			body = p.resolveWord(f, r.Word, f.parent)
		}
		text := body.text
		if body.dynamic {
			text = body.raw
		}
		out.Target = Operand{Text: "", Class: ClassNull}
		hd := &hdocInfo{text: text + "\n", dynamic: body.dynamic, op: out.Op, fetch: body.dynamic && p.subtreeFetches(body)}
		hd.home = !body.dynamic && tildeWord(r.Word)
		if body.dynamic && body.childTo == body.childFrom && !body.secretEnv && (body.path == "~" || strings.HasPrefix(body.path, "~/")) {
			hd.homeText = body.path + "\n" // <<< $HOME: the home directory
		}
		return out, hd
	}
	var w word
	if ev, ok := p.evalFields(f, r.Word, f.parent); ok && len(ev) == 1 {
		w = ev[0] // one word, or bash refuses it as an ambiguous redirect
	} else {
		w = p.resolveWord(f, r.Word, f.parent)
	}
	out.Target = p.operand(w)
	out.fetch = (w.procSubst || w.cmdSubst) && p.subtreeFetches(w)
	if w.procSubst || w.cmdSubst {
		out.childFrom, out.childTo = w.childFrom, w.childTo
	}
	if (r.Op == syntax.DplOut || r.Op == syntax.DplIn) && isFdWord(w.text) {
		out.Target.Class = ClassNull
	}
	return out, nil
}

// tildeWord reports a word that starts with an unquoted tilde the shell
// expands to the home directory (~ or ~/…).
func tildeWord(w *syntax.Word) bool {
	if w == nil || len(w.Parts) == 0 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return ok && (l.Value == "~" && len(w.Parts) == 1 || strings.HasPrefix(l.Value, "~/"))
}

func isFdWord(s string) bool {
	if s == "-" {
		return true
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// literalBody is a heredoc body as text, substitutions left unexpanded.
func literalBody(f *frame, w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok {
			b.WriteString(l.Value)
		} else {
			b.WriteString(f.source(part))
		}
	}
	return b.String()
}

// delimQuoted reports a heredoc delimiter with any quoting or escaping.
func delimQuoted(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.Contains(x.Value, "\\") {
				return true
			}
		}
	}
	return false
}

// markVisited records every node below n as handled, so the sweep does not
// walk substitutions that never run (a quoted heredoc's body).
func (p *walker) markVisited(n *syntax.Word) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		if node != nil {
			p.visited[node] = true
		}
		return true
	})
}

func stripTabs(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, "\t")
	}
	return strings.Join(lines, "\n")
}

// operand classes a resolved word as a path.
func (p *walker) operand(w word) Operand {
	op := Operand{Text: w.text, Dynamic: w.dynamic || w.glob}
	if w.pipe {
		op.Class = ClassNull // <(cmd): a pipe; cmd is graded on its own
		return op
	}
	if w.path == "" {
		op.Class = ClassDynamic
		return op
	}
	if w.dynamic && !w.fill && w.path != "~" && !strings.HasPrefix(w.path, "~/") {
		op.Class = ClassDynamic
		return op
	}
	abs, class, to, toClass, home := p.env.classifyLink(w.path, w.pathGlob)
	op.Path, op.Class, op.abs, op.Link, op.LinkClass, op.home = p.env.display(abs), class, abs, to, toClass, home
	if abs != "" {
		p.madeLink(&op, w.path, w.pathGlob) // ln -sf /dev/sda out.img && dd of=out.img
	}
	return op
}

// builtinClause makes a segment of [[ ]], (( )), let and declare-like
// clauses, so that every statement is graded.
func (p *walker) builtinClause(f *frame, cmd syntax.Command, s *syntax.Stmt) {
	seg := p.newSegment(f, f.source(s))
	seg.Redirects = append(seg.Redirects, f.redirs...)
	switch c := cmd.(type) {
	case *syntax.ArithmCmd:
		seg.Argv, seg.Program, seg.Path = []string{"(("}, "((", "(("
		if p.walkArithm(f, c.X, seg.Index) {
			seg.tag(TagArithDynamic)
		}
	case *syntax.LetClause:
		seg.Argv, seg.Program, seg.Path = []string{"let"}, "let", "let"
		for _, e := range c.Exprs {
			if p.walkArithm(f, e, seg.Index) {
				seg.tag(TagArithDynamic)
			}
		}
	case *syntax.TestClause:
		seg.Argv, seg.Program, seg.Path = []string{"[["}, "[[", "[["
		p.walkTest(f, seg, c.X)
	case *syntax.DeclClause:
		name := c.Variant.Value
		seg.Argv, seg.Program, seg.Path = []string{name}, name, name
		p.declAssoc = false
		for _, a := range c.Args {
			as := p.assign(f, a, seg.Index)
			if a.Naked && a.Name == nil && !as.Dynamic && strings.HasPrefix(as.Value, "-") && strings.Contains(as.Value, "A") {
				p.declAssoc = true // the assignments after -A are of associative arrays
			}
			if a.Naked && a.Name == nil {
				// A flag (-x, -f) or a computed name.
				seg.Argv = append(seg.Argv, as.Value)
				seg.Dynamic = append(seg.Dynamic, as.Dynamic)
				if strings.HasPrefix(as.Value, "-") {
					seg.Flags = append(seg.Flags, strings.Split(as.Value[1:], "")...)
				} else if as.Dynamic {
					seg.tag(TagDynamicArgs)
				}
				continue
			}
			seg.Assigns = append(seg.Assigns, as)
			seg.Argv = append(seg.Argv, as.Name+"="+as.Value)
			if as.Dynamic {
				seg.tag(TagDynamicArgs)
			}
		}
		for len(seg.Dynamic) < len(seg.Argv) {
			seg.Dynamic = append([]bool{false}, seg.Dynamic...)
		}
		for _, a := range seg.Assigns {
			if isResolutionName(a.Name) || hasFlag(seg.Flags, "n") || hasFlag(seg.Flags, "f") {
				seg.tag(TagResolution)
			}
		}
		p.declAssoc = false
		seg.Flags = uniqSorted(seg.Flags)
		p.declEffects(f, c, seg)
		if seg.HasTag(TagResolution) {
			p.changeShell()
		}
		if len(seg.Assigns) == 0 && len(seg.Argv) == len(seg.Flags)+1 {
			// declare, export -p, typeset -p: every variable, secrets included.
			seg.tag(TagSecretEnv)
		}
	}
	for len(seg.Dynamic) < len(seg.Argv) {
		seg.Dynamic = append(seg.Dynamic, false)
	}
	if p.arithResolution {
		seg.tag(TagResolution)
		p.arithResolution = false
	}
	seg.PathKind = "bare"
	p.redirectFacts(seg)
}

func (p *walker) walkTest(f *frame, seg *Segment, e syntax.TestExpr) {
	switch x := e.(type) {
	case *syntax.BinaryTest:
		arith := false
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			arith = true
		}
		for _, side := range []syntax.TestExpr{x.X, x.Y} {
			if w, ok := side.(*syntax.Word); ok && arith {
				lit := w.Lit()
				if lit == "" || (!isNumber(lit) && !p.numeric[lit]) {
					r := p.resolveWord(f, w, seg.Index)
					if r.dynamic || p.arithString(f, r.text, seg.Index) {
						seg.tag(TagArithDynamic)
						p.vars.clear() // evaluated as an expression: it may assign anything
					}
				}
				continue
			}
			p.walkTest(f, seg, side)
		}
	case *syntax.UnaryTest:
		if w, ok := x.X.(*syntax.Word); ok && x.Op == syntax.TsVarSet {
			r := p.resolveWord(f, w, seg.Index)
			if r.dynamic || p.nameString(f, r.text, seg.Index) {
				seg.tag(TagArithDynamic)
			}
			return
		}
		if w, ok := x.X.(*syntax.Word); ok && (x.Op == syntax.TsNempStr || x.Op == syntax.TsEmpStr) {
			p.markPresence(nil, w)
		}
		p.walkTest(f, seg, x.X)
	case *syntax.ParenTest:
		p.walkTest(f, seg, x.X)
	case *syntax.Word:
		w := p.resolveWord(f, x, seg.Index)
		if w.dynamic {
			seg.tag(TagDynamicArgs)
		}
	}
}

func hasFlag(flags []string, f string) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}
