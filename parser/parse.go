package parser

import (
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/rivumi/rivumi/internal/realpath"
	"github.com/rivumi/rivumi/internal/shquote"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/rivumi/rivumi/programs"
)

func variant(shell string) syntax.LangVariant {
	switch shell {
	case "sh":
		return syntax.LangPOSIX
	case "zsh":
		return syntax.LangZsh
	}
	return syntax.LangBash
}

// parsers pools mvdan parsers per dialect, each with the reader it reads
// from: a Parser is reusable but not safe for concurrent use, and building
// one costs allocations.
var parsers = map[string]*sync.Pool{}

type pooledParser struct {
	p *syntax.Parser
	r strings.Reader
}

func init() {
	for _, sh := range []string{"bash", "sh", "zsh"} {
		v := variant(sh)
		parsers[sh] = &sync.Pool{New: func() any {
			return &pooledParser{p: syntax.NewParser(syntax.Variant(v), syntax.KeepComments(false))}
		}}
	}
}

// parseText parses s in the given dialect.
func parseText(s, shell string) (*syntax.File, error) {
	pool := parsers[shell]
	if pool == nil {
		pool = parsers["bash"]
	}
	pp := pool.Get().(*pooledParser)
	defer func() {
		pp.r.Reset("") // the text is not kept alive by the pool
		pool.Put(pp)
	}()
	pp.r.Reset(s)
	return pp.p.Parse(&pp.r, "")
}

// Parse parses one command line. It always returns a non-nil Command; the
// error is a *ParseError when the text is not valid shell (the Command then
// has Shape.Error set and no segments). Limits hit are not errors: they are
// recorded in Shape.Limit and the segments found so far are kept.
func Parse(text string, opts ...Option) (*Command, error) {
	p := newWalker(opts, text)
	defer p.release()
	cfg := &p.cfg
	if len(text) > cfg.maxBytes {
		p.cmd.Shape.Limit = "size"
		return p.cmd, nil
	}
	if d := nestingDepth(text); d > cfg.maxDepth {
		p.cmd.Shape.Limit = "depth"
		return p.cmd, nil
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		// A NUL cannot reach a program's argv; shells differ on what they
		// do with it, so the text cannot be read as any one shell reads it.
		line := 1 + strings.Count(text[:i], "\n")
		col := i - strings.LastIndexByte(text[:i], '\n')
		pe := &ParseError{Line: line, Col: col, Msg: "NUL byte in command text"}
		p.cmd.Shape.Error = pe
		return p.cmd, pe
	}
	src, cr := bashLineEnds(text, cfg.shell)
	if cr >= 0 {
		// A carriage return bash could read otherwise than mvdan's
		// parser (see bashCRs): the stricter reading is no reading.
		line := 1 + strings.Count(text[:cr], "\n")
		col := cr - strings.LastIndexByte(text[:cr], '\n')
		pe := &ParseError{Line: line, Col: col, Msg: "carriage return where rivumi cannot read it as bash does"}
		p.cmd.Shape.Error = pe
		return p.cmd, pe
	}
	file, err := parseText(src, cfg.shell)
	if err != nil {
		pe := toParseError(err)
		p.cmd.Shape.Error = pe
		return p.cmd, pe
	}
	f := &frame{src: src, shell: cfg.shell, kind: KindTop, parent: -1}
	p.walkStmts(f, file.Stmts)
	p.sweep(f, file)
	p.finish()
	if pe := p.cmd.Shape.Error; pe != nil {
		// Found while walking (bash would read the text otherwise, or
		// reject it): like a syntax error, no segments are kept.
		p.cmd.Segments = nil
		return p.cmd, pe
	}
	return p.cmd, nil
}

