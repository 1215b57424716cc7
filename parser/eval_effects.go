package parser

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// What statements do to the known values (static evaluation, eval.go).

// specialBuiltins are POSIX's special builtins: in sh, assignments before
// them last.
var specialBuiltins = map[string]bool{
	":": true, ".": true, "break": true, "continue": true, "eval": true, "exec": true, "exit": true,
	"export": true, "readonly": true, "return": true, "set": true, "shift": true, "times": true,
	"trap": true, "unset": true,
}

// applyAssign records one assignment. prefix marks an assignment before a
// command (exported to it, undone after it).
func (p *walker) applyAssign(as Assign, prefix bool) {
	name := as.Name
	if name == "" || p.vars.off {
		return
	}
	if p.vars.isRef(name) {
		if prefix || as.array {
			p.vars.stop() // r=v cmd exports through the ref; r=(…) makes an array of what r names
			return
		}
		if name = p.vars.resolve(name); name == "" {
			p.vars.stop()
			return
		}
	}
	if !as.known || !validName(name) {
		p.vars.forget(name)
		return
	}
	old, had := p.vars.vars[name]
	var v expand.Variable
	if as.array {
		list := as.list
		if as.indexed {
			var ok bool
			if list, ok = denseList(as.list, as.keys); !ok || as.appends {
				p.vars.forget(name) // sparse, or appended at indexes
				return
			}
		}
		if as.appends {
			if !had || old.Set && old.Kind != expand.Indexed {
				p.vars.forget(name)
				return
			}
			list = append(append([]string(nil), old.List...), list...)
		}
		v = expand.Variable{Kind: expand.Indexed, List: append([]string{}, list...)}
	} else {
		val := as.Value
		if had && old.Set && old.Kind != expand.String {
			p.vars.forget(name) // x=v on an array sets its element 0
			return
		}
		if as.appends {
			if !had {
				p.vars.forget(name)
				return
			}
			val = old.Str + val
		}
		v = expand.Variable{Kind: expand.String, Str: val}
	}
	v.Exported = prefix
	p.vars.set(name, v)
}

// denseList orders the elements of an array assignment by their indexes
// (an element without one takes the index after the previous element's,
// a repeated index replaces) and returns them when they fill 0…n-1: a
// sparse array is not followed.
func denseList(vals, keys []string) ([]string, bool) {
	at := map[int]string{}
	next := 0
	for i, v := range vals {
		if k := keys[i]; k != "" {
			if !isDigits(k) || len(k) > 5 {
				return nil, false
			}
			next, _ = strconv.Atoi(k)
		}
		at[next] = v
		next++
	}
	list := make([]string, len(at))
	for i, v := range at {
		if i >= len(list) {
			return nil, false
		}
		list[i] = v
	}
	return list, true
}

