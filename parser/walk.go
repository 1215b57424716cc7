package parser

import (
	"reflect"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/rivumi/rivumi/programs"
)

// walker builds a Command from syntax trees. One walker serves one Parse
// call, including the inline scripts it parses again. Its maps other than
// visited start nil and are written only through put.
type walker struct {
	cfg     config
	cmd     *Command
	env     pathEnv
	changed bool // an earlier statement changed how words resolve
	// declAssoc is set while the assignments of a declare -A are walked:
	// their subscripts are keys, not arithmetic.
	declAssoc bool
	visited   map[any]bool    // nodes handled by the structured walk
	numeric   map[string]bool // variables assigned numbers in this command
	download  map[string]bool // absolute paths earlier segments downloaded to
	// fetchedTree holds directories an earlier segment filled from the
	// network (git clone URL DIR); only the keys count.
	fetchedTree map[string]string
	// copyOf maps a file an earlier segment copied or moved (cp, install,
	// mv) to its source; linkTo maps a link one made (ln, ln -s, cp -s) to
	// its target. See provenance.go.
	copyOf, linkTo map[string]string
	// opProg is the program whose operands are being classed ("" for
	// redirects), for the links a deleter does not follow.
	opProg string
	funcs  map[string]bool // functions defined so far
	// funcDefs holds their bodies, funcCalls the calls walked again
	// (funccall.go).
	funcDefs  map[string]funcDef
	funcCalls int
	callAfter map[int]callAfter // by the call's segment index
	// settled: the statement just walked goes on only where it left the
	// shell (cd x || exit), so what follows it runs there.
	settled bool
	// positional holds $0, $1 … of the inline script being walked (sh -c
	// 'script' arg0 arg1), when they are static.
	positional []string
	// written maps the absolute paths earlier segments wrote static text to
	// (cat > x.sh <<EOF …, echo … > x.sh) to that text, so that running the
	// file later in the command grades its contents.
	written map[string]string
	// secretRead is set when a secret-looking variable is expanded anywhere
	// in the command; every segment is then tagged secret-env.
	secretRead bool
	// presence holds the expansions that only test whether a variable is
	// set or measure it (markPresenceTests): not secret reads.
	presence map[*syntax.ParamExp]bool
	// arithResolution is set when an arithmetic assignment changed a
	// resolution variable (the clause being walked is tagged).
	arithResolution bool
	// loopVars maps a for-loop variable to the word standing for its
	// values, while the loop body is walked.
	loopVars map[string]word
	// vars is what the command made known about its variables so far
	// (static evaluation, eval.go).
	vars *varState
	// sameShell is set while eval's code is walked: it runs in the shell
	// that is being walked, not in a child.
	sameShell bool
	// unrolled counts the loop bodies walked once per item.
	unrolled int
	// lastEntry is the registry's entry for lastEntryName (see entry).
	lastEntryName string
	lastEntry     *programs.Program
	lastEntryOK   bool
	// vars0 holds the state vars starts as; scratch what the walk uses and
	// leaves (visited among it).
	vars0   varState
	scratch *scratch
}

// frame is the context a statement is walked in.
type frame struct {
	src        string // source text the positions refer to
	shell      string
	kind       string
	parent     int
	depth      int
	recursion  int
	redirs     []Redirect // inherited from enclosing compound commands
	stdin      string     // inherited stdin source
	hdoc       *hdocInfo  // inherited heredoc/herestring
	pipe       *pipeInfo  // pipeline stage, when in one
	inFunc     string     // the function whose body this is
	procOut    bool       // inside >( ): stdin is the enclosing command's output
	redirFrom  int        // first segment index created by the statement's redirects
	background bool
}

type hdocInfo struct {
	text    string
	dynamic bool
	fetch   bool // its substitutions fetch from the network
	op      string
	// home is set when text starts with a tilde the shell expands to the
	// home directory (`<<< ~/x`: bash expands a here-string's tilde);
	// homeText is the text of a here-string that is dynamic only through
	// $HOME (`<<< "$HOME/x"`), with ~ standing for it.
	home     bool
	homeText string
}

