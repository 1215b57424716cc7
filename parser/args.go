package parser

import (
	"slices"
	"strings"

	"github.com/rivumi/rivumi/rules"
)

// parseArgs fills Subcommand, Flags, Options and Operands from the
// unwrapped words ws (ws[0] is the program). It returns the operand words.
func (p *walker) parseArgs(seg *Segment, ws []word) []word {
	prog := seg.Program
	spec := p.spec(prog)
	i := 1
	if prog == "git" {
		i = p.gitGlobals(seg, ws)
	}
	if e := p.entry(prog); e != nil && e.Subcommands {
		// Leading options of the program itself, then the subcommand. A
		// value-taking option's value is not the subcommand (bun -e CODE).
		for i < len(ws) && strings.HasPrefix(ws[i].text, "-") && !ws[i].dynamic && prog != "git" && !spec.Bare() {
			name, val, hasVal := strings.Cut(strings.TrimLeft(ws[i].text, "-"), "=")
			o, ok := spec.LookupLong(name)
			if !ok && len(name) == 1 && spec != nil {
				o, ok = spec.Short[name[0]]
			}
			if !ok {
				seg.Flags = append(seg.Flags, name)
				i++
				continue
			}
			if o.Arg == rules.ArgRequired && !hasVal && i+1 < len(ws) {
				i++
				val = seg.optionValue(o.Canon, ws[i])
			}
			seg.addOption(o.Canon, val)
			i++
		}
		if i < len(ws) {
			if ws[i].dynamic {
				seg.tag(TagDynamicArgs)
			} else {
				seg.Subcommand = ws[i].text
				if s := p.spec(prog + " " + ws[i].text); s != nil {
					spec = s
				} else if spec != nil && (spec.SingleDashLong || spec.NoOptions) {
					spec = spec.Style()
				} else {
					spec = nil
				}
			}
			i++
		}
	}
	var operands []word
	inOrder := spec != nil && spec.InOrder
	opts := spec.Bare() // no options: every word is an operand
	for ; i < len(ws); i++ {
		w := ws[i]
		t := w.text
		if w.dynamic {
			if !w.pipe {
				seg.tag(TagDynamicArgs)
			}
			operands = appendWord(operands, w, len(ws)-i)
			if inOrder {
				opts = true
			}
			continue
		}
		if !opts && len(t) > 1 && t[0] == '+' && shellEntry(p.entry(prog)) {
			// bash +e, +o pipefail: options switched off.
			if t == "+o" || t == "+O" {
				i++
			}
			continue
		}
		if opts || t == "-" || len(t) < 2 || t[0] != '-' {
			operands = appendWord(operands, w, len(ws)-i)
			if inOrder {
				opts = true
			}
			continue
		}
		if t == "--" {
			opts = true
			continue
		}
		if prog == "kill" || prog == "pkill" || prog == "killall" {
			if sig, ok := killSignal(t); ok && len(seg.Options["signal"]) == 0 && len(operands) == 0 {
				seg.addOption("signal", sig)
				continue
			}
			if isNumber(t[1:]) {
				operands = appendWord(operands, w, len(ws)-i) // kill -9 -1: a process group
				continue
			}
		}
		if strings.HasPrefix(t, "--") || (spec != nil && spec.SingleDashLong) {
			name, val, hasVal := strings.Cut(strings.TrimLeft(t, "-"), "=")
			if spec != nil && spec.FoldCase {
				name = strings.ToLower(name)
			}
			o, ok := spec.LookupLong(name)
			if !ok && len(name) == 1 && spec != nil {
				o, ok = spec.Short[name[0]] // -c among single-dash long options
			}
			if !ok {
				seg.addOption(name, val)
				continue
			}
			if o.Arg == rules.ArgRequired && !hasVal && i+1 < len(ws) {
				i++
				val = seg.optionValue(o.Canon, ws[i])
			}
			seg.addOption(o.Canon, val)
			continue
		}
		for j := 1; j < len(t); j++ {
			c := t[j]
			if c >= '0' && c <= '9' && (spec == nil || spec.Short[c].Canon == "") {
				seg.addOption("NUM", t[j:])
				break
			}
			var o rules.Option
			ok := false
			if spec != nil {
				o, ok = spec.Short[c]
			}
			if !ok {
				if rest := t[j+1:]; strings.ContainsRune(rest, '/') {
					// -m/home/u/.ssh/id_rsa: an unknown short option with a
					// path attached; no option letter is a slash.
					seg.addOption(string(c), rest)
					break
				}
				seg.addOption(string(c), "")
				continue
			}
			if o.Arg == rules.ArgRequired {
				val := t[j+1:]
				if val == "" && i+1 < len(ws) {
					i++
					val = seg.optionValue(o.Canon, ws[i])
				}
				seg.addOption(o.Canon, val)
				break
			}
			if o.Arg == rules.ArgOptional {
				seg.addOption(o.Canon, t[j+1:])
				break
			}
			seg.addOption(o.Canon, "")
		}
	}
	saved := p.env.state()
	switch seg.segCwdAbs {
	case "":
	case "?":
		p.env.setCwd("")
	default:
		p.env.setCwd(seg.segCwdAbs)
	}
	seg.Operands = slices.Grow(seg.Operands, len(operands))
	for _, w := range operands {
		seg.Operands = append(seg.Operands, p.operand(w))
	}
	p.env.setState(saved)
	if prog == "git" && seg.Subcommand == "push" {
		for _, o := range seg.Operands {
			if strings.HasPrefix(o.Text, "+") {
				seg.Flags = append(seg.Flags, "force")
			}
			if strings.HasPrefix(o.Text, ":") {
				seg.Flags = append(seg.Flags, "delete")
			}
		}
	}
	return operands
}

