package parser

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/rivumi/rivumi/internal/shquote"
	"github.com/rivumi/rivumi/rules"
)

// Static data into runners. When what arrives on a runner's input is known
// from the text itself (echo or printf of static words, a here-string, a
// heredoc without expansions, cat of a file an earlier segment wrote), the
// commands the runner builds from it are graded too: xargs splits it as
// GNU xargs does, parallel takes a line per argument, and `while read`
// assigns it to its variables. The runner's own segment keeps its
// appended-args tag (it asks); the built commands are added to it, so a
// verdict can only rise.

// maxDataItems and maxDataRuns bound the data substituted and the commands
// built from it; past them the rest is not graded (the runner still asks).
const (
	maxDataItems = 256
	maxDataRuns  = 16
)

// dataRoom reports whether n more segments built from data fit in half
// the segment limit. Grading data is extra: it must never be what pushes a
// command over the limit (a limit hit denies).
func (p *walker) dataRoom(n int) bool {
	return len(p.cmd.Segments)+n <= p.cfg.maxSegments/2
}

// xargsPlan is what xargs was given: its option words and the command it
// runs, before the replacement string was marked dynamic.
type xargsPlan struct {
	opts     []string
	cmd      []word
	argSubst [2]int // -a <(…): the substitution's segments
}

// xargsArgFileSubst lets xargs -a <(cmd) be read: the process
// substitution (a pipe, graded on its own) is the option's value, so the
// option scan takes it as a name, and its static output, if any, is the
// input (see [walker.xargsData]).
func (p *walker) xargsArgFileSubst(seg *Segment, ws []word) []word {
	for i := 1; i+1 < len(ws); i++ {
		t := ws[i].text
		if ws[i].dynamic || !strings.HasPrefix(t, "-") || t == "--" {
			break
		}
		if (t == "-a" || t == "--arg-file") && ws[i+1].pipe && seg.argSubst == [2]int{} {
			out := append([]word(nil), ws...)
			out[i+1].dynamic = false
			seg.argSubst = [2]int{ws[i+1].childFrom, ws[i+1].childTo}
			return out
		}
	}
	return ws
}

// xargsOpts are the options of one xargs invocation that shape how its
// input becomes arguments (GNU findutils 4.9, plus BSD's -J).
type xargsOpts struct {
	delim    byte // with useDelim: -0 (NUL) or -d
	useDelim bool
	repl     string // -I, -i, --replace: per-line replacement
	replJ    string // BSD -J: the whole batch replaces one word
	eof      string // -E, -e, --eof: input ends at this item
	maxArgs  int    // -n
	maxLines int    // -L, -l
	argFile  string // -a, --arg-file: input comes from this file
	bothNI   bool   // -n and -I both given: GNU keeps the last, grade both
}