type pipeInfo struct {
	stages  [][]int // top segment indices per stage
	stage   int
	fetched []bool // fetched[i]: some stage before i fetches or decodes
}

func (f *frame) child(_ []*syntax.Stmt, kind string, parent int) *frame {
	c := &frame{src: f.src, shell: f.shell, kind: kind, parent: parent, depth: f.depth + 1,
		recursion: f.recursion, inFunc: f.inFunc}
	return c
}

// source returns the text of a node in this frame.
func (f *frame) source(n syntax.Node) string {
	if isNilNode(n) {
		return ""
	}
	a, b := int(n.Pos().Offset()), int(n.End().Offset())
	if a < 0 || b > len(f.src) || a > b {
		return ""
	}
	return f.src[a:b]
}

// isNilNode reports a nil node, including a typed nil pointer in the
// interface (an empty heredoc body is a nil *syntax.Word).
func isNilNode(n syntax.Node) bool {
	if n == nil {
		return true
	}
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func (p *walker) addPipeOp(op syntax.BinCmdOperator) {
	if op == syntax.PipeAll {
		p.addOp("|&")
	} else {
		p.addOp("|")
	}
}

func (p *walker) full() bool {
	if len(p.cmd.Segments) >= p.cfg.maxSegments {
		if p.cmd.Shape.Limit == "" {
			p.cmd.Shape.Limit = "segments"
		}
		return true
	}
	return false
}

func (p *walker) walkStmts(f *frame, stmts []*syntax.Stmt) {
	for i, s := range stmts {
		before := p.env.state()
		p.settled = false
		p.walkStmt(f, s)
		if i < len(stmts)-1 && !p.settled {
			// What follows a statement that changed the directory runs
			// where the statement left it or, when its cd failed (cd nope;
			// rm -rf ..) or was never reached, where it started.
			p.forkCwd(before)
		}
	}
}

func (p *walker) addOp(op string) {
	for _, o := range p.cmd.Shape.Operators {
		if o == op {
			return
		}
	}
	p.cmd.Shape.Operators = append(p.cmd.Shape.Operators, op)
}

func (p *walker) walkStmt(f *frame, s *syntax.Stmt) {
	if s == nil || p.full() {
		return
	}
	p.visited[s] = true
	if s.Negated {
		// ! cd nope && rm -rf ..: the negation succeeds when the cd failed.
		before := p.env.state()
		defer p.forkCwd(before)
	}
	nf := *f
	if s.Background || s.Coprocess || s.Disown {
		p.cmd.Shape.Background = true
		p.addOp("&")
		nf.background = true
	}
	if s.Semicolon.IsValid() && !s.Background {
		p.addOp(";")
	}
	// Redirects of this statement: resolved once; they apply to every
	// segment inside (a compound's redirects are inherited).
	nf.redirFrom = len(p.cmd.Segments)
	var own []Redirect
	for _, r := range s.Redirs {
		red, hd := p.resolveRedirect(&nf, r)
		own = append(own, red)
		if hd != nil {
			nf.hdoc = hd
			nf.stdin = stdinKind(hd.op)
		} else if red.Op == "<" && (red.Fd == "" || red.Fd == "0") {
			nf.stdin = "file"
			nf.hdoc = nil
		}
	}
	if s.Background || s.Coprocess {
		// A background job runs in a subshell: what it sets does not last.
		sn := p.vars.snap()
		defer p.vars.restore(sn)
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		nf.redirs = append(append([]Redirect(nil), f.redirs...), own...)
		p.callExpr(&nf, c, s)
		return
	case nil:
		// Redirections alone (`> file`): a segment without a program.
		nf.redirs = append(append([]Redirect(nil), f.redirs...), own...)
		p.callExpr(&nf, &syntax.CallExpr{}, s)
		return
	}
	inh := make([]Redirect, 0, len(f.redirs)+len(own))
	inh = append(inh, f.redirs...)
	for _, r := range own {
		r.Inherited = true
		inh = append(inh, r)
	}
	nf.redirs = inh
	p.walkCommand(&nf, s.Cmd, s)
}

func stdinKind(op string) string {
	if op == "<<<" {
		return "herestring"
	}
	return "heredoc"
}

func (p *walker) walkCommand(f *frame, cmd syntax.Command, s *syntax.Stmt) {
	p.visited[cmd] = true
	switch c := cmd.(type) {
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
			// a && b && c: each operand runs after all before it, as
			// walked; after a ||, an operand may run after any of them, and
			// after the list any of them may not have run.
			var stmtBuf [8]*syntax.Stmt
			var opBuf [8]syntax.BinCmdOperator
			stmts, ops := p.andOrChain(c, stmtBuf[:0], opBuf[:0])
			mark, uncertain, start := 0, false, p.env.state()
			for i, st := range stmts {
				if p.full() {
					return
				}
				if i == 1 {
					mark = p.vars.mark()
				}
				if i > 0 && ops[i-1] == syntax.OrStmt {
					uncertain = true
					if i == len(stmts)-1 && p.exits(st) {
						// cd x || exit: past the list, the shell is
						// where everything before the exit left it.
						p.walkStmt(f, st)
						p.settled = true
						break
					}
					// cd nope || rm -rf ..: this runs after something
					// before it failed, maybe the cd.
					p.forkCwd(start)
				}
				if uncertain {
					p.vars.forgetSince(mark)
				}
				p.walkStmt(f, st)
			}
			if len(stmts) > 1 {
				p.vars.forgetSince(mark)
			}
		default:
			p.walkPipeline(f, c)
		}
	case *syntax.Subshell:
		saved := p.env.state()
		sn := p.vars.snap()
		p.walkStmts(f, c.Stmts)
		p.vars.restore(sn)
		p.env.setState(saved)
	case *syntax.Block:
		p.walkStmts(f, c.Stmts)
	case *syntax.IfClause:
		// After the clause the shell is where a branch that ran left it,
		// or where the last condition left it: each joins the states.
		var ends []cwdState
		mark := p.vars.mark()
		for cl := c; cl != nil; cl = cl.Else {
			before := p.env.state()
			p.walkStmts(f, cl.Cond)
			after := p.env.state()
			sn := p.vars.snap()
			p.walkStmts(f, cl.Then)
			p.vars.restore(sn)
			ends = append(ends, p.env.state())
			// The next branch runs after this condition failed, not
			// after this body: where the condition started or left off
			// (if cd nope; then :; else rm -rf ..; fi).
			p.env.setState(after)
			p.forkCwd(before)
		}
		for _, e := range ends {
			p.forkCwd(e)
		}
		p.vars.forgetSince(mark)
	case *syntax.WhileClause:
		p.scoped(func() {
			// The body may run any number of times: what it changes is
			// unknown in it, in the condition and after the loop.
			names, all := p.loopWrites(c)
			p.forgetNames(names, all)
			mark, entry := p.vars.mark(), p.env.state()
			p.walkStmts(f, c.Cond)
			if c.Until {
				p.forkCwd(entry) // the body runs after the condition failed
			}
			from, start := len(p.cmd.Segments), p.env.state()
			p.walkStmts(f, c.Do)
			p.roundAgain(entry, func() {
				p.walkStmts(f, c.Cond)
				p.walkStmts(f, c.Do)
			})
			p.vars.forgetSince(mark)
			p.forgetNames(names, all)
			if !c.Until {
				// printf '/\n' | while read d; do rm -rf "$d"; done; what
				// the extra walks set is as unknown after the loop.
				again := p.vars.mark()
				p.whileReadData(f, c, len(p.cmd.Segments)-from, start)
				p.vars.forgetSince(again)
				p.forgetNames(names, all)
			}
		})
	case *syntax.ForClause:
		p.scoped(func() {
			names, all := p.loopWrites(c)
			switch l := c.Loop.(type) {
			case *syntax.WordIter:
				if l.Name != nil && p.vars.isRef(l.Name.Value) {
					p.vars.stop() // for r in a b: r refers to a, then to b
				}
				var items []word
				if l.InPos.IsValid() {
					for _, w := range l.Items {
						items = p.appendArgWords(items, f, w, f.parent)
					}
				}
				if l.Name != nil && l.InPos.IsValid() && !c.Select && p.unroll(f, c, l.Name.Value, items) {
					return
				}
				p.forgetNames(names, all)
				if l.Name != nil {
					p.vars.forget(l.Name.Value)
				}
				// for f in *.go a.txt: inside the body, "$f" is one of the
				// items; when they are static and alike, it reads like them.
				if l.Name != nil {
					if v, ok := p.loopValue(items); ok {
						put(&p.loopVars, l.Name.Value, v)
						defer delete(p.loopVars, l.Name.Value)
					} else {
						delete(p.loopVars, l.Name.Value)
					}
				}
			case *syntax.CStyleLoop:
				// The header is arithmetic like (( )): grade it as such.
				seg := p.newSegment(f, f.source(l))
				seg.Argv, seg.Dynamic, seg.Program, seg.Path, seg.PathKind = []string{"(("}, []bool{false}, "((", "((", "bare"
				p.forgetNames(names, all)
				for _, e := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
					if p.walkArithm(f, e, seg.Index) {
						seg.tag(TagArithDynamic)
					}
				}
			}
			mark, entry := p.vars.mark(), p.env.state()
			p.walkStmts(f, c.Do)
			p.roundAgain(entry, func() { p.walkStmts(f, c.Do) })
			p.vars.forgetSince(mark)
			p.forgetNames(names, all)
		})
	case *syntax.CaseClause:
		p.resolveWord(f, c.Word, f.parent)
		p.scoped(func() {
			// Each item runs after the word matched it, or after the item
			// before it (;& and ;;&): what earlier items change is unknown.
			mark, entry := p.vars.mark(), p.env.state()
			for _, it := range c.Items {
				p.vars.forgetSince(mark)
				p.forkCwd(entry) // after an item that falls through (;&)
				for _, pat := range it.Patterns {
					p.resolveWord(f, pat, f.parent)
				}
				p.walkStmts(f, it.Stmts)
			}
			p.vars.forgetSince(mark)
		})
	case *syntax.FuncDecl:
		p.funcDecl(f, c)
	case *syntax.TimeClause:
		p.walkStmt(f, c.Stmt)
	case *syntax.CoprocClause:
		nf := *f
		nf.background = true
		p.cmd.Shape.Background = true
		p.walkStmt(&nf, c.Stmt)
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause, *syntax.DeclClause:
		p.builtinClause(f, cmd, s)
	default:
		// TestDecl (bats) and anything new: walk whatever it contains as a
		// generic statement list so nothing hides.
		p.sweep(f, cmd)
		p.vars.clear()
	}
}