// optionValue takes w as the value of option canon (a separate word).
func (s *Segment) optionValue(canon string, w word) string {
	if w.dynamic {
		s.tag(TagDynamicArgs)
		s.optWord(canon, w)
	}
	return w.text
}

// optWord keeps the word a dynamic option value came from, so that code
// options (python -c "$(curl …)") can be judged by their substitutions.
func (s *Segment) optWord(name string, w word) {
	if s.dynOpts == nil {
		s.dynOpts = map[string]word{}
	}
	s.dynOpts[name+"\x00"+w.text] = w
}

// addOption records an option (and its value, when it has one).
func (s *Segment) addOption(name, val string) {
	s.Flags = append(s.Flags, name)
	if val != "" {
		s.Options[name] = append(s.Options[name], val)
	}
}

var signalNames = map[string]string{
	"9": "KILL", "KILL": "KILL", "SIGKILL": "KILL", "15": "TERM", "TERM": "TERM", "SIGTERM": "TERM",
	"1": "HUP", "HUP": "HUP", "SIGHUP": "HUP", "2": "INT", "INT": "INT", "SIGINT": "INT",
	"3": "QUIT", "QUIT": "QUIT", "SIGQUIT": "QUIT", "6": "ABRT", "ABRT": "ABRT", "SIGABRT": "ABRT",
	"19": "STOP", "STOP": "STOP", "SIGSTOP": "STOP",
}

// killSignal recognises -9, -KILL, -SIGKILL, -s KILL is handled by the spec.
func killSignal(t string) (string, bool) {
	if len(t) < 2 || t[0] != '-' || strings.HasPrefix(t, "--") {
		return "", false
	}
	name := strings.ToUpper(t[1:])
	if s, ok := signalNames[name]; ok {
		return s, true
	}
	if isNumber(name) || (len(name) > 1 && name == strings.ToUpper(name) && !strings.ContainsAny(name, "0123456789") && t[1:] == strings.ToUpper(t[1:]) && len(name) > 2) {
		return name, true
	}
	return "", false
}

// gitGlobals records git's global options (before the subcommand) and
// returns the index of the subcommand word.
func (p *walker) gitGlobals(seg *Segment, ws []word) int {
	spec := rules.ProgramSpec("git")
	i, opts, good := optScan(spec, ws, 1, false)
	if !good {
		seg.tag(TagDynamicArgs)
	}
	for name, vals := range opts {
		key := "global:" + name
		seg.Options[key] = append(seg.Options[key], vals...)
		if len(vals) == 0 || vals[0] == "" {
			seg.Options[key] = append(seg.Options[key], "")
		}
	}
	for _, d := range opts["C"] {
		p.segCwd(seg, d)
	}
	// git discovers its repository from where it runs: elsewhere, or in a
	// subdirectory (which a hostile repository can shape as a bare repository
	// with its own config: core.fsmonitor runs on git status), it may run
	// another repository's configuration. Only the workspace root is known.
	dirs := []string{p.env.cwd, p.env.alt} // the shell may be in either
	if seg.segCwdAbs != "" {
		dirs = []string{seg.segCwdAbs, ""}
		if dirs[0] == "?" {
			dirs[0] = ""
		}
	}
	for i, dir := range dirs {
		switch {
		case dir == "" && i == 0:
			seg.Options["git-dir-class"] = append(seg.Options["git-dir-class"], ClassUnknown)
		case dir != "" && dir != p.env.workspace:
			c := p.env.classAbs(dir)
			if c == ClassWorkspace {
				c = "workspace-subdir"
			}
			seg.Options["git-dir-class"] = append(seg.Options["git-dir-class"], c)
		}
	}
	for _, key := range []string{"git-dir", "work-tree"} {
		for _, d := range opts[key] {
			seg.Options["git-dir-class"] = append(seg.Options["git-dir-class"], p.classOf(d))
		}
	}
	return i
}

func (p *walker) classOf(path string) string {
	_, c := p.env.classify(path, false)
	return c
}

// segCwd moves the cwd for this segment only (env -C, git -C): it is
// recorded on the segment, the shell's cwd is unchanged.
func (p *walker) segCwd(seg *Segment, dir string) {
	abs := p.env.absolute(dir)
	if abs == "" || strings.Contains(dir, "$") || !p.env.sameCwd(dir) || cwdRelative(dir) && p.env.alt != "" {
		seg.Cwd, seg.CwdKnown, seg.segCwdAbs, seg.cwdAbs = "", false, "?", ""
		return
	}
	seg.Cwd, seg.CwdKnown = p.env.display(abs), true
	seg.cwdAbs = ""
	if !hasNUL(abs) {
		seg.cwdAbs = abs
	}
	seg.segCwdAbs = abs
}

// appendWord appends w to s, which it makes with room for n words when it is
// nil (the words left bound how many operands there can be).
func appendWord(s []word, w word, n int) []word {
	if s == nil {
		s = make([]word, 0, n)
	}
	return append(s, w)
}