// parseXargsOpts reads xargs' option words as getopt_long does with GNU
// xargs' option string "+0a:E:e::i::I:l::L:n:prs:txP:d:" (optional values
// attached only).
func parseXargsOpts(words []string) (xargsOpts, bool) {
	var o xargsOpts
	sawN, sawI := false, false
	spec := rules.ProgramSpec("xargs")
	for i := 0; i < len(words); i++ {
		t := words[i]
		if t == "--" {
			break
		}
		if strings.HasPrefix(t, "--") {
			name, val, hasVal := strings.Cut(t[2:], "=")
			opt, ok := spec.LookupLong(name)
			if !ok {
				return o, false
			}
			if opt.Arg == rules.ArgRequired && !hasVal {
				if i+1 >= len(words) {
					return o, false
				}
				i++
				val = words[i]
			}
			switch opt.Canon {
			case "null":
				o.delim, o.useDelim = 0, true
			case "arg-file":
				o.argFile = val
			case "delimiter":
				d, ok := xargsDelim(val)
				if !ok {
					return o, false
				}
				o.delim, o.useDelim = d, true
			case "eof":
				o.eof = val
			case "replace":
				o.repl, sawI = "{}", true
				if hasVal && val != "" {
					o.repl = val
				}
			case "max-lines":
				o.maxLines = 1
				if hasVal {
					o.maxLines = atoiPos(val)
				}
			case "max-args":
				o.maxArgs, sawN = atoiPos(val), true
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			c := t[j]
			rest := t[j+1:]
			switch c {
			case '0':
				o.delim, o.useDelim = 0, true
				continue
			case 'p', 'r', 't', 'x', 'o':
				continue
			case 'e', 'i', 'l':
				// Optional values are attached only.
				switch c {
				case 'e':
					o.eof = rest
				case 'i':
					o.repl, sawI = "{}", true
					if rest != "" {
						o.repl = rest
					}
				case 'l':
					o.maxLines = 1
					if rest != "" {
						o.maxLines = atoiPos(rest)
					}
				}
				j = len(t)
				continue
			case 'a', 'E', 'I', 'L', 'n', 's', 'P', 'd', 'J', 'R', 'S':
				val := rest
				if val == "" {
					if i+1 >= len(words) {
						return o, false
					}
					i++
					val = words[i]
				}
				switch c {
				case 'a':
					o.argFile = val
				case 'E':
					o.eof = val
				case 'I':
					o.repl, sawI = val, true
				case 'J':
					o.replJ = val
				case 'L':
					o.maxLines = atoiPos(val)
				case 'n':
					o.maxArgs, sawN = atoiPos(val), true
				case 'd':
					d, ok := xargsDelim(val)
					if !ok {
						return o, false
					}
					o.delim, o.useDelim = d, true
				}
				j = len(t)
				continue
			}
			return o, false // an option nobody modelled
		}
	}
	if o.maxArgs < 0 || o.maxLines < 0 {
		return o, false
	}
	o.bothNI = sawN && sawI
	return o, true
}

// atoiPos parses a positive count; -1 when it is not one.
func atoiPos(s string) int {
	n := 0
	if s == "" || len(s) > 6 {
		return -1
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	if n == 0 {
		return -1
	}
	return n
}

// xargsDelim decodes -d's value: one character or a C escape.
func xargsDelim(v string) (byte, bool) {
	switch {
	case len(v) == 1:
		return v[0], true
	case v == `\n`:
		return '\n', true
	case v == `\t`:
		return '\t', true
	case v == `\0`:
		return 0, true
	case v == `\\`:
		return '\\', true
	}
	d := ansiC(v)
	if len(d) == 1 {
		return d[0], true
	}
	return 0, false
}

// xargsLines splits xargs input into items grouped by input line, as GNU
// xargs reads it: with a delimiter (-0, -d) every item stands alone and
// quotes mean nothing; with a replacement string (-I) every line is one
// item, leading blanks dropped, quotes and backslashes still processed;
// otherwise blanks and newlines separate items, quotes group and a
// backslash escapes. An unmatched quote ends the input there (xargs runs
// what it read, then fails). eof ends the input at an item equal to it.
func xargsLines(text string, o xargsOpts) [][]string {
	var lines [][]string
	count := 0
	add := func(line []string) bool {
		if count+len(line) > maxDataItems {
			return false
		}
		count += len(line)
		lines = append(lines, line)
		return true
	}
	if o.useDelim {
		items := strings.Split(text, string(o.delim))
		if len(items) > 0 && items[len(items)-1] == "" {
			items = items[:len(items)-1]
		}
		for _, it := range items {
			if !add([]string{it}) {
				break
			}
		}
		return lines
	}
	if o.repl != "" {
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimLeft(l, " \t")
			if l == "" {
				continue
			}
			toks, complete := xargsTokens(l, true)
			if len(toks) == 0 {
				if !complete {
					break
				}
				continue
			}
			if o.eof != "" && toks[0] == o.eof {
				break
			}
			if !add(toks) || !complete {
				break
			}
		}
		return lines
	}
	for _, l := range strings.Split(text, "\n") {
		toks, complete := xargsTokens(l, false)
		stop := false
		if o.eof != "" {
			for k, t := range toks {
				if t == o.eof {
					toks, stop = toks[:k], true
					break
				}
			}
		}
		if len(toks) > 0 && !add(toks) {
			break
		}
		if stop || !complete {
			break
		}
	}
	return lines
}

// xargsTokens splits one input line; whole keeps blanks (the -I reading,
// one item). complete is false when a quote was left open.
func xargsTokens(l string, whole bool) (toks []string, complete bool) {
	var b strings.Builder
	in := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(l[i+1:], c)
			if j < 0 {
				if in && !whole {
					toks = append(toks, b.String())
				}
				return toks, false
			}
			b.WriteString(l[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '\\' && i+1 < len(l):
			b.WriteByte(l[i+1])
			i++
			in = true
		case (c == ' ' || c == '\t') && !whole:
			if in {
				toks = append(toks, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in || whole && b.Len() > 0 {
		toks = append(toks, b.String())
	}
	return toks, true
}

// dataWord is an item of runner input as a word: static, and never a tilde
// to expand (xargs and read hand `~` on as it is), unless home says the
// shell expanded it before (a here-string `<<< ~`, `echo ~`).
func dataWord(item string, home bool) word {
	w := word{text: item, path: item}
	if strings.HasPrefix(item, "~") && !home {
		w.path = "./" + item
	}
	return w
}

// stdinData returns the static text that reaches a command's standard
// input in frame f, and whether the leading `~` of it is the home
// directory (a here-string's tilde is expanded by the shell).
func (p *walker) stdinData(f *frame) (text string, home, ok bool) {
	switch {
	case f.hdoc != nil:
		if f.hdoc.dynamic && f.hdoc.homeText != "" {
			return f.hdoc.homeText, true, true
		}
		return f.hdoc.text, f.hdoc.home, !f.hdoc.dynamic
	case f.stdin == "file":
		for i := len(f.redirs) - 1; i >= 0; i-- {
			r := f.redirs[i]
			if r.Op != "<" || r.Fd != "" && r.Fd != "0" {
				continue
			}
			if r.Target.abs != "" {
				t, ok := p.written[r.Target.abs]
				return t, false, ok
			}
			if r.childTo > r.childFrom {
				t, ok := p.substOutput(r.childFrom, r.childTo, KindProcSubst)
				return t, false, ok
			}
			return "", false, false
		}
	case f.stdin == "pipe" && f.pipe != nil && !f.procOut && f.pipe.stage > 0:
		if src := p.staticSource(f.pipe, f.pipe.stage); src != nil {
			t, ok := p.staticOutput(src)
			return t, src.tilde && src.Program != "cat", ok // echo ~ prints the home directory
		}
		// (echo a; echo /) | xargs …: every command of the stage before
		// prints static text; all of it (a superset when some are
		// conditional) is the input.
		var b strings.Builder
		tilde := false
		for _, j := range f.pipe.stages[f.pipe.stage-1] {
			s := p.cmd.Segments[j]
			t, ok := p.staticOutput(s)
			if !ok || len(s.Redirects) > 0 {
				return "", false, false
			}
			b.WriteString(t)
			tilde = tilde || s.tilde && s.Program != "cat"
		}
		return b.String(), tilde, b.Len() > 0
	}
	return "", false, false
}

// substOutput is the static output of the one substitution of kind made
// in the segment range [from, to).
func (p *walker) substOutput(from, to int, kind string) (string, bool) {
	var top *Segment
	for _, c := range p.cmd.Segments[from:to] {
		if c.Kind != kind {
			continue
		}
		if top != nil {
			return "", false
		}
		top = c
	}
	if top == nil {
		return "", false
	}
	return p.staticOutput(top)
}

// fileData is the static text of a file an earlier segment wrote, by its
// name as given to a runner (xargs -a FILE, parallel -a FILE).
func (p *walker) fileData(f *frame, name string) (string, bool, bool) {
	if name == "-" || name == "/dev/stdin" || name == "/dev/fd/0" || name == "/proc/self/fd/0" {
		return p.stdinData(f)
	}
	abs := p.env.absolute(name)
	if abs == "" {
		return "", false, false
	}
	t, ok := p.written[abs]
	return t, false, ok
}

// xargsData grades the commands xargs builds from static input: each is a
// child segment of the xargs segment, graded like any other.
func (p *walker) xargsData(f *frame, seg *Segment) {
	for k, plan := range seg.xargs {
		p.xargsPlanData(f, seg, plan, k == 0)
	}
}

// xargsPlanData grades one xargs of the segment; an inner one (xargs xargs
// -a f …) has only its -a file to read, as xargs gives its command an
// empty standard input.
func (p *walker) xargsPlanData(f *frame, seg *Segment, plan *xargsPlan, outer bool) {
	for _, w := range plan.cmd {
		if w.dynamic {
			return
		}
	}
	o, ok := parseXargsOpts(plan.opts)
	if !ok {
		return
	}
	var text string
	var home bool
	if o.argFile != "" && plan.argSubst[1] > plan.argSubst[0] && strings.HasPrefix(o.argFile, "<(") {
		text, ok = p.substOutput(plan.argSubst[0], plan.argSubst[1], KindProcSubst) // xargs -a <(echo /)
	} else if o.argFile != "" {
		text, home, ok = p.fileData(f, o.argFile)
	} else if !outer {
		return
	} else {
		text, home, ok = p.stdinData(f)
	}
	if !ok {
		return
	}
	lines := xargsLines(text, o)
	if len(lines) == 0 {
		return // nothing to append: the command alone is the segment itself
	}
	items := func(ls [][]string) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l...)
		}
		return out
	}
	runs := 0
	run := func(ws []word) {
		if runs < maxDataRuns && p.dataRoom(1) {
			runs++
			p.runnerChild(f, seg, "xargs", ws)
		}
	}
	if o.repl != "" {
		for _, l := range lines {
			item := strings.Join(l, " ")
			var ws []word
			for _, w := range plan.cmd {
				t := strings.ReplaceAll(w.text, o.repl, item)
				nw := dataWord(t, home && strings.HasPrefix(w.text, o.repl))
				if t == w.text {
					nw = w
				}
				ws = append(ws, nw)
			}
			run(ws)
		}
		if !o.bothNI {
			return
		}
	}
	var batches [][]string
	switch {
	case o.maxLines > 0:
		for i := 0; i < len(lines); i += o.maxLines {
			batches = append(batches, items(lines[i:min(i+o.maxLines, len(lines))]))
		}
	case o.maxArgs > 0:
		all := items(lines)
		for i := 0; i < len(all); i += o.maxArgs {
			batches = append(batches, all[i:min(i+o.maxArgs, len(all))])
		}
	default:
		batches = [][]string{items(lines)}
	}
	for _, b := range batches {
		data := make([]word, len(b))
		for k, it := range b {
			data[k] = dataWord(it, home)
		}
		var ws []word
		replaced := false
		for _, w := range plan.cmd {
			if o.replJ != "" && !replaced && w.text == o.replJ {
				ws = append(ws, data...)
				replaced = true
				continue
			}
			ws = append(ws, w)
		}
		if !replaced {
			ws = append(ws, data...)
		}
		run(ws)
		if shellCodeFromData(plan.cmd) && runs < maxDataRuns && p.dataRoom(1) {
			// xargs bash -c: the first item is the code and the rest its
			// $0, $1 … (echo 'rm -rf /' | xargs bash -c runs rm alone).
			// The data is evidently meant as the code, and a runner that
			// joins it (xargs -I, parallel, BSD variants) runs it whole:
			// grade that reading too.
			runs++
			p.script(f, strings.Join(b, " "), seg.Index, KindExec, false)
		}
	}
}

// shellCodeFromData reports a command that ends in a shell's -c, so that
// the data appended becomes its code.
func shellCodeFromData(cmd []word) bool {
	if len(cmd) < 2 {
		return false
	}
	name, _ := progName(cmd[0].text)
	last := cmd[len(cmd)-1].text
	return isShell(name) && strings.HasPrefix(last, "-") && !strings.HasPrefix(last, "--") && strings.HasSuffix(last, "c")
}

// runnerChild adds a segment for a command a runner builds (xargs with its
// input substituted): a child of the runner's segment, graded in full.
func (p *walker) runnerChild(f *frame, parent *Segment, runner string, ws []word) {
	if len(ws) == 0 || p.full() {
		return
	}
	nf := &frame{src: f.src, shell: f.shell, kind: KindExec, parent: parent.Index, depth: parent.Depth + 1,
		recursion: f.recursion + 1, inFunc: f.inFunc}
	if nf.recursion > p.cfg.maxRecursion {
		p.cmd.Shape.Limit = "recursion"
		return
	}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.text
	}
	seg := p.newSegment(nf, strings.Join(parts, " "))
	seg.Wrappers = append(seg.Wrappers, Wrapper{Name: runner, Args: []string{}})
	p.command(nf, seg, ws)
}

// parallelData returns a reader of GNU parallel's argument sources: the
// file named (or "-", standard input), split into lines (or -0 / -d
// items) when its contents are static. Each line is one argument, which
// parallel shell-quotes where it inserts it; raw keeps the line itself.
// (A value, not a closure: a returned closure would move every frame it
// could see to the heap.)
func (p *walker) parallelData(f *frame, opts map[string][]string) parallelReader {
	r := parallelReader{p: p, f: f, delim: '\n', ok: true}
	if _, z := opts["null"]; z {
		r.delim = 0
	}
	for _, n := range opts["NUM"] {
		if strings.HasPrefix(n, "0") {
			r.delim = 0 // -0 reads as a number to the generic scan
		}
	}
	if d := opts["delimiter"]; len(d) > 0 {
		r.delim, r.ok = xargsDelim(d[len(d)-1])
	}
	_, r.cols = opts["colsep"]
	if c := opts["C"]; len(c) > 0 {
		r.cols = true
	}
	return r
}

// parallelReader reads GNU parallel's argument sources (parallelData).
type parallelReader struct {
	p        *walker
	f        *frame
	delim    byte
	ok, cols bool
}

func (r parallelReader) read(name string, static bool) ([]word, bool) {
	p, f, delim := r.p, r.f, r.delim
	if !r.ok || r.cols || !static {
		return nil, false // --colsep splits columns nobody modelled
	}
	text, home, known := p.fileData(f, name)
	if !known {
		return nil, false
	}
	items := strings.Split(text, string(delim))
	if len(items) > 0 && items[len(items)-1] == "" {
		items = items[:len(items)-1]
	}
	var out []word
	for _, it := range items {
		if len(out) >= maxDataRuns {
			break
		}
		if it == "" {
			continue
		}
		w := dataWord(it, home)
		w.raw = it
		w.text = shquote.Word(it)
		if home && (it == "~" || strings.HasPrefix(it, "~/")) {
			w.text = it // the shell expanded it before: a home path, unquoted
		}
		out = append(out, w)
	}
	return out, len(out) > 0
}

// readPlan is a `while read …` loop condition: the variables read, the
// record delimiter, whether backslashes are kept (-r) and the IFS in force.
type readPlan struct {
	names []string
	delim byte
	raw   bool
	ifs   string
}

// whileRead reads the condition of a while loop that is one plain `read`
// of standard input; false for anything else (read -u, -a, -n, a
// redirected read, more than one command).
func (p *walker) whileRead(f *frame, cond []*syntax.Stmt) (readPlan, bool) {
	rp := readPlan{delim: '\n', ifs: " \t\n"}
	if len(cond) != 1 || cond[0].Negated || len(cond[0].Redirs) > 0 || cond[0].Background {
		return rp, false
	}
	call, ok := cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return rp, false
	}
	for _, a := range call.Assigns {
		if a.Name == nil || a.Name.Value != "IFS" || a.Append || a.Array != nil || a.Index != nil {
			return rp, false
		}
		v := ""
		if a.Value != nil {
			w := p.staticText(f, a.Value)
			if w == nil {
				return rp, false
			}
			v = *w
		}
		rp.ifs = v
	}
	var args []string
	for _, w := range call.Args {
		t := p.staticText(f, w)
		if t == nil {
			return rp, false
		}
		args = append(args, *t)
	}
	if args[0] != "read" {
		return rp, false
	}
	i := 1
	for ; i < len(args); i++ {
		t := args[i]
		if t == "--" {
			i++
			break
		}
		if len(t) < 2 || t[0] != '-' {
			break
		}
		for j := 1; j < len(t); j++ {
			switch t[j] {
			case 'r':
				rp.raw = true
			case 's', 'e':
			case 'd', 'p', 't':
				val := t[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return rp, false
					}
					i++
					val = args[i]
				}
				if t[j] == 'd' {
					rp.delim = 0 // read -d '': NUL
					if val != "" {
						rp.delim = val[0]
					}
				}
				j = len(t)
			default:
				return rp, false // -u FD, -a, -n, -N, -i …: not modelled
			}
		}
	}
	for _, n := range args[i:] {
		if !isIdent(n) {
			return rp, false
		}
		rp.names = append(rp.names, n)
	}
	if len(rp.names) == 0 {
		rp.names = []string{"REPLY"}
		rp.ifs = "" // read with no name keeps the line whole in REPLY
	}
	return rp, true
}