// bashLineEnds rewrites the places where mvdan's parser and bash
// disagree about carriage returns and a backslash before a line end, so
// that the text parses as bash runs it and no command hides on the next
// line:
//   - a carriage return: bash reads it as a character of a word, before a
//     line feed too and inside quotes; mvdan's parser as a blank, and CR
//     LF as a line end (bashCRs);
//   - a comment ending in a backslash: bash ends the comment at the newline,
//     mvdan continues the line (ls # \⏎rm -rf /); the backslash, inside a
//     comment, is dropped.
//
// cr is the offset of a carriage return it cannot rewrite (the text is
// then to be refused), else -1.
func bashLineEnds(text, shell string) (src string, cr int) {
	if first := strings.IndexByte(text, '\r'); first >= 0 {
		if shell != "bash" {
			return text, first
		}
		if text, cr = bashCRs(text); cr >= 0 {
			return text, cr
		}
	}
	if !strings.Contains(text, "#") || !strings.Contains(text, "\\\n") {
		return text, -1
	}
	return commentBackslashes(text, shell), -1
}

// commentBackslashes drops the backslash that ends a comment (see
// bashLineEnds). It is a function of its own so that the text, which its
// closure captures, escapes to the heap only here.
func commentBackslashes(text, shell string) string {
	file, err := syntax.NewParser(syntax.Variant(variant(shell)), syntax.KeepComments(true)).Parse(strings.NewReader(text), "")
	if err != nil {
		return text
	}
	var cut []int
	syntax.Walk(file, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok {
			start := int(c.Hash.Offset())
			if end := strings.IndexByte(text[start:], '\n'); end > 0 && text[start+end-1] == '\\' {
				cut = append(cut, start+end-1)
			}
		}
		return true
	})
	for k := len(cut) - 1; k >= 0; k-- {
		text = text[:cut[k]] + text[cut[k]+1:]
	}
	return text
}

func posError(text string, i int, msg string) *ParseError {
	line := 1 + strings.Count(text[:i], "\n")
	return &ParseError{Line: line, Col: i - strings.LastIndexByte(text[:i], '\n'), Msg: msg}
}

// FromArgv builds a Command from an argv that will be executed directly
// (no shell): the words are taken literally, wrappers are unwrapped, and
// code-carrying arguments (sh -c '…') are parsed as usual.
func FromArgv(argv []string, opts ...Option) (*Command, error) {
	text := joinArgv(argv)
	p := newWalker(opts, text)
	defer p.release()
	cfg := &p.cfg
	if len(text) > cfg.maxBytes {
		p.cmd.Shape.Limit = "size"
		return p.cmd, nil
	}
	if len(argv) == 0 {
		return p.cmd, errors.New("parser: empty argv")
	}
	f := &frame{src: text, shell: cfg.shell, kind: KindTop, parent: -1}
	seg := p.newSegment(f, text)
	words := make([]word, len(argv))
	for i, a := range argv {
		words[i] = word{text: a, path: a, childFrom: len(p.cmd.Segments), childTo: len(p.cmd.Segments)}
	}
	p.command(f, seg, words)
	p.finish()
	return p.cmd, nil
}

func joinArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = shquote.Word(a)
	}
	return strings.Join(parts, " ")
}

// newWalker returns a walker for one Parse call with the given options;
// the caller releases it when done.
func newWalker(opts []Option, text string) *walker {
	s := scratchPool.Get().(*scratch)
	p := &s.w
	*p = walker{scratch: s}
	setConfig(&p.cfg, opts)
	cfg := &p.cfg
	ws := cfg.workspace
	if ws == "" {
		ws = virtualWS
	}
	home := cfg.home
	if home == "" {
		home = virtualHome
	}
	cwd := cfg.cwd
	if cwd == "" {
		cwd = ws
	}
	env := pathEnv{workspace: ws, home: home, cwd: cwd, team: cfg.team}
	if cfg.follow {
		s.phys = pathEnv{team: cfg.team} // its workspace and home are resolved when first needed (physical)
		env.links, env.fs, env.phys = s.links, &s.fs, &s.phys
	}
	pwd := ""
	if cfg.cwd != "" || cfg.workspace != "" {
		pwd = cwd
	}
	p.vars = p.vars0.init(cfg.shell, cfg.home, pwd, s.vars)
	ca := &commandAlloc{}
	ca.Command = Command{Text: text, Shell: cfg.shell, Segments: ca.segments[:0], Shape: Shape{Operators: ca.operators[:0], Functions: []string{}}}
	p.cmd = &ca.Command
	p.env = env
	p.visited = s.visited
	// The other maps are made on their first write (put).
	return p
}