// Unrolling bounds: a for loop over at most maxUnrollItems static items
// is walked once per item, up to maxUnrolled body walks per command.
const (
	maxUnrollItems = 8
	maxUnrolled    = 32
)

// unroll walks the body of for NAME in ITEMS once per item, with NAME
// known, when the items are few, static and not globs, and nothing in the
// body can skip the rest of an iteration (break, continue). It reports
// whether it did.
func (p *walker) unroll(f *frame, c *syntax.ForClause, name string, items []word) bool {
	if _, ifs := p.vars.vars["IFS"]; p.vars.off || !ifs || len(items) == 0 || len(items) > maxUnrollItems ||
		p.unrolled+len(items) > maxUnrolled || hasLoopExit(c, name, items) {
		return false
	}
	for _, it := range items {
		if it.dynamic || it.glob {
			return false
		}
	}
	p.unrolled += len(items)
	saved, had := p.loopVars[name]
	delete(p.loopVars, name)
	for _, it := range items {
		p.vars.set(name, expand.Variable{Kind: expand.String, Str: it.text})
		put(&p.loopVars, name, it) // where the value cannot be evaluated ("$d/$x"), still this item
		p.walkStmts(f, c.Do)
	}
	delete(p.loopVars, name)
	if had {
		put(&p.loopVars, name, saved)
	}
	return true
}

