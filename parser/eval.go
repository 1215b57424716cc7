package parser

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Static evaluation: the values a command itself makes known (x=rm, a=(r m),
// declare, printf -v, read <<< literal, for-loop items, cd and the context's
// HOME and PWD) are followed along the straight-line path where they were
// set, and words that use only known values are expanded through
// mvdan.cc/sh/v3/expand with an environment the walker controls: no command
// substitution, no directory read, no arithmetic. Anything else stays
// dynamic, exactly as before: a value is known only when nothing that runs
// in between could have changed it.
//
// A value stops being known after a branch that may or may not have set it
// (if, case, ||, a loop), outside a subshell that set it (pipeline stages,
// ( ), $( ), &), after a function call, source, eval or a command whose name
// is not known, and for good after anything that changes what assignments
// mean (readonly, declare -i/-l/-u/-n/-A, shopt, set beyond the safe
// options).

// varState is what is known about the shell's variables at the point being
// walked.
type varState struct {
	// off switches evaluation off for the rest of the command (a nameref,
	// shopt, zsh …).
	off bool
	// vars holds the known variables; a name that is absent is unknown. A
	// Variable with Set false is known to be unset.
	vars map[string]expand.Variable
	// pos holds $1 … when posKnown.
	pos      []string
	posKnown bool
	// poison names never become known again (typed or converting
	// variables: their assignments do not mean what they say; readonly
	// ones whose value was not known).
	poison map[string]bool
	// assoc names were declared associative (declare -A): only
	// [varState.setAssoc] makes them known again.
	assoc map[string]bool
	// ro names are readonly with a known value: nothing changes them.
	ro map[string]bool
	// shared is set when vars and ro are also held by a snapshot: they
	// are copied before the next change (snapshots are taken at every
	// pipeline stage and subshell, changes are rarer).
	shared bool
	// anyFunc is set once functions the text does not show may exist
	// (after source, eval of unknown code, an unknown command, or a
	// command_not_found_handle): any command may then be one.
	anyFunc bool
	// posTouched is set once the positional parameters changed in ways
	// the inline script's arguments no longer tell (set, shift, eval).
	posTouched bool
	// nounset is set after set -u: expanding an unset variable fails.
	nounset bool
	// pwdDirty is set once PWD was assigned by the command: a later
	// relative cd resolves from that value, not from the real directory.
	pwdDirty bool
	// tildeUses makes a leading ~ count as reading HOME (assignment
	// values, where the word is otherwise kept as written).
	tildeUses bool
	// needIFS is set by evaluable when the word splits or joins; budget
	// is what is left of maxExpansion for the word.
	needIFS bool
	budget  int
	// substOK lets evaluable compute command substitutions of pure
	// programs (eval_subst.go): set by the walker while it evaluates a
	// word where no function or changed PATH can stand for the program.
	// substOut holds the outputs computed for the word being evaluated.
	substOK  bool
	substOut map[*syntax.CmdSubst]string
	// log records the names changed, in order; "" records that everything
	// was forgotten. Regions (an if body, a || operand) are undone by name.
	log []string
}

// maxValue bounds a known value (bytes), maxExpansion what one word may
// expand to: beyond, the value or the word is unknown.
const (
	maxValue     = 16 << 10
	maxExpansion = 64 << 10
)

func size(v expand.Variable) int {
	n := len(v.Str)
	for _, e := range v.List {
		n += len(e) + 1
	}
	for k, e := range v.Map {
		n += len(k) + len(e) + 2
	}
	return n
}

// neverKnown are variables the shell itself sets or computes: their values
// cannot be known from the text.
var neverKnown = map[string]bool{
	"RANDOM": true, "SRANDOM": true, "SECONDS": true, "LINENO": true, "BASHPID": true, "EPOCHSECONDS": true,
	"EPOCHREALTIME": true, "BASH_COMMAND": true, "FUNCNAME": true, "BASH_SOURCE": true, "BASH_LINENO": true,
	"HISTCMD": true, "PIPESTATUS": true, "DIRSTACK": true, "GROUPS": true, "BASH_ARGV": true, "BASH_ARGC": true,
	"BASH_ARGV0": true, "BASH_REMATCH": true, "BASH_SUBSHELL": true, "SHLVL": true, "REPLY": true, "OPTARG": true,
	"OPTIND": true, "OPTERR": true, "MAPFILE": true, "UID": true, "EUID": true, "PPID": true, "SHELLOPTS": true,
	"BASHOPTS": true, "BASH_VERSINFO": true, "BASH_VERSION": true, "COMP_WORDS": true, "COMP_CWORD": true,
	"COMP_LINE": true, "COMP_POINT": true, "COLUMNS": true, "LINES": true, "HOSTNAME": true, "HOSTTYPE": true,
	"OSTYPE": true, "MACHTYPE": true, "_": true, "BASH_ALIASES": true, "BASH_CMDS": true, "BASH_EXECUTION_STRING": true,
	"BASH_XTRACEFD": true, "BASH_COMPAT": true, "POSIXLY_CORRECT": true, "COPROC": true, "HISTSIZE": true,
}

// defaultIFS is bash's and dash's IFS at start-up: neither takes IFS from
// the environment.
const defaultIFS = " \t\n"

// init sets s to the state at the start of a command and returns it: IFS
// is the default, HOME and PWD come from the grading context when it knows
// them. The variables are put in m, an empty map the state takes over (the
// walker's scratch: it outlives no Parse call).
func (s *varState) init(shell, home, cwd string, m map[string]expand.Variable) *varState {
	*s = varState{vars: m}
	if shell == "zsh" {
		// zsh does not split unquoted expansions and has its own operators.
		s.off = true
		return s
	}
	m["IFS"] = expand.Variable{Set: true, Kind: expand.String, Str: defaultIFS}
	if home != "" {
		m["HOME"] = expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: home}
	}
	if cwd != "" && !hasNUL(cwd) {
		m["PWD"] = expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: cwd}
	}
	return s
}