// commandAlloc is a command with room for the segments and operators most
// commands have (see segmentAlloc).
type commandAlloc struct {
	Command
	segments  [4]*Segment
	operators [2]string
}

// scratch is a walker and what it uses only while it walks: pooled, so
// that a Parse call does not make them again. Nothing in a Command points
// into it.
type scratch struct {
	w        walker
	visited  map[any]bool
	vars     map[string]expand.Variable // the start variables (varState.init)
	sweepers []*sweeper                 // idle
	// With FollowSymlinks: the walker's pathEnv links, fs and phys.
	links map[string]link
	fs    realpath.Cache
	phys  pathEnv
}

var scratchPool = sync.Pool{New: func() any {
	return &scratch{visited: map[any]bool{}, vars: map[string]expand.Variable{}, links: map[string]link{}}
}}

// maxPooledVisits and maxPooledVars bound the maps kept for the next Parse
// call: clearing a map costs its capacity, which one huge command would
// leave.
const (
	maxPooledVisits = 1024
	maxPooledVars   = 64
	maxPooledLinks  = 256
)

// release returns the walker's scratch to the pool. The walker is not
// used after it (the Command is the caller's).
func (p *walker) release() {
	s := p.scratch
	if s == nil {
		return
	}
	p.scratch, p.visited = nil, nil
	if len(s.visited) > maxPooledVisits {
		s.visited = map[any]bool{}
	} else {
		clear(s.visited)
	}
	if len(s.vars) > maxPooledVars {
		s.vars = map[string]expand.Variable{}
	} else {
		clear(s.vars)
	}
	if len(s.links) > maxPooledLinks {
		s.links = map[string]link{}
	} else {
		clear(s.links)
	}
	s.fs.Reset()
	s.phys = pathEnv{}
	for _, sw := range s.sweepers {
		sw.p, sw.f = nil, frame{}
	}
	s.w = walker{} // what it pointed to (the Command above all) is the caller's
	scratchPool.Put(s)
}

// physDir is dir resolved through symlinks, or dir itself when it is
// virtual or cannot be resolved.
func physDir(e *pathEnv, dir string) string {
	if hasNUL(dir) {
		return dir
	}
	if l := e.resolve(dir); !l.err {
		return l.resolved
	}
	return dir
}

// stringOperands reports a program whose operands are strings, names or
// metadata queries rather than file contents read (the registry's
// string_operands): echo .env reads nothing, ls -l /dev/sda reads no disk.
func stringOperands(p *programs.Program) bool { return p != nil && p.StringOperands }

// metadataReaders take paths whose names and metadata they read, never
// their contents: find's roots, tree's directories. (What find -exec runs
// is a segment of its own, reading below the roots.)
var metadataReaders = map[string]bool{"find": true, "tree": true}

// patternFirst reports a grep-like segment whose first operand is its
// pattern: none came by -e or -f (and rg is not listing files).
func patternFirst(s *Segment) bool {
	switch s.Program {
	case "grep", "egrep", "fgrep", "rg": // programs whose options rivumi knows (-e, -f)
	default:
		return false
	}
	for _, k := range []string{"regexp", "file", "e", "f"} {
		if _, ok := s.Options[k]; ok {
			return false
		}
	}
	return !hasFlag(s.Flags, "files") && !hasFlag(s.Flags, "type-list")
}