// loopValue returns a word standing for every item of a for loop when the
// items are static, cannot be options, and are of one path class. Unless
// every item is a glob or all are the same text, the word is dynamic (a
// placeholder classed by its path): as a program name, a subcommand or
// code it would stand for one item only.
func (p *walker) loopValue(items []word) (word, bool) {
	if len(items) == 0 {
		return word{}, false
	}
	class := ""
	for _, it := range items {
		if it.dynamic || strings.HasPrefix(it.text, "-") {
			return word{}, false
		}
		c := p.operand(it).Class
		if c == ClassDynamic {
			return word{}, false
		}
		if class != "" && c != class {
			if !critical(c) || !critical(class) {
				return word{}, false
			}
		}
		class = c
	}
	v := items[0] // alike, or all critical (for d in / ~: reads like /)
	same := true
	for _, it := range items {
		if !it.glob && it.text != v.text {
			same = false
		}
		if it.glob != v.glob {
			same = false
		}
	}
	if !same {
		v.dynamic, v.fill = true, true
	}
	return v, true
}

func critical(c string) bool { return c == ClassRoot || c == ClassHome || c == ClassSystemTop }

// scoped walks a compound body; if it changes the cwd, the shell is
// afterwards where the body left it or where it started (the body may or
// may not have run).
func (p *walker) scoped(fn func()) {
	before := p.env.state()
	fn()
	p.forkCwd(before)
}