// snapshot is a copy of the known values, to restore after a subshell.
type snapshot struct {
	vars     map[string]expand.Variable
	ro       map[string]bool
	pos      []string
	posKnown bool
	pwdDirty bool
}

func (s *varState) snap() snapshot {
	s.shared = true
	return snapshot{vars: s.vars, ro: s.ro, pos: s.pos, posKnown: s.posKnown, pwdDirty: s.pwdDirty}
}

// own makes vars and ro the state's own before a change.
func (s *varState) own() {
	if !s.shared {
		return
	}
	c := make(map[string]expand.Variable, len(s.vars)+1)
	for k, v := range s.vars {
		c[k] = v
	}
	s.vars = c
	if s.ro != nil {
		ro := make(map[string]bool, len(s.ro))
		for k := range s.ro {
			ro[k] = true
		}
		s.ro = ro
	}
	s.shared = false
}

// poisonName makes name unknown for good.
func (s *varState) poisonName(name string) {
	if s.poison == nil {
		s.poison = map[string]bool{}
	}
	s.poison[name] = true
	s.forget(name)
}

// restore returns to a snapshot (leaving a subshell: nothing it did lasts).
// The poison set and off only grow.
func (s *varState) restore(sn snapshot) {
	s.vars, s.ro, s.pos, s.posKnown, s.pwdDirty = sn.vars, sn.ro, sn.pos, sn.posKnown, sn.pwdDirty
	s.shared = true // the snapshot's maps may be held by older snapshots too
	for n := range s.poison {
		if _, ok := s.vars[n]; ok {
			s.own()
			delete(s.vars, n)
		}
	}
}

func (s *varState) mark() int { return len(s.log) }