// publicRead reports a read of a public file: a public key (*.pub) or
// known_hosts in a .ssh directory, itself no link (a link named id_rsa.pub
// may point at id_rsa).
func publicRead(r Operand) bool {
	if r.Class != ClassSSH || r.LinkClass != "" || r.abs == "" {
		return false
	}
	dir, base := dirOf(r.abs), baseName(r.abs)
	if strings.ContainsAny(r.Text, "*?[") {
		// A glob: abs is its directory (cat ~/.ssh/*.pub).
		dir, base = r.abs, baseName(r.Text)
		if strings.ContainsAny(strings.TrimSuffix(base, ".pub"), "[") {
			return false
		}
	}
	return baseName(dir) == ".ssh" && (strings.HasSuffix(base, ".pub") || base == "known_hosts" || base == "known_hosts.old")
}

// finish computes whole-command facts once every segment is known.
func (p *walker) finish() {
	for _, s := range p.cmd.Segments {
		if p.secretRead {
			s.tag(TagSecretEnv)
		}
		if s.HasTag(TagDynamicProgram) {
			p.cmd.Shape.DynamicCommand = true
		}
		s.Flags = uniqSorted(s.Flags)
		from := len(s.Reads)
		var ops []Operand
		if !stringOperands(p.entry(s.Program)) {
			ops = s.Operands
			if len(ops) > 0 && patternFirst(s) {
				ops = ops[1:] // grep PATTERN FILE…: the pattern is no file
			}
		}
		n := len(ops)
		for _, r := range s.Redirects {
			if isInput(r) {
				n++
			}
		}
		s.Reads = slices.Grow(s.Reads, n)
		for _, o := range ops {
			if o.Class == ClassCredentials && (o.abs == "/etc/passwd" || o.abs == "/etc/group") {
				o.Class = ClassSystem // world-readable: only writing them is critical
			}
			s.Reads = append(s.Reads, o)
		}
		to := len(s.Reads)
		for _, r := range s.Redirects {
			if isInput(r) {
				s.Reads = append(s.Reads, r.Target)
			}
		}
		p.treeSecrets(s, ops) // grep -r KEY . over a tree holding .env (parser/treeread.go)
		for i := range s.Reads {
			r := &s.Reads[i]
			switch {
			case publicRead(*r):
				r.Class, r.home = ClassPublic, false
			case r.home && !(metadataReaders[s.Program] && from <= i && i < to):
				s.tag(TagHomeRead)
			}
		}
		for _, c := range s.Code {
			if !c.Safe {
				s.tag(TagOpaqueCode)
			}
		}
		for _, x := range []struct {
			n   int
			tag string
		}{{len(s.Writes), TagWrites}, {len(s.Assigns), TagAssigns}, {len(s.Wrappers), TagWrapped}, {len(s.Redirects), TagRedirect}} {
			if x.n > 0 {
				s.tag(x.tag)
			}
		}
	}
}

// isInput reports a redirect that reads its target.
func isInput(r Redirect) bool { return r.Op == "<" || r.Op == "<>" || r.Op == "<&" }

func toParseError(err error) *ParseError {
	var se syntax.ParseError
	if errors.As(err, &se) {
		return &ParseError{Line: int(se.Pos.Line()), Col: int(se.Pos.Col()), Msg: se.Text, Incomplete: se.Incomplete}
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return &ParseError{Line: int(le.Pos.Line()), Col: int(le.Pos.Col()), Msg: le.Error()}
	}
	return &ParseError{Line: 1, Col: 1, Msg: err.Error()}
}

// nestingDepth estimates the deepest nesting of ( { [ in s, ignoring
// quotes roughly; it only needs to catch pathological input before the
// parser recurses on it.
func nestingDepth(s string) int {
	depth, max := 0, 0
	for i := 0; i < len(s); i++ {
		switch nestingBytes[s[i]] {
		case 0:
		case nestOpen:
			depth++
			if depth > max {
				max = depth
			}
		case nestClose:
			if depth > 0 {
				depth--
			}
		case nestEscape:
			i++
		}
	}
	return max
}

// nestingBytes classes the bytes nestingDepth counts, so that the others
// (nearly all) cost one table load.
var nestingBytes = [256]uint8{'(': nestOpen, '{': nestOpen, '`': nestOpen, ')': nestClose, '}': nestClose, '\\': nestEscape}