// forkCwd is [pathEnv.fork] for the walk: when the shell may now be in
// either of two places, $PWD and $OLDPWD hold one of two values too, and
// are not known (cd nope; rm -rf "$PWD/..").
func (p *walker) forkCwd(before cwdState) {
	if p.env.state() == before {
		return
	}
	p.env.fork(before)
	p.vars.forget("PWD")
	p.vars.forget("OLDPWD")
}

// roundAgain walks a loop's round once more (round) when the first one,
// begun in entry, moved the shell: later rounds start where the one before
// left off, which is not known.
func (p *walker) roundAgain(entry cwdState, round func()) {
	if p.env.state() != entry {
		p.env.setCwd("")
		round()
	}
}

// exits reports a statement that is a plain exit or return: the builtin
// (no function of that name, no changed shell that could define one).
func (p *walker) exits(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Negated || s.Background || s.Coprocess || len(c.Args) == 0 || len(p.funcs) > 0 || p.changed || p.vars.anyFunc {
		return false
	}
	w := c.Args[0].Lit()
	return w == "exit" || w == "return"
}

// andOrChain returns the operands of a list of && and || in order. The
// parser nests such a list to the left (X holds the list so far), so a
// long one is unrolled here without recursion: its depth would be its
// length. An operand statement with redirects or other properties of its
// own is kept whole (walked as a statement). They are appended to rev and
// ops, room the caller gives (empty).
func (p *walker) andOrChain(c *syntax.BinaryCmd, rev []*syntax.Stmt, ops []syntax.BinCmdOperator) ([]*syntax.Stmt, []syntax.BinCmdOperator) {
	for {
		if c.Op == syntax.AndStmt {
			p.addOp("&&")
		} else {
			p.addOp("||")
		}
		ops = append(ops, c.Op)
		rev = append(rev, c.Y)
		x := c.X
		b, ok := x.Cmd.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.AndStmt && b.Op != syntax.OrStmt) || !plainStmt(x) {
			rev = append(rev, x)
			break
		}
		p.visited[x] = true
		p.visited[b] = true
		c = b
	}
	slices.Reverse(rev)
	slices.Reverse(ops)
	return rev, ops
}

// plainStmt reports a statement that only holds its command: no
// redirects, background, coprocess, disown, negation or semicolon.
func plainStmt(s *syntax.Stmt) bool {
	return len(s.Redirs) == 0 && !s.Background && !s.Coprocess && !s.Disown && !s.Negated && !s.Semicolon.IsValid()
}

