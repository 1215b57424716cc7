package parser

import "mvdan.cc/sh/v3/syntax"

// Calls of the functions a command defines: `f() { rm -rf "$1"; }; f /`
// runs rm -rf /. A body is walked where it is defined, with nothing known
// (it asks for what it cannot know); at a call whose arguments are all
// known, it is walked again below the call, as a reading, with $1 … bound
// to them and the caller's known values (a function runs in the caller's
// shell): what the call makes certain is graded. The reading only adds
// reasons, and the call still forgets every value afterwards.

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
	p.env.setState(saved)
	p.vars.restore(sn)
}