const (
	nestOpen = 1 + iota
	nestClose
	nestEscape
)

// script parses text as shell code run by segment parent: bash -c, eval,
// trap, heredocs into shells, ssh remote commands … dynamic marks code
// that is only partly known (its segments can never be allowed).
func (p *walker) script(f *frame, text string, parent int, kind string, dynamic bool) {
	if f.recursion >= p.cfg.maxRecursion {
		if p.cmd.Shape.Limit == "" {
			p.cmd.Shape.Limit = "recursion"
		}
		return
	}
	if p.full() {
		return
	}
	if nestingDepth(text) > p.cfg.maxDepth {
		p.cmd.Shape.Limit = "depth"
		return
	}
	par := p.cmd.Segments[parent]
	text, cr := bashLineEnds(text, f.shell)
	file, err := parseText(text, f.shell)
	if cr >= 0 {
		err = errors.New("carriage return where rivumi cannot read it as bash does")
	}
	if err != nil {
		// Unparsable inline code cannot be known; still look for the
		// substitutions inside it by reading it as a no-op's argument.
		par.tag(TagDynamicCode)
		par.Code = append(par.Code, Code{Lang: "shell", Text: text, Dynamic: true})
		if alt, err2 := parseText(": "+text, f.shell); err2 == nil {
			file, text, dynamic = alt, ": "+text, true
		} else {
			return
		}
	}
	nf := &frame{src: text, shell: f.shell, kind: kind, parent: parent, depth: par.Depth + 1,
		recursion: f.recursion + 1, inFunc: f.inFunc}
	savedCwd := p.env.state()
	if kind == KindRemote {
		p.env.setCwd("") // another host: nothing is known of its paths
	}
	// eval's code runs in this shell and sees what is known here; any
	// other code runs in a child shell (or later, or elsewhere), which
	// starts from what it inherits.
	same := p.sameShell
	p.sameShell = false
	outer := p.vars
	if !same {
		p.vars = outer.child(kind != KindRemote && passesEnv(par) && f.shell == "bash")
		if p.positional != nil && kind == KindScript && isShell(par.Program) {
			p.vars.pos, p.vars.posKnown = append([]string{}, p.positional[min(1, len(p.positional)):]...), true
		}
		if cwd := p.env.cwd; cwd != "" && !hasNUL(cwd) && kind != KindRemote {
			p.vars.setPWD(cwd)
		}
	}
	from := len(p.cmd.Segments)
	p.walkStmts(nf, file.Stmts)
	p.sweep(nf, file)
	p.vars = outer
	p.sameShell = same
	// A cd inside inline code: a child shell's cd does not last, eval's
	// does; either way the cwd after it is not known for sure.
	if kind != KindRemote && p.env.state() != savedCwd {
		p.env.setCwd("")
	} else {
		p.env.setState(savedCwd)
	}
	if dynamic {
		for _, s := range p.cmd.Segments[from:] {
			s.tag(TagDynamicCode)
		}
		par.tag(TagDynamicCode)
	}
}

// uniqSorted sorts in and drops its repeats, in place; it returns a
// non-nil slice.
func uniqSorted(in []string) []string {
	if len(in) == 0 {
		return []string{}
	}
	slices.Sort(in)
	return slices.Compact(in)
}

// markPresence records the expansion tested by [ -n "$TOKEN" ],
// test -z "$TOKEN" (args) or [[ -n $TOKEN ]] (w): it reveals whether the
// variable is set, never its value, and is no secret read. ${#TOKEN} (a
// length) is recognised where it is resolved.
func (p *walker) markPresence(args []*syntax.Word, w *syntax.Word) {
	if w == nil && len(args) >= 3 {
		name := args[0].Lit()
		switch {
		case name == "[" && len(args) == 4 && args[3].Lit() == "]", name == "test" && len(args) == 3:
			if op := args[1].Lit(); op == "-n" || op == "-z" {
				w = args[2]
			}
		}
	}
	if w == nil {
		return
	}
	if pe := soleParam(w); pe != nil {
		if p.presence == nil {
			p.presence = map[*syntax.ParamExp]bool{}
		}
		p.presence[pe] = true
	}
}