// staticText is the static value of a word, or nil, without walking it
// (the structured walk resolves it as a segment already).
func (p *walker) staticText(f *frame, w *syntax.Word) *string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeLit(x.Value))
		case *syntax.SglQuoted:
			if x.Dollar {
				b.WriteString(ansiC(x.Value))
			} else {
				b.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return nil
				}
				b.WriteString(unescapeDq(l.Value))
			}
		default:
			return nil
		}
	}
	s := b.String()
	return &s
}

func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// readRecords splits data as successive `read` calls do: only records
// ended by the delimiter make the loop body run (read fails at end of
// input without one); without -r a backslash escapes the next character
// and a backslash-newline continues the record.
func readRecords(text string, rp readPlan) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\\' && !rp.raw && i+1 < len(text):
			i++
			if text[i] != '\n' {
				b.WriteByte(text[i])
			}
		case c == rp.delim:
			out = append(out, b.String())
			b.Reset()
			if len(out) >= maxDataRuns {
				return out
			}
		default:
			b.WriteByte(c)
		}
	}
	return out
}

// readFields assigns one record to n names as bash's read does with ifs:
// IFS whitespace at the ends is dropped, runs of it separate once, other
// IFS characters separate each; the last name takes the rest.
func readFields(rec string, n int, ifs string) []string {
	out := make([]string, n)
	if ifs == "" {
		out[0] = rec
		return out
	}
	isIFS := func(c byte) bool { return strings.IndexByte(ifs, c) >= 0 }
	isWS := func(c byte) bool { return (c == ' ' || c == '\t' || c == '\n') && isIFS(c) }
	i := 0
	for i < len(rec) && isWS(rec[i]) {
		i++
	}
	for k := 0; k < n-1 && i < len(rec); k++ {
		j := i
		for j < len(rec) && !isIFS(rec[j]) {
			j++
		}
		out[k] = rec[i:j]
		for j < len(rec) && isWS(rec[j]) {
			j++
		}
		if j < len(rec) && isIFS(rec[j]) && !isWS(rec[j]) {
			j++
			for j < len(rec) && isWS(rec[j]) {
				j++
			}
		}
		i = j
	}
	if i < len(rec) {
		rest := rec[i:]
		for len(rest) > 0 && isWS(rest[len(rest)-1]) {
			rest = rest[:len(rest)-1]
		}
		// One field and a delimiter ending the line: bash drops the
		// delimiter (IFS=: read a b <<< x:y: sets b to y, not y:).
		if j := strings.IndexFunc(rest, func(r rune) bool { return r < 128 && isIFS(byte(r)) }); j >= 0 {
			k := j
			for k < len(rest) && isWS(rest[k]) {
				k++
			}
			if k < len(rest) && isIFS(rest[k]) && !isWS(rest[k]) {
				k++
			}
			for k < len(rest) && isWS(rest[k]) {
				k++
			}
			if k == len(rest) {
				rest = rest[:j]
			}
		}
		out[n-1] = rest
	}
	return out
}

