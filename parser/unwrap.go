package parser

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/rivumi/rivumi/internal/shquote"
	"github.com/rivumi/rivumi/programs"
	"github.com/rivumi/rivumi/rules"
)

// progName normalises a command word to a program name: the basename,
// lower-cased, without ".exe". changed reports whether that altered it.
func progName(text string) (name string, changed bool) {
	base := baseName(text)
	name = strings.ToLower(base)
	name = strings.TrimSuffix(name, ".exe")
	return name, name != base
}

var systemBinDirs = map[string]bool{
	"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/sbin": true, "/usr/sbin": true,
	"/usr/local/sbin": true, "/opt/homebrew/bin": true, "/usr/libexec/git-core": true,
}

func pathKind(w word) (string, string) {
	if w.dynamic || w.glob {
		return "dynamic", w.text
	}
	t := w.text
	if !strings.Contains(t, "/") {
		return "bare", t
	}
	if strings.HasPrefix(t, "/") {
		c := cleanPath(t)
		if systemBinDirs[c[:strings.LastIndexByte(c, '/')+boolInt(c == "/")]] {
			return "system", c
		}
		return "absolute", c
	}
	return "relative", t
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// optScan walks leading options of a wrapper with spec s, starting at
// ws[i]. It returns the index of the first operand (after "--"), the
// options seen (canonical name → values) and false when a dynamic word or
// an unknown option makes the rest unknowable.
func optScan(s *rules.Spec, ws []word, i int, stopAtAssign bool) (int, map[string][]string, bool) {
	opts := map[string][]string{}
	for i < len(ws) {
		w := ws[i]
		t := w.text
		if w.dynamic {
			// $SHELL or $BASH names a shell in every environment, never
			// an option: the wrapped program (sudo -E "$SHELL" -c CODE).
			// It stays dynamic, so the command is never allowed.
			return i, opts, shellVar(t)
		}
		if t == "--" {
			return i + 1, opts, true
		}
		if len(t) < 2 || t[0] != '-' {
			return i, opts, true
		}
		if stopAtAssign && strings.Contains(t, "=") && !strings.HasPrefix(t, "-") {
			return i, opts, true
		}
		if strings.HasPrefix(t, "--") {
			name, val, hasVal := strings.Cut(t[2:], "=")
			o, ok := s.LookupLong(name)
			if !ok {
				opts[name] = append(opts[name], val)
				i++
				continue
			}
			if o.Arg == rules.ArgRequired && !hasVal {
				if i+1 >= len(ws) {
					return len(ws), opts, true
				}
				i++
				val = ws[i].text
				if ws[i].dynamic {
					return i, opts, false
				}
			}
			opts[o.Canon] = append(opts[o.Canon], val)
			i++
			continue
		}
		// Short bundle.
		j := 1
		for j < len(t) {
			c := t[j]
			if c >= '0' && c <= '9' {
				// -10 (nice, head): a number.
				opts["NUM"] = append(opts["NUM"], t[j:])
				break
			}
			o, ok := s.Short[c]
			if !ok {
				opts[string(c)] = append(opts[string(c)], "")
				j++
				continue
			}
			if o.Arg == rules.ArgRequired {
				val := t[j+1:]
				if val == "" {
					if i+1 >= len(ws) {
						return len(ws), opts, true
					}
					i++
					if ws[i].dynamic {
						return i, opts, false
					}
					val = ws[i].text
				}
				opts[o.Canon] = append(opts[o.Canon], val)
				break
			}
			opts[o.Canon] = append(opts[o.Canon], "")
			j++
		}
		i++
	}
	return i, opts, true
}

func wrapperArgs(ws []word, from, to int) []string {
	out := []string{}
	for _, w := range ws[from:to] {
		out = append(out, w.text)
	}
	return out
}

// genericWrapper returns the short options that take a value of a program
// that runs its operand as a command (the registry's wrapper_options), and
// whether it is one.
func genericWrapper(name string) (string, bool) {
	p := programs.Lookup(name)
	if p == nil || p.WrapperOptions == nil {
		return "", false
	}
	return *p.WrapperOptions, true
}

// wrapperOptionFacts records what a generic wrapper's options do: the
// files its write_options name are written (strace -o FILE, ltrace -o
// FILE); a pipe_options value starting with | or ! is a shell command the
// output is piped to (strace -o '|CMD').
func (p *walker) wrapperOptionFacts(f *frame, seg *Segment, name string, opts map[string][]word) {
	e := programs.Lookup(name)
	if e == nil {
		return
	}
	piped := func(k string, w word) bool {
		return slices.Contains(e.PipeOptions, k) && (strings.HasPrefix(w.text, "|") || strings.HasPrefix(w.text, "!"))
	}
	for _, k := range e.PipeOptions {
		for _, w := range opts[k] {
			switch {
			case !piped(k, w):
			case w.dynamic:
				p.dynamicCodeIn(f, seg, "shell", w)
			default:
				p.script(f, w.text[1:], seg.Index, KindScript, false)
			}
		}
	}
	for _, k := range e.WriteOptions {
		for _, w := range opts[k] {
			if !piped(k, w) {
				seg.Writes = append(seg.Writes, p.operand(w))
			}
		}
	}
}

// wrapperOperands is the number of operands a wrapper takes before the
// command (the registry's wrapper_operands: setarch ARCH cmd, perf stat cmd).
func wrapperOperands(name string) int {
	if p := programs.Lookup(name); p != nil {
		return p.WrapperOperands
	}
	return 0
}

// unwrap peels wrappers off ws, recording them on seg, and returns the
// words of the command that finally runs. It may add child segments for
// wrappers that run shell code (watch, parallel, flock -c).
func (p *walker) unwrap(f *frame, seg *Segment, ws []word) []word {
	for iter := 0; iter < 64 && len(ws) > 1; iter++ {
		if ws[0].dynamic {
			return ws
		}
		name, _ := progName(ws[0].text)
		var next []word
		var ok bool
		switch name {
		case "sudo", "doas", "run0", "please":
			next, ok = p.unwrapSudo(f, seg, name, ws)
		case "env":
			next, ok = p.unwrapEnv(f, seg, ws)
		case "runuser":
			// runuser -u USER [--] CMD ARGS… runs CMD like sudo; the su-like
			// forms (runuser -l USER -c CMD) are code positions instead.
			i, opts, good := optScan(rules.ProgramSpec("runuser"), ws, 1, false)
			if _, c := opts["command"]; c || len(opts["user"]) == 0 || !good || i >= len(ws) {
				return ws
			}
			seg.Wrappers = append(seg.Wrappers, Wrapper{Name: name, Args: wrapperArgs(ws, 1, i)})
			next, ok = ws[i:], true
		case "command":
			i, opts, good := optScan(rules.ProgramSpec("type"), ws, 1, false)
			if _, v := opts["v"]; v || opts["V"] != nil || !good || i >= len(ws) {
				return ws
			}
			next, ok = ws[i:], true
			seg.Wrappers = append(seg.Wrappers, Wrapper{Name: name, Args: wrapperArgs(ws, 1, i)})
		case "builtin", "nohup", "exec", "time", "stdbuf", "setsid", "nice", "ionice", "timeout", "chroot", "xargs", "busybox", "flock",
			"toybox", "noglob", "nocorrect", "taskset", "chrt", "repeat":
			if name == "xargs" {
				ws = p.xargsArgFileSubst(seg, ws)
			}
			next, ok = p.unwrapSimple(f, seg, name, ws)
		case "watch", "parallel":
			p.codeWrapper(f, seg, name, ws)
			return ws
		default:
			if shorts, isWrap := genericWrapper(name); isWrap {
				i := 1
				lead := wrapperOperands(name)
				if name == "runcon" && len(ws) > 1 && strings.HasPrefix(ws[1].text, "-") {
					lead = 0 // runcon -t TYPE cmd: no context operand
				}
				if name == "setarch" || name == "perf" {
					i += lead // the architecture or perf's subcommand comes first
					lead = 0
				}
				if spec := rules.ProgramSpec(name); spec != nil && lead == 0 {
					// A wrapper with an option table (nsenter --target 1
					// --mount CMD): its options as it parses them.
					k, opts, good := optScan(spec, ws, 1, false)
					if !good {
						seg.tag(TagDynamicArgs)
						return ws
					}
					i = k
					vals := map[string][]word{}
					for k, vs := range opts {
						for _, v := range vs {
							vals[k] = append(vals[k], word{text: v, path: v})
						}
					}
					p.wrapperOptionFacts(f, seg, name, vals)
				}
				opts := map[string][]word{}
				for i < len(ws) && (strings.HasPrefix(ws[i].text, "-") || lead > 0) && !ws[i].dynamic {
					if !strings.HasPrefix(ws[i].text, "-") {
						lead--
						i++
						continue
					}
					t := ws[i].text
					i++
					if t == "--" {
						break
					}
					if len(t) >= 2 && t[1] != '-' && strings.IndexByte(shorts, t[1]) >= 0 {
						// -o FILE, or -oFILE attached.
						if len(t) > 2 {
							opts[t[1:2]] = append(opts[t[1:2]], word{text: t[2:], path: t[2:]})
						} else if i < len(ws) {
							opts[t[1:2]] = append(opts[t[1:2]], ws[i])
						}
					}
					if len(t) == 2 && strings.IndexByte(shorts, t[1]) >= 0 {
						i++
					}
				}
				p.wrapperOptionFacts(f, seg, name, opts)
				if i >= len(ws) {
					return ws
				}
				seg.Wrappers = append(seg.Wrappers, Wrapper{Name: name, Args: wrapperArgs(ws, 1, i)})
				next, ok = ws[i:], true
			}
		}
		if !ok || len(next) == 0 {
			return ws
		}
		ws = next
	}
	return ws
}

func (p *walker) unwrapSudo(f *frame, seg *Segment, name string, ws []word) ([]word, bool) {
	spec := rules.ProgramSpec(name)
	if spec == nil {
		spec = rules.ProgramSpec("doas")
	}
	i, opts, good := optScan(spec, ws, 1, true)
	if !good {
		seg.tag(TagDynamicArgs)
		return ws, false
	}
	for _, d := range opts["chdir"] {
		p.segCwd(seg, d)
	}
	for _, stop := range []string{"edit", "list", "validate", "remove-timestamp", "help", "version"} {
		if _, ok := opts[stop]; ok {
			return ws, false
		}
	}
	j := i
	for j < len(ws) && !ws[j].dynamic && isAssignWord(ws[j].text) {
		n, v, _ := strings.Cut(ws[j].text, "=")
		seg.Assigns = append(seg.Assigns, Assign{Name: n, Value: v})
		if codeEnvNames[n] != "" {
			p.codeEnv(f, seg, n, word{text: v, path: v})
		}
		j++
	}
	if j >= len(ws) {
		return ws, false
	}
	seg.Wrappers = append(seg.Wrappers, Wrapper{Name: name, Args: wrapperArgs(ws, 1, j)})
	_, shell := opts["shell"]
	_, login := opts["login"]
	if shell || login {
		// sudo -s CMD… runs $SHELL -c 'CMD…': the words are joined into a script.
		p.joinedScript(f, seg, ws[j:], KindScript)
	}
	return ws[j:], true
}

// isAssignWord reports whether t is NAME=VALUE as env and sudo read it:
// anything before the first '=' that is a plausible variable name (env
// accepts BASH_FUNC_x%%=…, which bash itself would not parse).
func isAssignWord(t string) bool {
	n, _, ok := strings.Cut(t, "=")
	if !ok || n == "" || n[0] == '-' || (n[0] >= '0' && n[0] <= '9') {
		return false
	}
	return !strings.ContainsAny(n, "/ \t\n")
}

func (p *walker) unwrapEnv(f *frame, seg *Segment, ws []word) ([]word, bool) {
	spec := rules.ProgramSpec("env")
	i, opts, good := optScan(spec, ws, 1, true)
	if !good {
		seg.tag(TagDynamicArgs)
		return ws, false
	}
	args := wrapperArgs(ws, 1, i)
	for _, d := range opts["chdir"] {
		seg.Options["env-chdir"] = append(seg.Options["env-chdir"], d)
		p.segCwd(seg, d)
	}
	rest := ws[i:]
	if ss, ok := opts["split-string"]; ok {
		// env -S 'a b c' args…: the string is split into words first.
		var split []word
		for _, s := range ss {
			sw, ok := p.splitWords(f, p.envSplitExpand(seg, s))
			if !ok {
				seg.tag(TagDynamicCode)
				seg.Code = append(seg.Code, Code{Lang: "env-S", Text: s, Dynamic: true})
				return ws, false
			}
			split = append(split, sw...)
		}
		rest = append(split, rest...)
	}
	j := 0
	for j < len(rest) && !rest[j].dynamic && isAssignWord(rest[j].text) {
		n, v, _ := strings.Cut(rest[j].text, "=")
		seg.Assigns = append(seg.Assigns, Assign{Name: n, Value: v})
		if codeEnvNames[n] != "" {
			p.codeEnv(f, seg, n, word{text: v, path: v})
		}
		args = append(args, rest[j].text)
		j++
	}
	if j < len(rest) && rest[j].dynamic && strings.Contains(rest[j].text, "=") {
		seg.tag(TagDynamicArgs)
	}
	if j >= len(rest) {
		return ws, false
	}
	seg.Wrappers = append(seg.Wrappers, Wrapper{Name: "env", Args: args})
	return rest[j:], true
}

// splitWords splits s into shell words, statically; false if it holds
// anything dynamic or more than a simple command.
func (p *walker) splitWords(f *frame, s string) ([]word, bool) {
	file, err := parseText(s, f.shell)
	if err != nil || len(file.Stmts) != 1 {
		return nil, false
	}
	call, ok := file.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(file.Stmts[0].Redirs) > 0 {
		return nil, false
	}
	sub := &frame{src: s, shell: f.shell, kind: f.kind, parent: f.parent, depth: f.depth}
	var out []word
	for _, w := range call.Args {
		r := p.resolveWord(sub, w, f.parent)
		if r.dynamic {
			return nil, false
		}
		out = append(out, r)
	}
	return out, true
}

func (p *walker) unwrapSimple(f *frame, seg *Segment, name string, ws []word) ([]word, bool) {
	specName := name
	if name == "builtin" || name == "busybox" || name == "toybox" || name == "noglob" || name == "nocorrect" {
		// No options: the next word is the command (zsh's precommand
		// modifiers noglob and nocorrect likewise).
		seg.Wrappers = append(seg.Wrappers, Wrapper{Name: name, Args: []string{}})
		return ws[1:], true
	}
	if name == "exec" {
		specName = "exec"
	}
	spec := rules.ProgramSpec(specName)
	if spec == nil {
		spec = execSpec
	}
	i, opts, good := optScan(spec, ws, 1, false)
	if !good {
		seg.tag(TagDynamicArgs)
		return ws, false
	}
	switch name {
	case "timeout", "chrt", "repeat":
		i++ // the duration, priority or count
	case "taskset":
		if _, pid := opts["p"]; pid {
			return ws, false
		}
		i++ // the CPU mask
	case "chroot":
		i++ // the new root
	case "ionice":
		if _, ok := opts["pid"]; ok {
			return ws, false
		}
	case "flock":
		if c, ok := opts["command"]; ok {
			for _, code := range c {
				p.script(f, code, seg.Index, KindScript, false)
			}
			return ws, false
		}
		i++ // the lock file
		k, opts2, good2 := optScan(spec, ws, min(i, len(ws)), false)
		if !good2 {
			return ws, false
		}
		if c, ok := opts2["command"]; ok {
			for _, code := range c {
				p.script(f, code, seg.Index, KindScript, false)
			}
			return ws, false
		}
		i = k
	case "xargs":
		if i >= len(ws) {
			return ws, false // no command: xargs runs echo
		}
		seg.tag(TagAppendedArgs)
		seg.xargsOpts = opts
		seg.xargs = append(seg.xargs, &xargsPlan{opts: wrapperArgs(ws, 1, i), cmd: append([]word(nil), ws[i:]...), argSubst: seg.argSubst})
		seg.argSubst = [2]int{}
		repl := ""
		if v, ok := opts["I"]; ok && len(v) > 0 {
			repl = v[len(v)-1]
		}
		if _, ok := opts["replace"]; ok {
			repl = "{}"
			if v := opts["replace"]; len(v) > 0 && v[len(v)-1] != "" {
				repl = v[len(v)-1]
			}
		}
		rest := append([]word(nil), ws[i:]...)
		if repl != "" {
			for k := range rest {
				if strings.Contains(rest[k].text, repl) {
					rest[k].dynamic = true
					rest[k].path = ""
				}
			}
		}
		seg.Wrappers = append(seg.Wrappers, Wrapper{Name: name, Args: wrapperArgs(ws, 1, i)})
		return rest, true
	}
	if i >= len(ws) {
		return ws, false
	}
	seg.Wrappers = append(seg.Wrappers, Wrapper{Name: name, Args: wrapperArgs(ws, 1, i)})
	return ws[i:], true
}

var execSpec = func() *rules.Spec {
	s := &rules.Spec{Short: map[byte]rules.Option{
		'a': {Canon: "a", Arg: rules.ArgRequired}, 'c': {Canon: "c"}, 'l': {Canon: "l"},
	}, Long: map[string]rules.Option{}}
	return s
}()

// codeWrapper handles wrappers whose command runs through a shell: watch
// (joins its arguments) and parallel (substitutes its argument lists).
func (p *walker) codeWrapper(f *frame, seg *Segment, name string, ws []word) {
	spec := rules.ProgramSpec(name)
	i, opts, good := optScan(spec, ws, 1, false)
	if !good {
		seg.tag(TagDynamicCode)
		return
	}
	if name == "watch" {
		p.joinedScript(f, seg, ws[i:], KindExec)
		return
	}
	// parallel CMD… ::: a b ::: c d
	var cmdWords []word
	var lists [][]word
	var fromFiles []bool // the list names files to read arguments from (::::)
	k := i
	for k < len(ws) && !isParallelSep(ws[k].text) {
		cmdWords = append(cmdWords, ws[k])
		k++
	}
	for k < len(ws) {
		if isParallelSep(ws[k].text) {
			lists = append(lists, nil)
			fromFiles = append(fromFiles, strings.HasPrefix(ws[k].text, "::::"))
			k++
			continue
		}
		lists[len(lists)-1] = append(lists[len(lists)-1], ws[k])
		k++
	}
	// Arguments read from files (::::, -a) and stdin, when static.
	data := p.parallelData(f, opts)
	for li, l := range lists {
		if !fromFiles[li] {
			continue
		}
		var read []word
		for _, name := range l {
			ws, ok := data.read(name.text, !name.dynamic)
			if !ok {
				read = nil
				break
			}
			read = append(read, ws...)
		}
		if read != nil && p.dataRoom(2*len(read)) {
			lists[li] = read // parallel rm :::: list: the file's lines
		}
	}
	_, pipeMode := opts["pipe"]
	if _, pp := opts["pipepart"]; pp {
		pipeMode = true
	}
	if len(lists) == 0 && !pipeMode {
		if names := opts["arg-file"]; len(names) > 0 {
			for _, name := range names {
				if ws, ok := data.read(name, true); ok && p.dataRoom(2*len(ws)) {
					lists = append(lists, ws)
				}
			}
			seg.tag(TagAppendedArgs) // as without the files' contents
		} else if ws, ok := data.read("-", true); ok && len(cmdWords) > 0 && p.dataRoom(2*len(ws)) {
			// echo / | parallel rm -rf: each line is an argument. The
			// reading without them (below) is graded as well.
			p.parallelRuns(f, seg, cmdWords, [][]word{ws}, opts)
		} else if ok {
			// echo 'rm -rf /' | parallel: each line is a command.
			for _, w := range ws {
				if p.dataRoom(1) {
					p.script(f, w.raw, seg.Index, KindExec, false)
				}
			}
		}
	}
	if pipeMode && len(cmdWords) > 0 {
		// parallel --pipe CMD: the input is CMD's standard input.
		if name, _ := progName(cmdWords[0].text); isShell(name) && len(cmdWords) == 1 {
			if text, _, ok := p.stdinData(f); ok && p.dataRoom(1) {
				p.script(f, text, seg.Index, KindStdin, false)
			}
		}
	}
	if len(cmdWords) == 0 {
		if len(lists) == 0 {
			seg.tag(TagDynamicCode) // commands come from stdin
			return
		}
		// parallel ::: 'cmd1' 'cmd2': each argument is a command line.
		for _, l := range lists {
			for _, a := range l {
				if a.dynamic {
					p.dynamicCodeIn(f, seg, "shell", a)
				} else {
					p.script(f, a.text, seg.Index, KindExec, false)
				}
			}
		}
		return
	}
	if len(lists) == 0 {
		// Arguments come from stdin.
		seg.tag(TagAppendedArgs)
		p.joinedScript(f, seg, cmdWords, KindExec)
		for _, c := range p.cmd.Segments[seg.Index+1:] {
			if c.Parent == seg.Index {
				c.tag(TagAppendedArgs)
			}
		}
		return
	}
	p.parallelRuns(f, seg, cmdWords, lists, opts)
}

// parallelRuns grades the commands parallel builds from cmdWords and the
// argument lists (every combination, up to a bound).
func (p *walker) parallelRuns(f *frame, seg *Segment, cmdWords []word, lists [][]word, opts map[string][]string) {
	_, quote := opts["quote"]
	combos := [][]word{{}}
	for _, l := range lists {
		var next [][]word
		for _, c := range combos {
			for _, a := range l {
				if len(next) >= 16 {
					break
				}
				next = append(next, append(append([]word(nil), c...), a))
			}
		}
		combos = next
	}
	for _, combo := range combos {
		var parts []string
		dyn := false
		used := false
		for _, w := range cmdWords {
			t, u := parallelSubst(w.text, combo)
			used = used || u
			dyn = dyn || w.dynamic
			if quote {
				t = shquote.Word(t)
			}
			parts = append(parts, t)
		}
		if !used {
			for _, a := range combo {
				t := a.text
				if quote {
					t = shquote.Word(t)
				}
				parts = append(parts, t)
				dyn = dyn || a.dynamic
			}
		}
		p.script(f, strings.Join(parts, " "), seg.Index, KindExec, dyn)
		if !quote {
			// Without -q parallel joins words unquoted, so 'rm -rf {}' splits
			// again; grade the quoted reading too, in case a version or
			// configuration quotes (it can only add segments).
			var q []string
			for _, w := range cmdWords {
				t, _ := parallelSubst(w.text, combo)
				q = append(q, shquote.Word(t))
			}
			if !used {
				for _, a := range combo {
					q = append(q, shquote.Word(a.text))
				}
			}
			if alt := strings.Join(q, " "); alt != strings.Join(parts, " ") {
				p.script(f, alt, seg.Index, KindExec, dyn)
			}
		}
	}
}

func isParallelSep(t string) bool {
	return t == ":::" || t == "::::" || t == ":::+" || t == "::::+"
}

// parallelSubst replaces GNU parallel's replacement strings in t.
func parallelSubst(t string, args []word) (string, bool) {
	used := false
	all := make([]string, len(args))
	for i, a := range args {
		all[i] = a.text
	}
	repl := func(old, new string) {
		if strings.Contains(t, old) {
			used = true
			t = strings.ReplaceAll(t, old, new)
		}
	}
	for i := len(args); i >= 1; i-- {
		repl("{"+itoa(i)+"}", args[i-1].text)
		repl("{"+itoa(i)+".}", strings.TrimSuffix(args[i-1].text, extOf(args[i-1].text)))
		repl("{"+itoa(i)+"/}", baseName(args[i-1].text))
	}
	joined := strings.Join(all, " ")
	repl("{}", joined)
	repl("{.}", strings.TrimSuffix(joined, extOf(joined)))
	repl("{/}", baseName(joined))
	repl("{//}", dirOf(joined))
	repl("{/.}", strings.TrimSuffix(baseName(joined), extOf(joined)))
	repl("{#}", "1")
	repl("{%}", "1")
	return t, used
}

func extOf(s string) string {
	b := baseName(s)
	if i := strings.LastIndexByte(b, '.'); i > 0 {
		return b[i:]
	}
	return ""
}

func dirOf(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[:i]
	}
	return "."
}

// joinedScript parses words joined with spaces as a shell script (watch,
// ssh remote commands).
func (p *walker) joinedScript(f *frame, seg *Segment, ws []word, kind string) {
	if len(ws) == 0 {
		return
	}
	parts := make([]string, len(ws))
	dyn := false
	for i, w := range ws {
		parts[i] = w.text
		dyn = dyn || w.dynamic
	}
	p.script(f, strings.Join(parts, " "), seg.Index, kind, dyn)
}