// soleParam returns the word's expansion when the word is exactly one plain
// $NAME or ${NAME}, quoted or not.
func soleParam(w *syntax.Word) *syntax.ParamExp {
	parts := w.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return nil
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	if !ok || pe.Excl || pe.Length || pe.Index != nil || pe.Exp != nil || pe.Repl != nil || pe.Slice != nil || pe.Param == nil {
		return nil
	}
	return pe
}

// bashCRs writes each carriage return of text (bash) in the form
// mvdan's parser reads as the character bash reads: $'\r' in a word (an
// escaped one too), '$'\r” inside single quotes, "$'\r'" inside double
// quotes, \r inside $'…'; in a comment it is dropped (the comment ends at
// the line feed either way). A command substitution $(…) outside double
// quotes is read like the text around it. Text with a heredoc, a
// substitution inside double quotes, a backquote, a parameter expansion
// in braces or arithmetic, whose quoting nests, or with a $ before a
// carriage return, is not rewritten: cr is then the offset of its first
// carriage return, else -1. TestBashDivergenceSweep (adversarial) holds
// the rewrite to what bash runs.
func bashCRs(text string) (out string, cr int) {
	first := strings.IndexByte(text, '\r')
	if first < 0 {
		return text, -1
	}
	// "$⏎": the rewrite would make $$ of it.
	for _, nest := range []string{"<<", "`", "${", "((", "$[", "$\r", "$\\\r"} {
		if strings.Contains(text, nest) {
			return text, first
		}
	}
	const (
		plain = iota
		single
		double
		ansi
		comment
	)
	var b strings.Builder
	b.Grow(len(text) + 16)
	state, wordStart := plain, true
	for i := 0; i < len(text); i++ {
		c := text[i]
		escCR := c == '\\' && i+1 < len(text) && text[i+1] == '\r'
		switch state {
		case plain:
			switch {
			case c == '\r' || escCR:
				b.WriteString(`$'\r'`)
				if escCR {
					i++
				}
				wordStart = false
				continue
			case c == '\\' && i+1 < len(text):
				b.WriteByte(c)
				b.WriteByte(text[i+1])
				i++
				wordStart = wordStart && text[i] == '\n'
				continue
			case c == '\'':
				state = single
			case c == '"':
				state = double
			case c == '$' && i+1 < len(text) && text[i+1] == '\'':
				b.WriteString("$'")
				i++
				state, wordStart = ansi, false
				continue
			case c == '#' && wordStart:
				state = comment
			}
			b.WriteByte(c)
			wordStart = state == plain && strings.IndexByte(" \t\n;&|()<>", c) >= 0
		case single:
			if c == '\r' {
				b.WriteString(`'$'\r''`)
				continue
			}
			if c == '\'' {
				state = plain
			}
			b.WriteByte(c)
		case double, ansi:
			switch {
			case c == '\r' && state == double:
				b.WriteString(`"$'\r'"`)
				continue
			case c == '\r':
				b.WriteString(`\r`)
				continue
			case escCR && state == double:
				b.WriteString(`\\"$'\r'"`) // both stay: a backslash, then the CR
				i++
				continue
			case escCR:
				b.WriteString(`\\\r`) // $'\⏎' keeps both too
				i++
				continue
			case c == '\\' && i+1 < len(text):
				b.WriteByte(c)
				b.WriteByte(text[i+1])
				i++
				continue
			case c == '$' && state == double && i+1 < len(text) && text[i+1] == '(':
				// Quoting starts afresh inside "$(…)": not followed here.
				return text, first
			case c == '"' && state == double, c == '\'' && state == ansi:
				state = plain
			}
			b.WriteByte(c)
		case comment:
			if c == '\r' {
				continue
			}
			if c == '\n' {
				state, wordStart = plain, true
			}
			b.WriteByte(c)
		}
	}
	return b.String(), -1
}