// whileReadData walks the body of `… | while read v; do …; done` once more
// for each record of static input, with the variables standing for the
// values read. The first walk, with the variables unknown, stays.
func (p *walker) whileReadData(f *frame, c *syntax.WhileClause, bodySize int, start cwdState) {
	rp, ok := p.whileRead(f, c.Cond)
	if !ok {
		return
	}
	text, home, ok := p.stdinData(f)
	if !ok {
		return
	}
	saved := map[string]*word{}
	for _, n := range rp.names {
		if v, had := p.loopVars[n]; had {
			saved[n] = &v
		} else {
			saved[n] = nil
		}
	}
	defer func() {
		for n, v := range saved {
			if v == nil {
				delete(p.loopVars, n)
			} else {
				put(&p.loopVars, n, *v)
			}
		}
	}()
	moved := p.env.state() != start // the body changes directory
	for i, rec := range readRecords(text, rp) {
		if !p.dataRoom(max(bodySize, 1)) {
			return
		}
		// The first record runs where the loop starts; later ones where the
		// previous run of the body left, unknown if it moved.
		p.env.setState(start)
		if i > 0 && moved {
			p.env.setCwd("")
		}
		for k, v := range readFields(rec, len(rp.names), rp.ifs) {
			put(&p.loopVars, rp.names[k], dataWord(v, home))
		}
		p.walkStmts(f, c.Do)
	}
}