// validName reports a shell variable name.
func validName(n string) bool {
	if n == "" || n[0] >= '0' && n[0] <= '9' {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// inShell reports whether seg runs in the shell being walked (a builtin
// or function call there), not in a process of its own.
func inShell(seg *Segment) bool {
	for _, w := range seg.Wrappers {
		if w.Name != "command" && w.Name != "builtin" {
			return false
		}
	}
	return true
}

// passesEnv reports wrappers that hand the environment on unchanged.
func passesEnv(seg *Segment) bool {
	for _, w := range seg.Wrappers {
		switch w.Name {
		case "command", "builtin", "exec", "nohup", "time", "nice", "timeout", "stdbuf", "setsid", "ionice", "chrt", "taskset":
		default:
			return false
		}
	}
	return true
}

// shellEffects works out what simple command seg does to the known values
// and returns it to apply once the command's own prefix assignments are
// undone.
func (p *walker) shellEffects(f *frame, seg *Segment) func() {
	none := func() {}
	if inShell(seg) && (seg.Program == "set" || seg.Program == "shift" || seg.PathKind == "dynamic") {
		p.vars.posTouched = true
	}
	if p.vars.off {
		return none
	}
	if seg.PathKind == "dynamic" {
		// An unknown command may be eval, read, declare, source or a function.
		p.vars.anyFunc = true
		return p.vars.clear
	}
	if !inShell(seg) {
		return none
	}
	if seg.PathKind == "bare" && (p.funcs[seg.Program] || p.vars.anyFunc) {
		if after, ok := p.afterCall(seg); ok {
			return after // a function the text defines, walked again (funccall.go)
		}
		return p.vars.clear // a function may set anything
	}
	switch seg.Program {
	case "source", ".":
		p.vars.anyFunc = true // it may define functions of any name
	case "eval":
		if seg.HasTag(TagDynamicCode) {
			p.vars.anyFunc = true
		}
	}
	argv, dyn := seg.Argv, seg.Dynamic
	switch seg.Program {
	case "wait":
		for _, a := range argv[1:] {
			if strings.HasPrefix(a, "-") && strings.Contains(a, "p") || strings.HasPrefix(a, "$") {
				return p.vars.clear // wait -p VAR
			}
		}
		return none
	case "mapfile", "readarray":
		return p.mapfileEffect(f, seg)
	case "eval", "source", ".", "fc", "compgen", "complete", "enable", "bind",
		"getopts", "declare", "typeset", "local", "export", "readonly", "let", "caller", "coproc":
		return p.vars.clear
	case "trap", "shopt":
		if seg.Program == "shopt" && len(argv) > 1 && !seg.HasTag(TagResolution) {
			return none // shopt -p, -q: queries
		}
		if seg.Program == "trap" && (len(argv) == 1 || argv[1] == "-p" || argv[1] == "-l") {
			return none
		}
		// A DEBUG or ERR trap runs code between commands; shopt changes
		// what patterns and splitting mean.
		return p.vars.stop
	case "set":
		return p.setEffect(argv, dyn)
	case "shift":
		return p.shiftEffect(argv, dyn)
	case "unset":
		return p.unsetEffect(argv, dyn)
	case "read":
		return p.readEffect(f, seg)
	case "printf":
		return p.printfEffect(f, argv, dyn)
	case "cd", "pushd", "popd", "chdir":
		oldPWD, known := p.vars.str("PWD")
		cwd := p.env.cwd
		return func() {
			if cwd == "" || hasNUL(cwd) {
				p.vars.forget("PWD")
			} else {
				p.vars.setPWD(cwd)
			}
			if known {
				p.vars.set("OLDPWD", expand.Variable{Kind: expand.String, Str: oldPWD})
			} else {
				p.vars.forget("OLDPWD")
			}
		}
	}
	return none
}

// setPWD records the directory cd moved to; unlike an assignment it keeps
// PWD in step with the real directory.
func (s *varState) setPWD(dir string) {
	dirty := s.pwdDirty
	s.set("PWD", expand.Variable{Kind: expand.String, Str: dir})
	s.pwdDirty = dirty
}

func (p *walker) setEffect(argv []string, dyn []bool) func() {
	eff := p.setArgsEffect(argv, dyn)
	nounset := 0 // set -u: an unset variable is an error, not empty
	for i := 1; i < len(argv); i++ {
		t := argv[i]
		switch {
		case t == "--" || len(t) < 2 || t[0] != '-' && t[0] != '+':
			i = len(argv)
		case (t == "-o" || t == "+o") && i+1 < len(argv):
			if argv[i+1] == "nounset" {
				nounset = map[bool]int{true: 1, false: -1}[t[0] == '-']
			}
			i++
		case strings.ContainsRune(t[1:], 'u'):
			nounset = map[bool]int{true: 1, false: -1}[t[0] == '-']
		}
	}
	return func() {
		eff()
		if nounset != 0 {
			p.vars.nounset = nounset > 0
		}
	}
}

func (p *walker) setArgsEffect(argv []string, dyn []bool) func() {
	var opts []word
	i := 1
	for ; i < len(argv); i++ {
		t := argv[i]
		if dyn[i] {
			return p.vars.stop
		}
		if t == "--" {
			i++
			break
		}
		if len(t) < 2 || t[0] != '-' && t[0] != '+' {
			break
		}
		opts = append(opts, word{text: t})
		if (t == "-o" || t == "+o") && i+1 < len(argv) {
			i++
			opts = append(opts, word{text: argv[i], dynamic: dyn[i]})
		}
	}
	if len(opts) > 0 && !safeSet(opts) {
		return p.vars.stop
	}
	if i >= len(argv) && (len(argv) < 2 || argv[len(argv)-1] != "--") {
		return func() {} // options only: the positional parameters stay
	}
	pos := append([]string{}, argv[i:]...)
	for _, d := range dyn[i:] {
		if d {
			return func() { p.vars.posKnown, p.vars.pos = false, nil }
		}
	}
	return func() {
		if !p.vars.off {
			p.vars.pos, p.vars.posKnown = pos, true
			p.vars.log = append(p.vars.log, "@")
		}
	}
}

func (p *walker) shiftEffect(argv []string, dyn []bool) func() {
	n := 1
	if len(argv) > 1 {
		if dyn[1] || !isDigits(argv[1]) || len(argv[1]) > 4 {
			return func() { p.vars.posKnown, p.vars.pos = false, nil }
		}
		n = int(atoiSafe(argv[1]))
	}
	return func() {
		if p.vars.posKnown && n <= len(p.vars.pos) {
			p.vars.pos = append([]string{}, p.vars.pos[n:]...)
			p.vars.log = append(p.vars.log, "@")
		}
	}
}

func atoiSafe(s string) int64 {
	var n int64
	for i := 0; i < len(s) && i < 9; i++ {
		n = n*10 + int64(s[i]-'0')
	}
	return n
}

func (p *walker) unsetEffect(argv []string, dyn []bool) func() {
	fn := false
	var names []string
	for i := 1; i < len(argv); i++ {
		if dyn[i] {
			return p.vars.clear
		}
		t := argv[i]
		switch {
		case t == "-f":
			fn = true
		case t == "-v" || t == "--":
		case t == "-n" || strings.HasPrefix(t, "-"):
			return p.vars.stop // namerefs, or options not followed
		default:
			names = append(names, t)
		}
	}
	if fn {
		return func() {}
	}
	return func() {
		for _, n := range names {
			if validName(n) {
				p.vars.unset(n)
			} else if base, _, ok := strings.Cut(n, "["); ok && validName(base) {
				p.vars.forget(base) // unset 'a[1]'
			} else {
				p.vars.clear()
			}
		}
	}
}

// readEffect follows read [-r] [-a NAME] [NAME…] <<< text when the text
// and IFS are known; otherwise the names it reads into become unknown.
func (p *walker) readEffect(f *frame, seg *Segment) func() {
	argv, dyn := seg.Argv, seg.Dynamic
	raw, bad, whole := false, false, false
	array := ""
	i := 1
	for ; i < len(argv); i++ {
		t := argv[i]
		if dyn[i] {
			return p.vars.clear
		}
		if t == "--" {
			i++
			break
		}
		if len(t) < 2 || t[0] != '-' {
			break
		}
	flags:
		for j := 1; j < len(t); j++ {
			switch c := t[j]; c {
			case 'r':
				raw = true
			case 's', 'e':
			case 'a', 'p', 'd', 'n', 'N', 't', 'u', 'i':
				val := t[j+1:]
				if val == "" && i+1 < len(argv) {
					i++
					if dyn[i] {
						return p.vars.clear
					}
					val = argv[i]
				}
				switch {
				case c == 'a':
					array = val
				case c == 'p':
				case c == 'd' && val == "":
					whole = true // -d '': up to a NUL, which a here-string has not: all of it
				default:
					bad = true
				}
				break flags
			default:
				bad = true
			}
		}
	}
	names := argv[i:]
	for _, d := range dyn[i:] {
		if d {
			return p.vars.clear
		}
	}
	targets := append([]string{}, names...)
	if array != "" {
		targets = append(targets, array)
	}
	for _, n := range targets {
		if !validName(n) {
			return p.vars.clear
		}
	}
	forget := func() {
		for _, n := range targets {
			p.vars.forget(n)
		}
	}
	if bad || f.shell == "sh" && array != "" || len(targets) == 0 || array != "" && len(names) > 0 {
		return forget
	}
	h := seg.hdoc
	if h == nil || h.op != "<<<" || h.dynamic || seg.Stdin != "herestring" {
		return forget
	}
	line, _, _ := strings.Cut(h.text, "\n")
	if whole {
		line = h.text
	}
	if !raw && strings.Contains(line, `\`) {
		return forget // backslash escapes and line continuations: left to bash
	}
	ifs := defaultIFS
	if v, ok := p.vars.vars["IFS"]; !ok {
		return forget
	} else if v.Set {
		ifs = v.Str
	}
	cfg := &expand.Config{Env: expand.ListEnviron("IFS=" + ifs)}
	nonWS := strings.Trim(ifs, " \t\n") != ""
	var vals []string
	if array != "" {
		vals = expand.ReadFields(cfg, line, -1, raw)
	} else {
		all := expand.ReadFields(cfg, line, -1, raw)
		if nonWS && (len(all) > len(names) || len(names) == 1 && len(all) > 1) {
			// The last name takes the rest of the line: bash keeps a
			// trailing delimiter there that expand drops.
			return forget
		}
		vals = expand.ReadFields(cfg, line, len(names), raw)
	}
	return func() {
		if array != "" {
			p.vars.set(array, expand.Variable{Kind: expand.Indexed, List: append([]string{}, vals...)})
			return
		}
		for k, n := range names {
			v := ""
			if k < len(vals) {
				v = vals[k]
			}
			p.vars.set(n, expand.Variable{Kind: expand.String, Str: v})
		}
	}
}

// mapfileEffect follows mapfile [-t] NAME (readarray) reading a known
// here-string or heredoc: one element per line, with its newline unless
// -t. Any other option (-d, -n, -O, -s, -u, -C, which runs a callback),
// the default MAPFILE or another input makes NAME unknown.
func (p *walker) mapfileEffect(f *frame, seg *Segment) func() {
	argv, dyn := seg.Argv, seg.Dynamic
	trim := false
	var names []string
	for i := 1; i < len(argv); i++ {
		if dyn[i] {
			return p.vars.clear
		}
		switch t := argv[i]; {
		case t == "-t":
			trim = true
		case strings.HasPrefix(t, "-"):
			return p.vars.clear // options not followed (-C runs code; -u, -O …)
		default:
			names = append(names, t)
		}
	}
	if len(names) != 1 || !validName(names[0]) {
		return p.vars.clear
	}
	name := names[0]
	h := seg.hdoc
	if f.shell == "sh" || h == nil || h.dynamic || (h.op != "<<<" && h.op != "<<" && h.op != "<<-") {
		return func() { p.vars.forget(name) }
	}
	var list []string
	for text := h.text; text != ""; {
		line, rest, nl := strings.Cut(text, "\n")
		if nl && !trim {
			line += "\n"
		}
		list = append(list, line)
		text = rest
	}
	return func() { p.vars.set(name, expand.Variable{Kind: expand.Indexed, List: list}) }
}

// printfEffect follows printf -v NAME FORMAT ARGS… with a format of %s
// and plain text.
func (p *walker) printfEffect(f *frame, argv []string, dyn []bool) func() {
	if len(argv) < 2 || argv[1] != "-v" {
		if len(argv) > 1 && strings.HasPrefix(argv[1], "-v") && argv[1] != "-v" {
			return p.vars.clear // -vNAME
		}
		return func() {}
	}
	if len(argv) < 3 || dyn[2] {
		return p.vars.clear
	}
	name := argv[2]
	forget := func() { p.vars.forget(name) }
	if !validName(name) {
		if base, _, ok := strings.Cut(name, "["); ok && validName(base) {
			return func() { p.vars.forget(base) }
		}
		return p.vars.clear
	}
	if f.shell == "sh" || len(argv) < 4 {
		return forget
	}
	for _, d := range dyn[3:] {
		if d {
			return forget
		}
	}
	format, args := argv[3], argv[4:]
	if !plainFormat(format) {
		return forget
	}
	var out strings.Builder
	for {
		s, n, err := expand.Format(&expand.Config{}, format, args)
		if err != nil {
			return forget
		}
		out.WriteString(s)
		if n == 0 || n >= len(args) {
			break
		}
		args = args[n:]
	}
	val := out.String()
	if strings.ContainsRune(val, 0) {
		return forget
	}
	return func() { p.vars.set(name, expand.Variable{Kind: expand.String, Str: val}) }
}

// plainFormat reports a printf format of text, %s, %% and the escapes \n
// and \t: what expand.Format and bash agree on.
func plainFormat(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '%':
			if i+1 >= len(s) || s[i+1] != 's' && s[i+1] != '%' {
				return false
			}
			i++
		case '\\':
			if i+1 >= len(s) || s[i+1] != 'n' && s[i+1] != 't' {
				return false
			}
			i++
		}
	}
	return true
}

// declEffects follows declare, typeset, local, export and readonly.
func (p *walker) declEffects(f *frame, c *syntax.DeclClause, seg *Segment) {
	if p.vars.off {
		return
	}
	variant := c.Variant.Value
	flags := map[string]bool{}
	for _, fl := range seg.Flags {
		flags[fl] = true
	}
	plus := false
	for i, a := range seg.Argv {
		if i > 0 && strings.HasPrefix(a, "+") {
			plus = true
		}
		if i > 0 && seg.Dynamic[i] {
			p.vars.clear() // declare "$n=…": any name
			return
		}
	}
	if variant == "nameref" || flags["n"] {
		p.refDecl(seg, flags, plus)
		return
	}
	if flags["f"] || flags["F"] || flags["p"] {
		return // functions, or printing
	}
	topLocal := variant == "local" && f.inFunc == "" && f.kind != KindFunction
	odd := plus || topLocal || f.shell == "sh" && variant != "export" && variant != "readonly" && variant != "local"
	typed := flags["i"] || flags["l"] || flags["u"] || flags["A"] || flags["c"] || flags["I"]
	ro := variant == "readonly" || flags["r"]
	export := variant == "export" || flags["x"]
	for _, as := range seg.Assigns {
		switch {
		case !validName(as.Name) || odd:
			if validName(as.Name) {
				p.vars.forget(as.Name)
			} else {
				p.vars.clear()
			}
		case flags["A"] && !flags["i"] && !flags["l"] && !flags["u"] && !flags["c"] && validName(as.Name) && p.vars.vars[as.Name].Kind != expand.Associative:
			p.vars.assocDecl(as)
		case typed:
			p.vars.poisonName(as.Name)
		case flags["a"] && !as.array:
			p.vars.forget(as.Name)
		case !as.naked:
			p.applyAssign(as, false)
			if export {
				p.vars.export(as.Name)
			}
		case export:
			p.vars.export(as.Name)
		}
		if ro {
			p.vars.readonly(as.Name)
		}
	}
}

// refDecl follows declare -n NAME=TARGET (local -n, typeset -n) with a
// plain target name: what is later done to NAME is done to TARGET, and
// $NAME reads TARGET. Any other form (no target, a subscript, +n, other
// attributes with it) stops evaluation, as every nameref did before.
func (p *walker) refDecl(seg *Segment, flags map[string]bool, plus bool) {
	for fl := range flags {
		if fl != "n" && fl != "g" {
			plus = true
		}
	}
	if plus || len(seg.Assigns) == 0 {
		p.vars.stop()
		return
	}
	for _, as := range seg.Assigns {
		if as.naked || !as.known || as.array || as.appends || !validName(as.Name) || !validName(as.Value) ||
			as.Value == as.Name || neverKnown[as.Value] {
			p.vars.stop()
			return
		}
		p.vars.setRef(as.Name, as.Value)
	}
}

// assocDecl follows declare -A NAME=([key]=value …) with plain keys and
// known values (bash 5.1's key value pairs without brackets are not
// followed): the name is known as an associative array. Whatever else
// happens to a name once declared -A (an assignment without declare -A,
// read, a loop) leaves it unknown: its values are keyed, and "${m[@]}"
// lists them in bash's hash order, which nothing here models.
func (s *varState) assocDecl(as Assign) {
	name := as.Name
	if s.assoc == nil {
		s.assoc = map[string]bool{}
	}
	s.assoc[name] = true
	v := expand.Variable{Kind: expand.Associative, Map: map[string]string{}}
	switch {
	case as.naked:
		if _, had := s.vars[name]; had {
			s.forget(name) // declare -A on a set variable: bash refuses or converts
			return
		}
	case !as.array || !as.known || as.appends:
		s.forget(name)
		return
	default:
		for i, k := range as.keys {
			if k == "" {
				s.forget(name)
				return
			}
			v.Map[k] = as.list[i]
		}
	}
	s.setAssoc(name, v)
}

// export marks a known variable exported (child shells inherit it).
func (s *varState) export(name string) {
	name = s.resolve(name)
	if v, ok := s.vars[name]; ok {
		v.Exported = true
		s.own()
		s.vars[name] = v
	}
}

// readonly fixes a variable: nothing changes it afterwards, and what is
// not known of it now never will be.
func (s *varState) readonly(name string) {
	if s.isRef(name) {
		s.stop() // readonly r: of the ref or of what it names
		return
	}
	if _, ok := s.vars[name]; !ok {
		s.poisonName(name)
		return
	}
	s.own()
	if s.ro == nil {
		s.ro = map[string]bool{}
	}
	s.ro[name] = true
}

// loopWrites lists the variables a loop may change (syntactically, before
// its body is walked): all is set when that cannot be told.
func (p *walker) loopWrites(n syntax.Node) (names []string, all bool) {
	syntax.Walk(n, func(node syntax.Node) bool {
		if all {
			return false
		}
		switch x := node.(type) {
		case *syntax.Assign:
			if x.Name == nil {
				all = true
			} else {
				names = append(names, x.Name.Value)
			}
		case *syntax.ParamExp:
			if x.Param != nil && x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
				names = append(names, x.Param.Value)
			}
		case *syntax.BinaryArithm:
			if isAssignOp(x.Op) {
				if w, ok := x.X.(*syntax.Word); ok && w.Lit() != "" {
					names = append(names, w.Lit())
				} else {
					all = true
				}
			}
		case *syntax.UnaryArithm:
			if x.Op == syntax.Inc || x.Op == syntax.Dec {
				if w, ok := x.X.(*syntax.Word); ok && w.Lit() != "" {
					names = append(names, w.Lit())
				} else {
					all = true
				}
			}
		case *syntax.ForClause:
			if wi, ok := x.Loop.(*syntax.WordIter); ok && wi.Name != nil {
				names = append(names, wi.Name.Value)
			}
		case *syntax.FuncDecl:
			all = true
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			name := x.Args[0].Lit()
			switch {
			case name == "":
				all = true // an unknown command
			case p.funcs[name]:
				all = true
			case name == "read":
				for _, a := range x.Args[1:] {
					l := a.Lit()
					if l == "" {
						all = true
					} else if !strings.HasPrefix(l, "-") {
						names = append(names, l)
					}
				}
			case name == "cd" || name == "pushd" || name == "popd":
				names = append(names, "PWD", "OLDPWD")
			case name == "shift":
				names = append(names, "@")
			case name == "printf":
				for _, a := range x.Args[1:] {
					if l := a.Lit(); l == "" || strings.HasPrefix(l, "-v") {
						all = true
					}
				}
			case name == "unset":
				for _, a := range x.Args[1:] {
					if l := a.Lit(); l == "" || strings.HasPrefix(l, "-") {
						all = true
					} else {
						names = append(names, l)
					}
				}
			case varBuiltins[name]:
				all = true
			}
		}
		return true
	})
	return names, all
}

// varBuiltins are builtins that can change variables in ways loopWrites
// does not list by name.
var varBuiltins = map[string]bool{
	"eval": true, "source": true, ".": true, "fc": true, "compgen": true, "complete": true, "enable": true,
	"bind": true, "wait": true, "mapfile": true, "readarray": true, "getopts": true, "set": true,
	"declare": true, "typeset": true, "local": true, "export": true, "readonly": true, "let": true,
	"command": true, "builtin": true, "trap": true, "shopt": true, "select": true, "exec": true,
}

// forgetNames forgets the names a region may change ("@" is the
// positional parameters).
func (p *walker) forgetNames(names []string, all bool) {
	if all {
		p.vars.clear()
		return
	}
	for _, n := range names {
		if n == "@" {
			p.vars.posKnown, p.vars.pos = false, nil
			continue
		}
		p.vars.forget(n)
	}
}

// hasLoopExit reports break or continue anywhere in loop n, or a command
// word that may be one; a word of the loop variable alone ($c, "${c}") is
// one of the items, none of which is break or continue.
func hasLoopExit(n syntax.Node, loopVar string, items []word) bool {
	exitItem := false
	for _, it := range items {
		exitItem = exitItem || it.text == "break" || it.text == "continue"
	}
	found := false
	syntax.Walk(n, func(node syntax.Node) bool {
		if c, ok := node.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			switch l := c.Args[0].Lit(); {
			case l == "break" || l == "continue":
				found = true
			case l == "":
				found = exitItem || loopVar == "" || paramName(c.Args[0]) != loopVar
			}
		}
		return !found
	})
	return found
}

// paramName is the name of a word that is one plain parameter expansion,
// quoted or not ($c, ${c}, "$c").
func paramName(w *syntax.Word) string {
	if len(w.Parts) != 1 {
		return ""
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	if pe, ok := part.(*syntax.ParamExp); ok && pe.Param != nil && isSimpleParam(pe) {
		return pe.Param.Value
	}
	return ""
}