func (p *walker) walkPipeline(f *frame, c *syntax.BinaryCmd) {
	// Stages in order, without recursion (the parser nests a long pipeline
	// to the left, as deep as it is long).
	var stages []*syntax.Stmt
	todo := []*syntax.Stmt{c.Y, c.X} // a stack: the next stage on top
	p.addPipeOp(c.Op)
	for len(todo) > 0 {
		s := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(s.Redirs) == 0 && !s.Background {
			p.visited[b] = true
			p.visited[s] = true
			p.addPipeOp(b.Op)
			todo = append(todo, b.Y, b.X)
			continue
		}
		stages = append(stages, s)
		if len(stages) > p.cfg.maxSegments {
			// More stages than segments allowed: the rest is not walked,
			// and the command is over the limit.
			if p.cmd.Shape.Limit == "" {
				p.cmd.Shape.Limit = "segments"
			}
			break
		}
	}
	info := &pipeInfo{stages: make([][]int, len(stages))}
	saved := p.env.state()
	for i, st := range stages {
		nf := *f
		nf.pipe = info
		info.stage = i
		if i > 0 && f.hdoc == nil {
			nf.stdin = "pipe"
		}
		if nf.kind == KindTop {
			nf.kind = KindPipeline
		}
		from := len(p.cmd.Segments)
		sn := p.vars.snap() // each stage runs in a subshell
		p.walkStmt(&nf, st)
		p.vars.restore(sn)
		for j := from; j < len(p.cmd.Segments); j++ {
			if p.cmd.Segments[j].Parent == f.parent && p.cmd.Segments[j].Depth == f.depth {
				info.stages[i] = append(info.stages[i], j)
			}
		}
		p.env.setState(saved) // each stage runs in a subshell
	}
	// Fill the neighbours now that every stage is known: the programs of
	// the nearest maxNeighbours stages on each side (bounded, so a
	// 20,000-stage pipeline stays linear).
	for i, idxs := range info.stages {
		upFrom, downTo := max(0, i-maxNeighbours), min(len(info.stages), i+maxNeighbours+1)
		for _, j := range idxs {
			seg := p.cmd.Segments[j]
			seg.Upstream = p.appendPrograms(seg.Upstream, info.stages[upFrom:i])
			seg.Downstream = p.appendPrograms(seg.Downstream, info.stages[i+1:downTo])
		}
	}
	p.pipelineCode(f, info)
}

// appendPrograms appends to list the programs of the segments of stages,
// growing it once.
func (p *walker) appendPrograms(list []string, stages [][]int) []string {
	n := 0
	for _, st := range stages {
		n += len(st)
	}
	list = slices.Grow(list, n)
	for _, st := range stages {
		for _, j := range st {
			list = append(list, p.cmd.Segments[j].Program)
		}
	}
	return list
}

// maxNeighbours bounds the pipe neighbours listed on each side of a segment.
const maxNeighbours = 16

// compoundBody reports a function body bash accepts: a compound command,
// not negated.
func compoundBody(s *syntax.Stmt) bool {
	if s == nil || s.Negated {
		return false
	}
	switch s.Cmd.(type) {
	case *syntax.Block, *syntax.Subshell, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause,
		*syntax.CaseClause, *syntax.ArithmCmd, *syntax.TestClause:
		return true
	}
	return false
}

