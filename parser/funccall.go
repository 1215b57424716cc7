package parser

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Calls of the functions a command defines: `f() { rm -rf "$1"; }; f /`
// runs rm -rf /. A body is walked where it is defined, with nothing known
// (it asks for what it cannot know); at a call whose arguments are all
// known, it is walked again below the call, as a reading, with $1 … bound
// to them and the caller's known values (a function runs in the caller's
// shell): what the call makes certain is graded. The reading only adds
// reasons. After the call, what the body left known (its assignments, its
// cd) holds in the caller when the body is straight-line enough to tell
// (see plainBody); otherwise the call forgets every value, as any call of
// a function does.

const (
	maxFuncCalls    = 16 // calls walked again per command
	maxFuncSegments = 4  // a call walks again only while segments are under maxSegments/this
)

// funcDef is a function as defined in the text.
type funcDef struct {
	body  *syntax.Stmt
	shell string
}

// defineFunc records the body of a function defined in the text (the last
// definition of a name, as a call after it runs).
func (p *walker) defineFunc(name string, f *frame, c *syntax.FuncDecl) {
	if name == "" || c.Body == nil {
		return
	}
	if p.funcDefs == nil {
		p.funcDefs = map[string]funcDef{}
	}
	p.funcDefs[name] = funcDef{body: c.Body, shell: f.shell}
}

// funcCallReading walks the body of the function seg calls again, below
// seg, with its arguments bound, when they are all known.
func (p *walker) funcCallReading(f *frame, seg *Segment) {
	def, ok := p.funcDefs[seg.Program]
	if !ok || seg.PathKind != "bare" || len(seg.Wrappers) > 0 || p.vars.off || def.shell != f.shell ||
		p.funcCalls >= maxFuncCalls || len(p.cmd.Segments) >= p.cfg.maxSegments/maxFuncSegments ||
		f.recursion+1 > p.cfg.maxRecursion {
		return
	}
	for i, d := range seg.Dynamic {
		if d && i > 0 {
			return
		}
	}
	p.funcCalls++
	nf := &frame{src: f.src, shell: f.shell, kind: KindFunction, parent: seg.Index, depth: seg.Depth + 1,
		recursion: f.recursion + 1, inFunc: seg.Program}
	sn := p.vars.snap()
	saved := p.env.state()
	p.vars.own()
	p.vars.pos, p.vars.posKnown = append([]string(nil), seg.Argv[1:]...), true
	p.walkStmt(nf, def.body)
	if len(seg.Assigns) == 0 && !p.vars.off && plainBody(def.body) {
		if p.callAfter == nil {
			p.callAfter = map[int]callAfter{}
		}
		p.callAfter[seg.Index] = callAfter{vars: p.vars.snap(), env: p.env.state()}
	}
	p.env.setState(saved)
	p.vars.restore(sn)
}

// callAfter is the state a call of a function leaves: its values and the
// directory it moved to.
type callAfter struct {
	vars snapshot
	env  cwdState
}

// afterCall returns, for a call of a function the text defines that was
// walked again with a plain body, the effect the call has on the caller:
// the body's known values and directory, the caller's positional
// parameters (a function's $@ are its own).
func (p *walker) afterCall(seg *Segment) (func(), bool) {
	a, ok := p.callAfter[seg.Index]
	if !ok || p.vars.anyFunc {
		return nil, false
	}
	return func() {
		pos, known, touched := p.vars.pos, p.vars.posKnown, p.vars.posTouched
		p.vars.restore(a.vars)
		p.vars.pos, p.vars.posKnown, p.vars.posTouched = pos, known, touched
		p.env.setState(a.env)
	}, true
}

// plainBody reports a function body whose walk tells what a call leaves
// behind: nothing in it returns or leaves early (return, exit, break,
// continue, exec), makes variables of its own (local, declare, typeset,
// which are local in a function) or runs in a subshell of its own.
func plainBody(body *syntax.Stmt) bool {
	if _, sub := body.Cmd.(*syntax.Subshell); sub {
		return false
	}
	plain := true
	syntax.Walk(body, func(n syntax.Node) bool {
		if !plain {
			return false
		}
		switch x := n.(type) {
		case *syntax.DeclClause:
			switch x.Variant.Value {
			case "local", "declare", "typeset":
				plain = false
			}
		case *syntax.CallExpr:
			if len(x.Args) > 0 {
				switch strings.ReplaceAll(x.Args[0].Lit(), `\`, "") {
				case "return", "exit", "break", "continue", "exec", "local", "declare", "typeset":
					plain = false
				}
			}
		}
		return plain
	})
	return plain
}