// forgetSince forgets every name changed since mark: after a region that
// may or may not have run.
func (s *varState) forgetSince(mark int) {
	if mark >= len(s.log) {
		return
	}
	seen := make(map[string]bool, len(s.log)-mark)
	var names []string
	for _, n := range s.log[mark:] {
		if n == "" {
			s.clear()
			return
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, n := range names {
		if n == "@" {
			if s.posKnown {
				s.posKnown, s.pos = false, nil
				s.log = append(s.log, "@")
			}
			continue
		}
		s.forget(n)
	}
}

// maxRefs bounds a chain of namerefs (bash stops at a loop too).
const maxRefs = 8

// resolve follows the known namerefs from name (declare -n r=x: what is
// done to r is done to x) and returns the name that holds the value.
func (s *varState) resolve(name string) string {
	for range maxRefs {
		v, ok := s.vars[name]
		if !ok || v.Kind != expand.NameRef {
			return name
		}
		name = v.Str
	}
	return ""
}

// isRef reports a name known to be a nameref.
func (s *varState) isRef(name string) bool {
	return s.vars[name].Kind == expand.NameRef
}

// hasRefs reports whether some name is known to be a nameref.
func (s *varState) hasRefs() bool {
	for _, v := range s.vars {
		if v.Kind == expand.NameRef {
			return true
		}
	}
	return false
}

// setRef records declare -n name=target.
func (s *varState) setRef(name, target string) {
	if s.off || s.ro[name] || s.poison[name] || s.assoc[name] || neverKnown[name] {
		s.stop()
		return
	}
	s.own()
	s.vars[name] = expand.Variable{Set: true, Kind: expand.NameRef, Str: target}
	s.log = append(s.log, name)
}

// set records a known value of name.
func (s *varState) set(name string, v expand.Variable) {
	if name = s.resolve(name); name == "" {
		s.stop()
		return
	}
	if s.ro[name] {
		return // the assignment fails; the value stays
	}
	if s.off || s.poison[name] || s.assoc[name] || neverKnown[name] || name == "" {
		s.forget(name)
		return
	}
	if size(v) > maxValue {
		s.forget(name) // x=$x$x doubling: not followed past a bound
		return
	}
	if old, ok := s.vars[name]; ok && old.Exported {
		v.Exported = true
	}
	v.Set = true
	s.own()
	s.vars[name] = v
	s.log = append(s.log, name)
	if name == "PWD" {
		s.pwdDirty = true
	}
}

// setAssoc records the known associative array of a name declared -A.
func (s *varState) setAssoc(name string, v expand.Variable) {
	if s.ro[name] {
		return
	}
	if s.off || s.poison[name] || neverKnown[name] || size(v) > maxValue || len(v.Map) > 1024 {
		s.forget(name)
		return
	}
	v.Set = true
	if old, ok := s.vars[name]; ok && old.Exported {
		v.Exported = true
	}
	s.own()
	s.vars[name] = v
	s.log = append(s.log, name)
}

// unset records that name is known to be unset.
func (s *varState) unset(name string) {
	if name = s.resolve(name); name == "" {
		s.stop()
		return
	}
	if s.ro[name] {
		return
	}
	if s.off || s.poison[name] || neverKnown[name] {
		s.forget(name)
		return
	}
	s.own()
	s.vars[name] = expand.Variable{}
	s.log = append(s.log, name)
	if name == "PWD" {
		s.pwdDirty = true
	}
}

// forget makes name unknown. A nameref made unknown could stand for
// anything later assignments to it reach: evaluation stops.
func (s *varState) forget(name string) {
	if s.ro[name] {
		return
	}
	if s.isRef(name) {
		s.stop()
		return
	}
	if _, ok := s.vars[name]; ok {
		s.own()
		delete(s.vars, name)
		s.log = append(s.log, name) // only a change is logged: regions undo changes
	}
	if name == "PWD" {
		s.pwdDirty = true
	}
}

// clear forgets everything (a function call, eval, source, an unknown
// command).
func (s *varState) clear() {
	if s.hasRefs() {
		// What ran may have removed a nameref (unset -n) or made one:
		// assignments through the names cannot be followed.
		s.off = true
		s.vars, s.ro = map[string]expand.Variable{}, nil
		s.posKnown, s.pos = false, nil
		s.posTouched = true
		s.log = append(s.log, "")
		return
	}
	var kept map[string]expand.Variable
	for n := range s.ro {
		if v, ok := s.vars[n]; ok {
			if kept == nil {
				kept = map[string]expand.Variable{}
			}
			kept[n] = v
		}
	}
	if kept == nil {
		kept = map[string]expand.Variable{}
	}
	s.vars, s.shared = kept, false
	if s.ro != nil {
		ro := make(map[string]bool, len(s.ro))
		for k := range s.ro {
			ro[k] = true
		}
		s.ro = ro
	}
	s.posKnown, s.pos = false, nil
	s.posTouched = true
	s.log = append(s.log, "")
}

// stop switches evaluation off for the rest of the command.
func (s *varState) stop() {
	s.clear()
	s.vars, s.ro = map[string]expand.Variable{}, nil
	s.off = true
}

// str returns the known string value of name.
func (s *varState) str(name string) (string, bool) {
	v, ok := s.vars[name]
	if !ok || !v.Set || v.Kind != expand.String {
		return "", false
	}
	return v.Str, true
}

// child is the state a child shell starts with (bash -c, a heredoc into
// sh): IFS is reset, exported known variables are inherited when env
// passes through unchanged, the rest is unknown.
func (s *varState) child(inherit bool) *varState {
	c := &varState{vars: map[string]expand.Variable{}, off: s.off, anyFunc: s.anyFunc}
	if c.off {
		return c
	}
	c.vars["IFS"] = expand.Variable{Set: true, Kind: expand.String, Str: defaultIFS}
	if inherit {
		for k, v := range s.vars {
			if v.Exported && v.Set && v.Kind == expand.String && k != "IFS" {
				c.vars[k] = v
			}
		}
	}
	return c
}

// env is the expand.Environ over a state. Words are expanded only after
// evaluable has checked that every name they read is known.
type evalEnv struct{ s *varState }

func (e evalEnv) Get(name string) expand.Variable {
	switch {
	case name == "#":
		return expand.Variable{Set: true, Kind: expand.String, Str: strconv.Itoa(len(e.s.pos))}
	case name == "@" || name == "*":
		return expand.Variable{Set: true, Kind: expand.Indexed, List: e.s.pos}
	case isDigits(name):
		i, _ := strconv.Atoi(name)
		if i >= 1 && i <= len(e.s.pos) {
			return expand.Variable{Set: true, Kind: expand.String, Str: e.s.pos[i-1]}
		}
		return expand.Variable{}
	}
	return e.s.vars[name]
}

func (e evalEnv) Each(fn func(string, expand.Variable) bool) {
	for k, v := range e.s.vars {
		if !fn(k, v) {
			return
		}
	}
}

// Set serves ${x:=value}: the assignment happens as bash would make it.
func (e evalEnv) Set(name string, v expand.Variable) error {
	e.s.set(name, v)
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// evalCtx is where a word part sits.
type evalCtx struct {
	dq      bool // inside double quotes
	pattern bool // a pattern (${x#pat}, ${x/pat/…}): quoted metacharacters would be misread
}

// evaluable reports whether the word can be expanded statically: every
// part is a literal, a quote or a parameter expansion of known values with
// an operator whose meaning mvdan's expand shares with bash. uses is set
// when some part reads a variable.
func (s *varState) evaluable(w *syntax.Word, shell string) (uses bool, ok bool) {
	if s.off || w == nil {
		return false, false
	}
	u := false
	s.needIFS, s.budget = false, maxExpansion
	clear(s.substOut)
	if !s.parts(w.Parts, evalCtx{}, shell, true, &u) {
		return u, false
	}
	ifs, ok := s.vars["IFS"]
	if !ok && s.needIFS {
		return u, false // splitting or joining with an unknown IFS
	}
	if s.needIFS && ifs.Set && strings.Trim(ifs.Str, " \t\n") != "" && !s.plainSplit(w, ifs.Str) {
		return u, false
	}
	return u, true
}

// plainSplit reports a word whose splitting by an IFS with other than
// white space expand does as bash does: bash makes an empty field of a
// leading delimiter or of two delimiters in a row, expand drops them; and
// two expansions side by side are split as one text by bash, apart by
// expand. So: at most one unquoted expansion, of a plain variable whose
// value has neither.
func (s *varState) plainSplit(w *syntax.Word, ifs string) bool {
	n := 0
	for _, part := range w.Parts {
		if _, ok := part.(*syntax.CmdSubst); ok {
			return false // splitAdd differs from bash as for a value
		}
		pe, ok := part.(*syntax.ParamExp)
		if !ok {
			continue
		}
		n++
		if n > 1 || pe.Exp != nil || pe.Repl != nil || pe.Slice != nil || pe.Length {
			return false
		}
		var vals []string
		switch name := pe.Param.Value; {
		case name == "@" || name == "*":
			vals = s.pos
		case isDigits(name):
			i := int(atoiSafe(name))
			if i >= 1 && i <= len(s.pos) {
				vals = []string{s.pos[i-1]}
			}
		default:
			v := s.vars[s.resolve(name)]
			vals = append([]string{v.Str}, v.List...)
		}
		for _, v := range vals {
			if v != "" && strings.ContainsRune(ifs, rune(v[0])) {
				return false
			}
			for i := 1; i < len(v); i++ {
				if strings.IndexByte(ifs, v[i]) >= 0 && strings.IndexByte(ifs, v[i-1]) >= 0 {
					return false
				}
			}
		}
	}
	return true
}

func (s *varState) parts(ps []syntax.WordPart, ctx evalCtx, shell string, first bool, uses *bool) bool {
	for i, part := range ps {
		switch x := part.(type) {
		case *syntax.Lit:
			v := x.Value
			if ctx.pattern && (strings.Contains(v, "[:") || strings.Contains(v, "[=") || strings.Contains(v, "[.")) {
				return false // character classes: left to bash
			}
			if !ctx.dq {
				if hasBrace(v) {
					return false // brace expansion is done before, on the syntax tree
				}
				if i == 0 && first && strings.HasPrefix(v, "~") {
					name, _, _ := strings.Cut(v[1:], "/")
					if name != "" || len(ps) > 1 && !strings.Contains(v, "/") {
						return false // ~user, ~+, ~-, ~"x"
					}
					if _, ok := s.str("HOME"); !ok {
						return false
					}
					if s.tildeUses {
						*uses = true
					}
				}
			}
		case *syntax.SglQuoted:
			if ctx.dq {
				return false
			}
			if x.Dollar && (strings.Contains(x.Value, `\c`) || shell == "sh") {
				return false // $'\c@' and friends: control characters expand differs
			}
			if ctx.pattern && strings.ContainsAny(x.Value, `*?[]\`) {
				return false
			}
		case *syntax.DblQuoted:
			if ctx.dq {
				return false
			}
			if x.Dollar && shell == "sh" {
				return false
			}
			nc := ctx
			nc.dq = true
			if ctx.pattern {
				for _, q := range x.Parts {
					l, isLit := q.(*syntax.Lit)
					if !isLit || strings.ContainsAny(l.Value, `*?[]\`) {
						return false
					}
				}
			}
			if !s.parts(x.Parts, nc, shell, false, uses) {
				return false
			}
		case *syntax.ParamExp:
			if ctx.pattern {
				return false // a value used as a pattern: left unknown
			}
			*uses = true
			if !s.paramExp(x, ctx, shell) {
				return false
			}
		case *syntax.CmdSubst:
			if ctx.pattern {
				return false
			}
			if _, ok := s.pureSubst(x, shell); !ok {
				return false
			}
			*uses = true
			if !ctx.dq {
				s.needIFS = true
			}
		default:
			// $( ), $(( )), <( ), extended globs: not static.
			return false
		}
	}
	return true
}

func (s *varState) paramExp(x *syntax.ParamExp, ctx evalCtx, shell string) bool {
	if x.Param == nil || x.Width || x.IsSet || x.Flags != nil || x.NestedParam != nil ||
		len(x.Modifiers) > 0 || x.Names != 0 {
		return false
	}
	if x.Excl {
		return s.indirect(x, ctx, shell)
	}
	name := x.Param.Value
	if !ctx.dq || name == "*" {
		s.needIFS = true
	}
	cost := 1
	switch {
	case name == "@" || name == "*" || isDigits(name) || name == "#":
		for _, p := range s.pos {
			cost += len(p) + 1
		}
	default:
		cost += size(s.vars[name])
	}
	if x.Repl != nil && x.Repl.With != nil {
		cost *= 1 + len(x.Repl.With.Lit()) // ${x//a/bbbb} multiplies
	}
	if s.budget -= cost; s.budget < 0 {
		return false
	}
	list := false // $@, $*, ${a[@]}, ${a[*]}
	switch {
	case name == "@" || name == "*":
		if !s.posKnown {
			return false
		}
		list = true
	case name == "#":
		if !s.posKnown || x.Index != nil || x.Length {
			return false
		}
	case isDigits(name):
		if name == "0" || !s.posKnown || x.Index != nil {
			return false
		}
	default:
		if t := s.resolve(name); t != name {
			if t == "" || x.Index != nil || !validName(t) || neverKnown[t] {
				return false // a ref to an element, or a loop
			}
			name = t // $r reads the variable r names
		}
		v, ok := s.vars[name]
		if !ok {
			return false
		}
		switch v.Kind {
		case expand.String, expand.Indexed:
		case expand.Associative:
			// One element by a plain key, or $m (the key 0); "${m[@]}"
			// is in bash's hash order.
			if x.Index != nil && elemKey(x.Index) == "" {
				return false
			}
			return s.element(x, name)
		case expand.Unknown:
			if v.Set {
				return false
			}
		default:
			return false // namerefs
		}
		if v.Indexes != nil {
			return false // sparse arrays
		}
		if !v.Set && s.nounset && (x.Exp == nil || x.Exp.Op > syntax.AssignUnsetOrNull) {
			return false // set -u: bash stops at it
		}
	}
	if x.Index != nil {
		if shell == "sh" {
			return false
		}
		w, isWord := x.Index.(*syntax.Word)
		if !isWord {
			return false
		}
		switch lit := w.Lit(); {
		case lit == "@" || lit == "*":
			list = true
			if lit == "*" {
				s.needIFS = true
			}
		case isDigits(lit) && len(lit) < 6:
		default:
			return false
		}
	}
	if list && (x.Exp != nil || x.Repl != nil || x.Slice != nil && !s.listSlice(x, name)) {
		return false
	}
	if x.Slice != nil || x.Length || x.Repl != nil || x.Exp != nil && x.Exp.Op >= syntax.RemSmallSuffix && x.Exp.Op <= syntax.LowerAll {
		// Characters are counted and converted by the locale: only ASCII
		// values mean the same in every one.
		if v := s.vars[name]; !ascii(v.Str) || !ascii(strings.Join(v.List, "")) {
			return false
		}
	}
	if x.Slice != nil {
		if shell == "sh" || !literalInt(x.Slice.Offset) || x.Slice.Length != nil && !literalInt(x.Slice.Length) {
			return false
		}
	}
	if x.Repl != nil {
		if shell == "sh" || x.Length {
			return false
		}
		orig := x.Repl.Orig
		if orig != nil {
			for _, part := range orig.Parts {
				l, isLit := part.(*syntax.Lit)
				if !isLit || strings.Contains(l.Value, "[:") || hasBrace(l.Value) {
					return false
				}
			}
			if l := orig.Lit(); strings.HasPrefix(l, "#") || strings.HasPrefix(l, "%") {
				return false // anchored: ${x/#a/b}, ${x/%a/b}
			}
		}
		if with := x.Repl.With; with != nil {
			for _, part := range with.Parts {
				l, isLit := part.(*syntax.Lit)
				if !isLit || strings.ContainsAny(l.Value, `&\{}~`) {
					return false // bash 5.2 puts the match in place of &
				}
			}
		}
	}
	if x.Exp != nil {
		if x.Length {
			return false
		}
		switch x.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull,
			syntax.ErrorUnset, syntax.ErrorUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull {
				if isDigits(name) || name == "@" || name == "*" || name == "#" || x.Index != nil || s.poison[name] || neverKnown[name] {
					return false
				}
			}
			if w := x.Exp.Word; w != nil {
				for _, part := range w.Parts {
					switch part.(type) {
					case *syntax.Lit, *syntax.ParamExp:
					default:
						// Quotes inside: bash keeps their text together when it
						// splits the result, expand does not.
						return false
					}
				}
				if !s.parts(w.Parts, ctx, shell, true, new(bool)) {
					return false
				}
			}
		case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
			if w := x.Exp.Word; w != nil {
				nc := ctx
				nc.pattern = true
				for _, part := range w.Parts {
					if _, isLit := part.(*syntax.Lit); !isLit {
						return false
					}
				}
				if !s.parts(w.Parts, nc, shell, false, new(bool)) {
					return false
				}
			}
		case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
			if shell == "sh" || x.Exp.Word != nil {
				return false
			}
		default:
			return false // ${x@P}, ${x@Q} … : expand's output differs or runs code
		}
	}
	return true
}

// element reports an associative array's element read as a string: the
// checks of a string's operators apply to its value.
func (s *varState) element(x *syntax.ParamExp, name string) bool {
	key := "0"
	if x.Index != nil {
		key = elemKey(x.Index)
	}
	v := s.vars[name]
	val, ok := v.Map[key]
	if !ok && s.nounset && (x.Exp == nil || x.Exp.Op > syntax.AssignUnsetOrNull) {
		return false
	}
	if x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
		return false // ${m[k]:=v} assigns an element
	}
	if x.Slice != nil || x.Length || x.Repl != nil || x.Exp != nil {
		return false // operators on an element: not followed
	}
	if s.budget -= 1 + len(val); s.budget < 0 {
		return false
	}
	return true
}

// indirect reports a plain ${!name} that expand reads as bash does: name
// holds the name of a known string variable (bash also takes a
// subscripted or special name there; expand does not, so those stay
// unknown), with no operator (${!n:-d} and friends apply to the target in
// bash and are left alone).
func (s *varState) indirect(x *syntax.ParamExp, ctx evalCtx, shell string) bool {
	if shell == "sh" || x.Index != nil || x.Slice != nil || x.Repl != nil || x.Exp != nil || x.Length {
		return false
	}
	ref, ok := s.str(x.Param.Value)
	if !ok || !validName(ref) || neverKnown[ref] || s.poison[ref] {
		return false
	}
	v, ok := s.vars[ref]
	switch {
	case !ok, v.Set && v.Kind != expand.String, v.Indexes != nil:
		return false // unknown, an array or a nameref
	case !v.Set && s.nounset:
		return false // set -u: bash stops at it
	}
	if !ctx.dq {
		s.needIFS = true
	}
	if s.budget -= 1 + size(v); s.budget < 0 {
		return false
	}
	return true
}

// listSlice reports a slice of a list that expand takes as bash does:
// "${a[@]:o:l}" of a dense array and "${@:o:l}" with o at least 1 ($0,
// which offset 0 includes, is not known), o and l plain non-negative
// numbers (a negative length is an error in bash).
func (s *varState) listSlice(x *syntax.ParamExp, name string) bool {
	off, ok := plainInt(x.Slice.Offset)
	if !ok || (name == "@" || name == "*") && off < 1 {
		return false
	}
	if x.Slice.Length != nil {
		if _, ok := plainInt(x.Slice.Length); !ok {
			return false
		}
	}
	return s.vars[name].Indexes == nil
}

// plainInt is a non-negative decimal literal's value.
func plainInt(e syntax.ArithmExpr) (int, bool) {
	w, ok := e.(*syntax.Word)
	if !ok {
		return 0, false
	}
	l := w.Lit()
	if !isDigits(l) || len(l) > 5 {
		return 0, false
	}
	n, _ := strconv.Atoi(l)
	return n, true
}

// literalInt reports a non-negative decimal literal, or one negated.
func literalInt(e syntax.ArithmExpr) bool {
	switch x := e.(type) {
	case *syntax.Word:
		l := x.Lit()
		return isDigits(l) && len(l) < 6
	case *syntax.UnaryArithm:
		if x.Op != syntax.Minus || x.Post {
			return false
		}
		return literalInt(x.X)
	}
	return false
}

// assignedByExp lists the names a word assigns through ${x:=value}.
func assignedByExp(w *syntax.Word) []string {
	var out []string
	syntax.Walk(w, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Exp != nil && pe.Param != nil &&
			(pe.Exp.Op == syntax.AssignUnset || pe.Exp.Op == syntax.AssignUnsetOrNull) {
			out = append(out, pe.Param.Value)
		}
		return true
	})
	return out
}

func (p *walker) evalConfig() *expand.Config {
	// A fresh Config per call: the zero Config shared by expand.Literal(nil,
	// …) is not safe for concurrent use. No ReadDir: globs are left as
	// they are. A command substitution is an error unless evaluable
	// computed its output (a pure program's, eval_subst.go).
	return p.vars.config()
}

// substAllowed reports whether a command substitution in a word can be a
// pure program's: no function the text defines or does not show, and no
// change to how names resolve (PATH, hash, enable) may stand for it.
func (p *walker) substAllowed() bool {
	return len(p.funcs) == 0 && !p.changed && !p.vars.anyFunc
}

// evalFields expands w as a command argument (split and, were it allowed,
// globbed) when it reads known variables only; ok is false otherwise, and
// the word is to be resolved as before.
func (p *walker) evalFields(f *frame, w *syntax.Word, parent int) ([]word, bool) {
	p.vars.substOK = p.substAllowed()
	uses, ok := p.vars.evaluable(w, f.shell)

	p.vars.substOK = false
	if !uses {
		return nil, false
	}
	if !ok {
		return nil, false
	}
	fields, err := expand.Fields(p.evalConfig(), w)
	if err != nil {
		for _, n := range assignedByExp(w) {
			p.vars.forget(n)
		}
		return nil, false
	}
	glob := unquotedGlobRisk(w)
	from, to := p.walkKnownSubsts(f, w, parent)
	out := make([]word, 0, len(fields))
	for _, s := range fields {
		g := glob && hasGlob(s, f.shell)
		out = append(out, word{text: s, path: s, glob: g, pathGlob: g, derived: true, childFrom: from, childTo: to})
	}
	return out, true
}

// evalLiteral expands w as an assignment value or a here-string is
// expanded: no splitting, no globbing. The word's children are the pure
// substitutions in it, walked as segments below parent.
func (p *walker) evalLiteral(f *frame, w *syntax.Word, parent int) (word, bool) {
	var home string
	if litTilde(w) {
		home, _ = p.vars.str("HOME")
	}
	w, colon, ok := colonTildes(w, home, false)
	if !ok {
		return word{}, false // ~ after a colon that cannot be known
	}
	p.vars.tildeUses = true
	p.vars.substOK = p.substAllowed()
	uses, ok := p.vars.evaluable(w, f.shell)
	p.vars.tildeUses, p.vars.substOK = false, false
	if !uses && !colon || !ok {
		return word{}, false
	}
	s, err := expand.Literal(p.evalConfig(), w)
	if err != nil {
		for _, n := range assignedByExp(w) {
			p.vars.forget(n)
		}
		return word{}, false
	}
	from, to := p.walkKnownSubsts(f, w, parent)
	return word{text: s, path: s, derived: true, childFrom: from, childTo: to}, true
}

// evalDocument expands an unquoted heredoc body that reads known values
// only, as bash does (no splitting, no globbing, quotes kept).
func (p *walker) evalDocument(f *frame, w *syntax.Word) (string, bool) {
	if w == nil || p.vars.off {
		return "", false
	}
	uses := false
	p.vars.budget = maxExpansion
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
		case *syntax.ParamExp:
			uses = true
			// The body is quoted like "…": the same checks.
			if !p.vars.parts([]syntax.WordPart{x}, evalCtx{dq: true}, f.shell, false, new(bool)) {
				return "", false
			}
		default:
			return "", false
		}
	}
	if !uses {
		return "", false
	}
	s, err := expand.Document(p.evalConfig(), w)
	if err != nil {
		return "", false
	}
	return s, true
}

// unquotedGlobRisk reports a word with an unquoted literal or expansion,
// whose result bash would glob.
func unquotedGlobRisk(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch part.(type) {
		case *syntax.Lit, *syntax.ParamExp:
			return true
		}
	}
	return false
}

// defaultReading grades the reading bash takes when the variables of
// ${V:-word} and ${V-word} that nobody knows are unset: rm -rf
// ${TMPDIR:-/tmp}/../* removes /* wherever TMPDIR is not set. The words
// are evaluated with those variables unset (the rest as known); when all
// of them can be, the result is a child segment of seg, graded on its own
// (seg itself stays dynamic: it asks). It only adds a reading.
func (p *walker) defaultReading(f *frame, seg *Segment, args []*syntax.Word) {
	if p.vars.off || len(args) == 0 {
		return
	}
	var names []string
	for _, w := range args {
		syntax.Walk(w, func(n syntax.Node) bool {
			pe, ok := n.(*syntax.ParamExp)
			if !ok || pe.Param == nil || pe.Exp == nil {
				return true
			}
			switch pe.Exp.Op {
			case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
				name := pe.Param.Value
				if _, known := p.vars.vars[name]; !known && validName(name) && !neverKnown[name] && !p.vars.poison[name] {
					names = append(names, name)
				}
			}
			return true
		})
	}
	if len(names) == 0 {
		return
	}
	sn := p.vars.snap()
	defer p.vars.restore(sn)
	p.vars.own()
	for _, n := range names {
		p.vars.vars[n] = expand.Variable{}
	}
	var ws []word
	for _, w := range args {
		if _, ok := p.vars.evaluable(w, f.shell); !ok {
			return
		}
		fields, err := expand.Fields(p.evalConfig(), w)
		if err != nil {
			return
		}
		g := unquotedGlobRisk(w)
		for _, s := range fields {
			gl := g && hasGlob(s, f.shell)
			n := len(p.cmd.Segments)
			ws = append(ws, word{text: s, path: s, glob: gl, pathGlob: gl, derived: true, childFrom: n, childTo: n})
		}
	}
	if len(ws) > 0 {
		p.execChild(f, seg, ws, "", "")
	}
}

// hasBrace reports a { or } in s: strings.ContainsAny(s, "{}"), which
// runs once per literal of every word evaluated, without its rune loop.
func hasBrace(s string) bool {
	return strings.IndexByte(s, '{') >= 0 || strings.IndexByte(s, '}') >= 0
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