func (p *walker) funcDecl(f *frame, c *syntax.FuncDecl) {
	name := ""
	if c.Name != nil {
		name = c.Name.Value
	}
	for _, n := range c.Names {
		if n != nil && name == "" {
			name = n.Value
		}
	}
	p.cmd.Shape.Functions = append(p.cmd.Shape.Functions, name)
	if f.shell != "zsh" && !compoundBody(c.Body) && p.cmd.Shape.Error == nil {
		// bash (and POSIX sh) take only a compound command as a function
		// body: `f() echo x` and `f()⏎cmd` are syntax errors there, which
		// the syntax parser accepts.
		off := int(c.Pos().Offset())
		p.cmd.Shape.Error = posError(f.src, min(off, len(f.src)), "a function body that is not a compound command (bash rejects it)")
	}
	nf := *f
	nf.kind = KindFunction
	nf.inFunc = name
	saved := p.env.state()
	from := len(p.cmd.Segments)
	// The body runs when the function is called, with whatever is set
	// then: nothing is known in it but what it sets itself.
	outer := p.vars
	if outer.poison == nil {
		outer.poison = map[string]bool{}
	}
	if outer.assoc == nil {
		outer.assoc = map[string]bool{}
	}
	// Namerefs known outside are in force when it runs: its assignments
	// through them cannot be followed from here.
	// (Calling it then stops evaluation: a call forgets everything, and
	// forgetting a nameref stops it.)
	refs := outer.hasRefs()
	p.vars = &varState{vars: map[string]expand.Variable{}, poison: outer.poison, assoc: outer.assoc, off: outer.off || refs, anyFunc: outer.anyFunc}
	p.walkStmt(&nf, c.Body)
	if p.vars.off && !outer.off && !refs {
		outer.stop() // shopt or a trap inside: in force once it is called
	}
	p.vars = outer
	p.env.setState(saved)
	// A function that calls itself in a pipeline or in the background
	// forks without end.
	for j := from; j < len(p.cmd.Segments); j++ {
		seg := p.cmd.Segments[j]
		if seg.Path == name && name != "" && (len(seg.Upstream)+len(seg.Downstream) > 0 || seg.HasTag(TagBackground)) {
			seg.tag(TagForkBomb)
		}
	}
	put(&p.funcs, name, true)
	p.defineFunc(name, f, c)
	if name == "command_not_found_handle" {
		p.vars.anyFunc = true // runs for every program not found
	}
	p.changeShell()
}

// changeShell records that every later segment runs under a changed shell.
func (p *walker) changeShell() {
	p.changed = true
	p.cmd.Shape.ChangedShell = true
}

// sweep walks every statement, substitution and simple command found below
// n that the structured walk has not handled yet.
func (p *walker) sweep(of *frame, n syntax.Node) {
	// The function escapes (syntax.Walk keeps it): it is a sweeper's, made
	// once and kept with the walker's scratch, and sees a copy of the frame,
	// so that the callers' frames can stay on the stack. Frames are never
	// written through a pointer, so the copy sees what of does. A sweep
	// inside this one (an inline script's) takes another sweeper.
	s := p.scratch
	var sw *sweeper
	if k := len(s.sweepers); k > 0 {
		sw, s.sweepers = s.sweepers[k-1], s.sweepers[:k-1]
	} else {
		sw = &sweeper{}
		sw.visit = sw.node
	}
	sw.p, sw.f = p, *of
	syntax.Walk(n, sw.visit)
	sw.p, sw.f = nil, frame{}
	s.sweepers = append(s.sweepers, sw)
}

// sweeper is the state of one sweep: visit is its node method, bound once.
type sweeper struct {
	p     *walker
	f     frame
	visit func(syntax.Node) bool
}

func (sw *sweeper) node(node syntax.Node) bool {
	p, f := sw.p, &sw.f
	if node == nil || p.visited[node] {
		return node == nil || !p.visited[node]
	}
	switch x := node.(type) {
	case *syntax.Stmt:
		p.walkStmt(f, x)
		p.vars.clear() // a statement found out of the structured walk: its effects are not followed
		return false
	case *syntax.CmdSubst:
		p.visited[x] = true
		sn := p.vars.snap()
		p.walkStmts(f.child(x.Stmts, KindSubst, f.parent), x.Stmts)
		p.vars.restore(sn)
		return false
	case *syntax.ProcSubst:
		p.visited[x] = true
		sn := p.vars.snap()
		p.walkStmts(f.child(x.Stmts, KindProcSubst, f.parent), x.Stmts)
		p.vars.restore(sn)
		return false
	}
	return true
}

// abridge shortens long source text for messages.
func abridge(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 240 {
		return s[:237] + "..."
	}
	return s
}

// put sets m[k] = v, making the map on its first write: most commands
// never write most of the walker's maps, and reading or deleting from a nil
// map is already safe.
func put[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = make(map[K]V)
	}
	(*m)[k] = v
}
