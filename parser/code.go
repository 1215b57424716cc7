package parser

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/rivumi/rivumi/codescan"
	"github.com/rivumi/rivumi/internal/applypatch"
	"github.com/rivumi/rivumi/internal/lazyre"
	"github.com/rivumi/rivumi/internal/shquote"
	"github.com/rivumi/rivumi/programs"
	"github.com/rivumi/rivumi/rules"
)

// What the parser knows of shells, interpreters and downloaders comes from
// the program registry (programs/programs.yaml).

// isShell reports a shell: its -c operand, stdin and script files are
// shell code.
func isShell(prog string) bool { return shellEntry(programs.Lookup(prog)) }

func shellEntry(p *programs.Program) bool { return p != nil && p.Shell }

// isFetcher reports a program that downloads from the network.
func isFetcher(prog string) bool { return fetcherEntry(programs.Lookup(prog)) }

func fetcherEntry(p *programs.Program) bool { return p != nil && p.Fetches }

// entry is programs.Lookup(name), or the team's entry for a name the
// registry does not know ([Programs]), remembered for the last name asked:
// the facts of one segment ask the registry about its program a dozen
// times. (Neither changes during a parse.)
func (p *walker) entry(name string) *programs.Program {
	if !p.lastEntryOK || p.lastEntryName != name {
		e := programs.Lookup(name)
		if e == nil {
			e = p.cfg.team.Lookup(name)
		}
		p.lastEntryName, p.lastEntry, p.lastEntryOK = name, e, true
	}
	return p.lastEntry
}

// spec is rules.ProgramSpec(name), or the team's option table of a program
// the registry does not know.
func (p *walker) spec(name string) *rules.Spec {
	if s := rules.ProgramSpec(name); s != nil {
		return s
	}
	return p.cfg.team.Spec(name)
}

// interp is an interpreter's language (as codescan names it) and the
// canonical names of the options whose value is code.
type interp struct {
	lang  string
	flags []string
}

// interpreterOf returns prog's language and code options, and whether prog
// is an interpreter (a versioned name such as python3.12 included).
func interpreterOf(prog string) (interp, bool) { return interpreterEntry(programs.Lookup(prog)) }

func interpreterEntry(p *programs.Program) (interp, bool) {
	if p == nil || p.Language == "" {
		return interp{}, false
	}
	return interp{p.Language, p.CodeOptions}, true
}

func interpreter(prog string) interp { in, _ := interpreterOf(prog); return in }

// decoders turn data into something else; piping their output to a shell
// runs hidden code.
func isDecoder(s *Segment) bool {
	switch s.Program {
	case "base64", "base32", "basenc":
		return hasFlag(s.Flags, "d") || hasFlag(s.Flags, "decode") || hasFlag(s.Flags, "D")
	case "xxd":
		return hasFlag(s.Flags, "r") || hasFlag(s.Flags, "revert")
	case "openssl":
		return hasFlag(s.Flags, "d") || s.Subcommand == "base64"
	case "uudecode", "gunzip", "zcat", "bunzip2", "xz", "unxz", "rev", "tr":
		return true
	}
	return false
}

// command finishes a simple command from its resolved words.
func (p *walker) command(f *frame, seg *Segment, words []word) {
	ws := p.unwrap(f, seg, words)
	w0 := ws[0]
	seg.PathKind, seg.Path = pathKind(w0)
	for _, w := range words {
		if w.derived {
			seg.tag(TagDerived)
		}
	}
	if seg.PathKind == "dynamic" {
		seg.tag(TagDynamicProgram)
		p.cmd.Shape.DynamicCommand = true
		p.dynamicTail(f, seg, ws)
	} else {
		name, changed := progName(w0.text)
		seg.Program = name
		if changed {
			seg.tag(TagNameNormalized)
		}
	}
	seg.Argv = slices.Grow(seg.Argv, len(ws))
	seg.Dynamic = slices.Grow(seg.Dynamic, len(ws))
	for _, w := range ws {
		seg.Argv = append(seg.Argv, w.text)
		seg.Dynamic = append(seg.Dynamic, w.dynamic || w.glob)
		seg.tilde = seg.tilde || w.tilde
	}
	for _, w := range ws[1:] {
		if w.dynamic && !w.pipe {
			seg.tag(TagDynamicArgs)
		}
	}
	if seg.Program == "parallel" && len(ws) == 1 {
		p.codeWrapper(f, seg, "parallel", ws) // commands come from stdin
	}
	prevProg := p.opProg
	p.opProg = seg.Program
	defer func() { p.opProg = prevProg }()
	operands := p.parseArgs(seg, ws)
	if seg.Program != "" && (rules.RunsAnything(seg.Program) || p.cfg.team.RunsAnything(seg.Program)) || runnerSubcommand(seg) {
		seg.tag(TagRunsAnything)
	}
	if seg.PathKind == "relative" || seg.PathKind == "absolute" {
		abs := p.env.absolute(seg.Path)
		p.writtenCode(f, seg, abs)    // ./x.sh after writing it
		p.aliasChild(f, seg, ws, abs) // cp /bin/sh /tmp/x && /tmp/x -c …
	}
	p.codePositions(f, seg, ws, operands)
	if seg.xargs != nil {
		p.xargsData(f, seg) // echo / | xargs rm -rf, xargs rm -rf <<< /
	}
	p.facts(f, seg, operands)
}

// dynamicTail grades what an unknown program is handed as a wrapper would
// run it ($SUDO_CMD rm -rf /, "$RUNNER" rm -rf ~): the words after its
// options as a command (also from the word after, in case the last option
// takes it as a value), and after -c (alone or in a bundle such as -ec)
// the code as shell ($SHELL -c 'rm -rf /'). Such children are never
// allowed (the parent asks for its unknown program); a floor shape among
// them denies.
func (p *walker) dynamicTail(f *frame, seg *Segment, ws []word) {
	if shellVar(ws[0].text) && !slices.ContainsFunc(ws[1:], func(w word) bool {
		return w.dynamic || !strings.HasPrefix(w.text, "-") || strings.HasPrefix(w.text, "--") || strings.Contains(w.text, "c")
	}) {
		// "$SHELL", $BASH with no script: the shell reads its code from
		// stdin (curl … | "$SHELL").
		p.stdinCode(f, seg, "shell")
		return
	}
	i := 1
	for ; i < len(ws) && i <= 4; i++ {
		t := ws[i].text
		if ws[i].dynamic || len(t) < 2 || t[0] != '-' || t == "--" {
			break
		}
		if t[1] != '-' && strings.ContainsRune(t[1:], 'c') {
			if i+1 < len(ws) {
				code := ws[i+1]
				if code.dynamic {
					p.dynamicCodeIn(f, seg, "shell", code)
				} else {
					p.script(f, code.text, seg.Index, KindScript, true)
				}
			}
			return
		}
	}
	if i < len(ws) && ws[i].text == "--" {
		i++
	}
	if i < len(ws) && !ws[i].dynamic {
		p.execChild(f, seg, ws[i:], "", "")
	}
	if i > 1 && i+1 < len(ws) && !ws[i+1].dynamic && ws[i-1].text != "--" {
		p.execChild(f, seg, ws[i+1:], "", "")
	}
}

// shellVar reports a command word that names a shell in every
// environment: $SHELL (the login shell) and $BASH (the running bash), bare,
// braced or double-quoted.
func shellVar(text string) bool {
	switch strings.Trim(text, `"`) {
	case "$SHELL", "${SHELL}", "$BASH", "${BASH}":
		return true
	}
	return false
}

// subtreeFetches reports whether the segments created while resolving w
// (its substitutions) include a network fetch or a decoder.
func (p *walker) subtreeFetches(w word) bool {
	for _, s := range p.cmd.Segments[w.childFrom:w.childTo] {
		if isFetcher(s.Program) || isDecoder(s) || s.HasTag(TagFetchedCode) {
			return true
		}
	}
	return false
}

// dynamicCode marks seg as running code that cannot be known, fetched when
// any of the words' substitutions fetch.
func (p *walker) dynamicCode(seg *Segment, lang string, ws ...word) {
	p.dynamicCodeIn(nil, seg, lang, ws...)
}

// dynamicCodeIn is dynamicCode that, for shell code, also parses the
// words' source as the shell would see it after expansion (rm -rf $HOME
// stays rm -rf $HOME), so floor shapes inside still show; the segments it
// yields are tagged dynamic-code and never allowed.
func (p *walker) dynamicCodeIn(f *frame, seg *Segment, lang string, ws ...word) {
	seg.tag(TagDynamicCode)
	var parts, raw []string
	for _, w := range ws {
		parts = append(parts, w.text)
		r := w.raw
		if r == "" {
			r = w.text
		}
		raw = append(raw, r)
		if p.subtreeFetches(w) {
			seg.tag(TagFetchedCode)
		}
	}
	seg.Code = append(seg.Code, Code{Lang: lang, Text: strings.Join(parts, " "), Dynamic: true})
	if f != nil && lang == "shell" {
		p.script(f, strings.Join(raw, " "), seg.Index, KindScript, true)
	}
}

func (p *walker) codePositions(f *frame, seg *Segment, ws []word, operands []word) {
	prog := seg.Program
	if e := p.entry(prog); e != nil {
		p.optionCode(f, seg, e)
	}
	switch {
	case shellEntry(p.entry(prog)):
		p.shellCode(f, seg, operands)
	case prog == "eval":
		args := ws[1:]
		if len(args) > 0 && args[0].text == "--" {
			args = args[1:]
		}
		if anyDynamic(args) {
			p.dynamicCodeIn(f, seg, "shell", args...)
			p.changeShell()
			return
		}
		p.sameShell = inShell(seg)
		p.joinedScript(f, seg, args, KindScript)
		p.sameShell = false
	case prog == "source" || prog == ".":
		if len(operands) > 0 {
			p.scriptFile(f, seg, operands[0])
		} else {
			seg.tag(TagDynamicCode)
		}
		p.changeShell()
	case prog == "trap":
		p.trapCode(f, seg, ws)
	case prog == "alias":
		for _, w := range ws[1:] {
			if name, val, ok := strings.Cut(w.text, "="); ok && name != "" {
				if w.dynamic {
					p.dynamicCode(seg, "shell", w)
				} else {
					p.script(f, val, seg.Index, KindScript, false)
				}
				seg.tag(TagResolution)
				p.changeShell()
			}
		}
	case prog == "su" || prog == "runuser" || prog == "sg":
		for _, c := range seg.Options["command"] {
			p.script(f, c, seg.Index, KindScript, false)
		}

		if prog == "sg" && len(operands) > 1 {
			p.joinedScript(f, seg, operands[1:], KindScript)
		}
	case prog == "ssh" || prog == "scp" || prog == "sftp" || prog == "autossh" || prog == "mosh":
		p.sshCode(f, seg, operands)
	case prog == "rsync":
		for _, c := range seg.Options["rsync-path"] {
			p.script(f, c, seg.Index, KindRemote, false)
		}
	case prog == "git":
		p.gitCode(f, seg, ws, operands)
	case prog == "tar" || prog == "bsdtar" || prog == "gtar":
		for _, c := range seg.Options["checkpoint-action"] {
			if v, ok := strings.CutPrefix(c, "exec="); ok {
				p.script(f, v, seg.Index, KindScript, false)
			}
		}
	case prog == "docker" || prog == "podman":
		p.containerRun(f, seg, operands)
	case prog == "make" || prog == "gmake":
		p.makeCode(f, seg, ws)
	case prog == "sort":
		for _, c := range seg.Options["compress-program"] {
			p.script(f, c, seg.Index, KindExec, false)
		}
	case prog == "find":
		p.findCode(f, seg, ws)
	case prog == "awk" || prog == "gawk" || prog == "mawk" || prog == "nawk" || prog == "busybox-awk":
		p.awkCode(f, seg, operands)
	case prog == "sed" || prog == "gsed":
		p.sedCode(f, seg, operands)
	case prog == "jq" || prog == "gojq" || prog == "jaq":
		p.jqCode(f, seg, ws)
	case prog == "vim" || prog == "vi" || prog == "nvim" || prog == "ex" || prog == "view" || prog == "gvim" || prog == "vimdiff":
		p.vimCode(f, seg, ws)
	case prog == "less" || prog == "more" || prog == "most":
		for _, w := range ws[1:] {
			if strings.HasPrefix(w.text, "+") || strings.HasPrefix(w.text, "--+") {
				// +cmd runs a command at start: +!cmd a shell, +v an editor,
				// +:e another file. Never allowed.
				seg.Code = append(seg.Code, Code{Lang: "less", Text: w.text})
				if strings.Contains(w.text, "!") || strings.Contains(w.text, "v") || strings.Contains(w.text, "|") {
					seg.tag(TagCodeSpawns)
				}
			}
		}
	case prog == "tmux":
		// tmux new-session|new-window|split-window|respawn-pane … [shell-command]
		if len(operands) > 1 {
			switch operands[0].text {
			case "new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawn-window", "run-shell", "run", "send-keys", "send":
				p.joinedScript(f, seg, operands[len(operands)-1:], KindScript)
			}
		}
	case prog == "screen":
		if len(operands) > 0 {
			p.execChild(f, seg, operands, "", "")
		}
	case prog == "crontab":
		switch installs, stdin := crontabInstalls(seg); {
		case !installs:
		case stdin && f.hdoc != nil && !f.hdoc.dynamic:
			p.crontabCode(f, seg, f.hdoc.text) // crontab <<< '@reboot CMD'
		case stdin && f.stdin == "pipe":
			// The table is code cron runs: what a fetch pipes in is
			// fetched code (settled with the pipeline, pipelineCode).
			seg.tag(TagStdinCode)
		case !stdin && len(operands) > 0 && !operands[len(operands)-1].dynamic:
			abs := p.env.absolute(operands[len(operands)-1].path)
			if p.downloaded(abs) {
				seg.tag(TagRunsDownloaded) // curl -o t URL && crontab t
			}
			if text, ok := p.written[abs]; ok && abs != "" {
				p.crontabCode(f, seg, text) // echo '* * * * * CMD' > t; crontab t
			}
		}
	case prog == "at" || prog == "batch":
		if len(seg.Options["f"]) > 0 {
			seg.tag(TagScriptFile)
		} else {
			p.stdinCode(f, seg, "shell") // at reads the job's commands from stdin
		}
	case prog == "apply_patch" || prog == "applypatch":
		p.applyPatch(f, seg)
	case prog == "expect" || prog == "gdb":
		// expect -c 'spawn CMD…' and gdb -ex 'shell CMD' / -ex '!CMD' run CMD;
		// gdb's shell, ! and pipe take the rest of the line.
		re := embeddedShell()
		if prog == "gdb" {
			re = gdbShell()
		}
		for i, w := range ws {
			if (w.text == "-c" || w.text == "-ex" || w.text == "--ex" || w.text == "--eval-command" || w.text == "-eval-command" ||
				w.text == "-iex" || w.text == "--iex" || w.text == "-init-eval-command" || w.text == "--init-eval-command") && i+1 < len(ws) {
				for _, m := range re.FindAllStringSubmatch(ws[i+1].text, 8) {
					p.script(f, m[1], seg.Index, KindEmbedded, ws[i+1].dynamic)
				}
			}
		}
		in := interpreter(prog)
		p.interpCode(f, seg, in.lang, in.flags, operands)
	case prog == "emulate":
		for i, w := range ws {
			if w.text == "-c" && i+1 < len(ws) {
				p.script(f, ws[i+1].text, seg.Index, KindScript, ws[i+1].dynamic)
			}
		}
	case prog == "script":
		for i, w := range ws {
			bundle := len(w.text) > 1 && w.text[0] == '-' && w.text[1] != '-' && strings.HasSuffix(w.text, "c")
			if (bundle || w.text == "--command") && i+1 < len(ws) { // -c, -qc
				p.script(f, ws[i+1].text, seg.Index, KindScript, ws[i+1].dynamic)
			}
		}
	case prog == "exec":
		// exec without a command: redirections for the rest of the shell.
		if len(ws) == 1 {
			seg.tag(TagResolution)
			p.changeShell()
		}
	case prog == "shopt" || prog == "enable" || prog == "unalias" || prog == "unset" && hasFlag(seg.Flags, "f"):
		if prog != "shopt" || len(ws) > 1 && !hasFlag(seg.Flags, "p") && !hasFlag(seg.Flags, "q") || hasFlag(seg.Flags, "s") || hasFlag(seg.Flags, "u") {
			seg.tag(TagResolution)
			p.changeShell()
		}
	case prog == "hash":
		if _, ok := seg.Options["p"]; ok || hasFlag(seg.Flags, "p") || hasFlag(seg.Flags, "d") || hasFlag(seg.Flags, "r") {
			seg.tag(TagResolution)
			p.changeShell()
		}
	case prog == "set":
		if !safeSet(ws[1:]) {
			seg.tag(TagResolution)
			p.changeShell()
		}
	case prog == "read" || prog == "mapfile" || prog == "readarray" || prog == "printf" || prog == "getopts" || prog == "unset":
		p.readTargets(f, seg, ws)
	case prog == "test" || prog == "[":
		for i, w := range ws {
			if w.text == "-v" && i+1 < len(ws) && (ws[i+1].dynamic || p.nameString(f, ws[i+1].text, seg.Index)) {
				seg.tag(TagArithDynamic)
			}
		}
	default:
		if in, ok := interpreterEntry(p.entry(prog)); ok {
			p.interpCode(f, seg, in.lang, in.flags, operands)
		}
	}
}

func anyDynamic(ws []word) bool {
	for _, w := range ws {
		if w.dynamic {
			return true
		}
	}
	return false
}

// safeSet reports whether a set command only toggles options that do not
// change how words resolve (errexit, nounset, xtrace, pipefail …).
func safeSet(args []word) bool {
	if len(args) == 0 {
		return true // lists variables
	}
	safeNames := map[string]bool{"errexit": true, "nounset": true, "xtrace": true, "pipefail": true,
		"verbose": true, "noclobber": true, "errtrace": true, "functrace": true}
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if args[i].dynamic || len(t) < 2 || (t[0] != '-' && t[0] != '+') {
			return false
		}
		for _, c := range t[1:] {
			switch {
			case c == 'o':
				if i+1 >= len(args) {
					return true // set -o: lists options
				}
				i++
				if !safeNames[args[i].text] {
					return false
				}
			case !strings.ContainsRune("euxvCET", c):
				return false
			}
		}
	}
	return true
}

// readTargets marks read/printf -v/mapfile into variables that change
// resolution.
func (p *walker) readTargets(f *frame, seg *Segment, ws []word) {
	for i, w := range ws[1:] {
		t := w.text
		if !w.dynamic && !strings.HasPrefix(t, "-") && p.nameString(f, t, seg.Index) {
			// read 'a[$(…)]', unset 'a[$(…)]': the subscript is evaluated.
			seg.tag(TagArithDynamic)
		}
		if w.dynamic {
			if seg.Program != "printf" {
				seg.tag(TagResolution)
				p.changeShell()
			}
			continue
		}
		if seg.Program == "printf" {
			if t == "-v" && i+2 < len(ws) && (isResolutionName(ws[i+2].text) || ws[i+2].dynamic) {
				seg.tag(TagResolution)
				p.changeShell()
			}
			continue
		}
		if isResolutionName(t) {
			seg.tag(TagResolution)
			p.changeShell()
		}
	}
}

// queryOnly reports a program asked only for its version or help.
func queryOnly(seg *Segment, operands []word) bool {
	if len(operands) > 0 {
		return false
	}
	for _, f := range seg.Flags {
		if f == "version" || f == "help" || f == "V" {
			return true
		}
	}
	return false
}

func (p *walker) shellCode(f *frame, seg *Segment, operands []word) {
	if queryOnly(seg, operands) {
		return
	}
	if hasFlag(seg.Flags, "c") {
		if len(operands) == 0 {
			return
		}
		// The script is code, not a file: it is no operand of the shell
		// (the words after it, $0 and $1 …, stay).
		if len(seg.Operands) == len(operands) {
			seg.Operands = seg.Operands[1:]
		}
		if operands[0].dynamic {
			p.dynamicCodeIn(f, seg, "shell", operands[0])
			return
		}
		// sh -c 'rm -rf "$1"' sh /: $0, $1 … are the words after the script.
		saved := p.positional
		p.positional = nil
		if !anyDynamic(operands[1:]) {
			for _, w := range operands[1:] {
				p.positional = append(p.positional, w.text)
			}
		}
		p.script(f, operands[0].text, seg.Index, KindScript, false)
		p.positional = saved
		return
	}
	if len(operands) > 0 && !hasFlag(seg.Flags, "s") && operands[0].text != "-" {
		p.scriptFile(f, seg, operands[0])
		return
	}
	p.stdinCode(f, seg, "shell")
}

// stdinCode handles a shell or interpreter that reads its code from
// standard input.
func (p *walker) stdinCode(f *frame, seg *Segment, lang string) {
	switch {
	case f.hdoc != nil:
		if f.hdoc.fetch {
			seg.tag(TagFetchedCode)
		}
		if lang == "shell" {
			p.script(f, f.hdoc.text, seg.Index, KindStdin, f.hdoc.dynamic)
		} else if lang == "remote" {
			p.script(f, f.hdoc.text, seg.Index, KindRemote, f.hdoc.dynamic)
		} else {
			p.opaque(f, seg, lang, f.hdoc.text, f.hdoc.dynamic)
		}
	case f.stdin == "pipe":
		seg.tag(TagStdinCode) // fetched-ness is settled when the pipeline is complete
	case f.stdin == "file":
		seg.tag(TagScriptFile)
		for _, r := range seg.Redirects {
			if r.Op == "<" && p.downloaded(r.Target.abs) {
				seg.tag(TagRunsDownloaded)
			}
			if r.Op == "<" && r.fetch {
				seg.tag(TagFetchedCode)
			}
			if r.Op == "<" && r.childTo > r.childFrom {
				p.substOutputCode(f, seg, r.childFrom, r.childTo) // sh < <(echo …)
			}
			if r.Op == "<" && r.Target.abs != "" {
				p.writtenStdin(f, seg, lang, r.Target.abs) // echo 'rm -rf /' > x.sh; sh < x.sh
			}
		}
	default:
		seg.tag(TagInteractive)
	}
}

// writtenStdin grades a file written earlier on the line that a shell, an
// interpreter or a remote shell (lang "remote") reads as its code on stdin.
func (p *walker) writtenStdin(f *frame, seg *Segment, lang, abs string) {
	text, ok := p.written[abs]
	if !ok {
		text, ok = p.written[p.origin(abs)]
	}
	switch {
	case !ok:
	case lang == "shell":
		p.script(f, text, seg.Index, KindStdin, false)
	case lang == "remote":
		p.script(f, text, seg.Index, KindRemote, false)
	default:
		p.opaque(f, seg, lang, text, false)
	}
}

// scriptFile handles a shell or interpreter running the file w.
func (p *walker) scriptFile(f *frame, seg *Segment, w word) {
	switch {
	case w.procSubst || w.cmdSubst:
		p.dynamicCode(seg, "shell", w)
		p.substOutputCode(f, seg, w.childFrom, w.childTo)
	case w.text == "/dev/stdin" || w.text == "-" || w.text == "/dev/fd/0" || w.text == "/proc/self/fd/0":
		p.stdinCode(f, seg, "shell")
	case w.dynamic:
		seg.tag(TagDynamicCode)
	default:
		seg.tag(TagScriptFile)
		abs := p.env.absolute(w.path)
		if p.downloaded(abs) {
			seg.tag(TagRunsDownloaded)
		}
		p.writtenCode(f, seg, abs)
	}
}

func (p *walker) trapCode(f *frame, seg *Segment, ws []word) {
	args := ws[1:]
	if len(args) > 0 && strings.HasPrefix(args[0].text, "-") && args[0].text != "-" {
		if args[0].text != "--" {
			return // -p, -l: listing
		}
		args = args[1:]
	}
	if len(args) < 2 {
		return
	}
	action := args[0]
	if action.text == "-" || action.text == "" {
		return
	}
	if action.dynamic {
		p.dynamicCodeIn(f, seg, "shell", action)
	} else {
		p.script(f, action.text, seg.Index, KindScript, false)
	}
	for _, s := range args[1:] {
		switch strings.TrimPrefix(strings.ToUpper(s.text), "SIG") {
		case "DEBUG", "RETURN", "ERR":
			seg.tag(TagResolution)
			p.changeShell()
		}
	}
}

var sshCodeOptions = []string{"proxycommand", "localcommand", "knownhostscommand", "remotecommand", "match"}

func (p *walker) sshCode(f *frame, seg *Segment, operands []word) {
	for _, o := range seg.Options["o"] {
		key, val, ok := strings.Cut(o, "=")
		if !ok {
			key, val, _ = strings.Cut(o, " ")
		}
		k := strings.ToLower(strings.TrimSpace(key))
		for _, c := range sshCodeOptions {
			if k == c {
				if k == "remotecommand" {
					p.script(f, strings.TrimSpace(val), seg.Index, KindRemote, false)
				} else {
					p.script(f, strings.TrimSpace(val), seg.Index, KindScript, false)
				}
			}
		}
	}
	for _, c := range seg.Options["S"] {
		if seg.Program == "scp" {
			p.script(f, c, seg.Index, KindExec, false)
		}
	}
	if seg.Program != "ssh" && seg.Program != "autossh" || len(operands) < 1 {
		return
	}
	if len(operands) == 1 {
		// ssh HOST with no command: the remote login shell reads its
		// commands from stdin (a pipe, a heredoc, a file).
		p.remoteStdin(f, seg)
		return
	}
	seg.tag(TagRemote)
	remote := operands[1:]
	if len(remote) > 0 && remote[0].text == "--" {
		remote = remote[1:]
	}
	p.joinedScript(f, seg, remote, KindRemote)
	if len(remote) > 0 && !remote[0].dynamic && isShell(baseName(remote[0].text)) && !slices.ContainsFunc(remote[1:], func(w word) bool {
		return w.dynamic || w.text == "-c" || strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") && strings.Contains(w.text, "c")
	}) {
		// ssh HOST bash -s, ssh HOST sh: the remote shell reads its code
		// from ssh's stdin.
		p.remoteStdin(f, seg)
	}
}

// remoteStdin grades what ssh's stdin carries as shell code run on the
// remote host, unless stdin is a terminal or ssh reads none of it (-n, -N,
// -f, -W).
func (p *walker) remoteStdin(f *frame, seg *Segment) {
	for _, fl := range []string{"n", "N", "f"} {
		if hasFlag(seg.Flags, fl) {
			return
		}
	}
	if len(seg.Options["W"]) > 0 || f.hdoc == nil && f.stdin != "pipe" && f.stdin != "file" {
		return
	}
	seg.tag(TagRemote)
	p.stdinCode(f, seg, "remote")
}

// gitSubCodeOptions are the options of git subcommands whose value git
// runs as a shell command.
var gitSubCodeOptions = map[string][]string{
	"rebase": {"exec"}, "fetch": {"upload-pack"}, "pull": {"upload-pack"}, "clone": {"upload-pack", "template"},
	"ls-remote": {"upload-pack"}, "push": {"receive-pack"}, "archive": {"exec"}, "difftool": {"extcmd"},
	"grep": {"open-files-in-pager", "O"}, "send-email": {"sendmail-cmd", "smtp-server"}, "mergetool": {"tool"},
}

// gitCodeKeys are configuration keys whose value git runs as a command.
var gitCodeKeys = []string{
	"core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.hookspath", "core.askpass",
	"core.gitproxy", "sequence.editor", "diff.external", "gpg.program", "gpg.ssh.program",
	"credential.helper", "uploadpack.packobjectshook", "pager.", "alias.", "filter.", "diff.",
	"merge.", "mergetool.", "difftool.", "remote.", "protocol.", "url.", "include.", "includeif.",
	"core.worktree", "core.attributesfile", "core.excludesfile", "http.", "instaweb.", "web.browser",
	"receive.", "transfer.", "ssh.", "submodule.", "init.templatedir", "safe.directory", "color.pager",
}

func isGitCodeKey(k string) bool {
	k = strings.ToLower(k)
	for _, c := range gitCodeKeys {
		if k == c || strings.HasSuffix(c, ".") && strings.HasPrefix(k, c) {
			return true
		}
	}
	return false
}

func (p *walker) gitCode(f *frame, seg *Segment, ws, operands []word) {
	for _, kv := range seg.Options["global:c"] {
		p.gitConfigValue(f, seg, kv, true)
	}
	for _, kv := range seg.Options["global:config-env"] {
		seg.Code = append(seg.Code, Code{Lang: "git-config", Text: kv, Dynamic: true})
		seg.tag(TagDynamicCode)
	}
	switch seg.Subcommand {
	case "show", "cat-file", "diff", "grep", "archive", "blame", "log":
		// REV:path names a file as committed: reading it reads that path.
		for _, o := range operands {
			if _, path, ok := strings.Cut(o.text, ":"); ok && path != "" && !o.dynamic && !strings.Contains(o.text, "://") {
				seg.Reads = append(seg.Reads, p.operand(word{text: path, path: path}))
			}
		}
	}
	for _, k := range gitSubCodeOptions[seg.Subcommand] {
		for _, c := range seg.Options[k] {
			p.script(f, c, seg.Index, KindScript, false)
		}
	}
	if seg.Subcommand == "clone" {
		for _, kv := range seg.Options["config"] {
			p.gitConfigValue(f, seg, kv, false)
		}
	}
	switch seg.Subcommand {
	case "rebase":
	case "config":
		// git config [--global] key value: writing a code-carrying key.
		if len(operands) >= 2 && isGitCodeKey(operands[0].text) {
			p.gitConfigValue(f, seg, operands[0].text+"="+operands[1].text, false)
		}
	case "submodule":
		if len(operands) > 1 && operands[0].text == "foreach" {
			p.joinedScript(f, seg, operands[1:], KindScript)
		}
	case "bisect":
		// git bisect run CMD ARGS…: everything after run is the argv,
		// options included.
		for i, w := range ws {
			if w.text == "run" && i > 0 && ws[i-1].text == "bisect" && i+1 < len(ws) {
				p.execChild(f, seg, ws[i+1:], "", "")
				break
			}
		}
	case "filter-branch":
		for k, vals := range seg.Options {
			if strings.HasSuffix(k, "-filter") {
				for _, c := range vals {
					p.script(f, c, seg.Index, KindScript, false)
				}
			}
		}
	}
}

var gitBool = map[string]bool{"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true, "1": true, "0": true}

// harmlessPager matches the pagers a git -c core.pager=… (or pager.<cmd>=…)
// may name for one run: cat, or less/more with options that take no value
// (-k names a lesskey file, which can set LESSOPEN; +cmd runs commands).
// git pages only its own output, on a terminal, so no file name reaches
// less's preprocessor.
var harmlessPager = lazyre.New(`^(cat|(less|more)( +-[FRrSXKNniIMmQqsLeEgGJwWcduaB]+)*)$`)

// gitConfigValue records a configuration key=value that carries code: as
// git-config code (denied), with its value parsed as the shell command git
// would run. A harmless pager given for this one run (live: git -c
// core.pager=cat, -c pager.log=less -R, or pager.<cmd> as a boolean) is
// not code; a pager written into configuration (git config, clone
// --config) stays code whatever it names.
func (p *walker) gitConfigValue(f *frame, seg *Segment, kv string, live bool) {
	k, v, _ := strings.Cut(kv, "=")
	if !isGitCodeKey(k) {
		return
	}
	lk := strings.ToLower(k)
	if live && (lk == "core.pager" || strings.HasPrefix(lk, "pager.")) {
		if harmlessPager().MatchString(v) || strings.HasPrefix(lk, "pager.") && gitBool[strings.ToLower(v)] {
			return
		}
	}
	if live && gitDisables(lk, v, seg) {
		return
	}
	seg.Code = append(seg.Code, Code{Lang: "git-config", Text: kv})
	switch {
	case strings.HasPrefix(lk, "alias."):
		if strings.HasPrefix(v, "!") {
			p.script(f, v[1:], seg.Index, KindScript, false)
		}
	case lk == "core.pager" || lk == "core.editor" || lk == "core.sshcommand" || lk == "core.fsmonitor" ||
		lk == "sequence.editor" || lk == "diff.external" || strings.HasPrefix(lk, "pager.") ||
		strings.HasPrefix(lk, "filter.") || strings.HasSuffix(lk, ".textconv") || strings.HasSuffix(lk, ".command") ||
		strings.HasSuffix(lk, ".cmd") || lk == "credential.helper" && strings.HasPrefix(v, "!"):
		if v != "" && v != "true" && v != "false" {
			p.script(f, strings.TrimPrefix(v, "!"), seg.Index, KindScript, false)
		}
	}
}

// gitDisables reports whether key=value, given for one run (git -c), turns
// off the code its key could run, as the hardening of a careful caller
// (rivumi's own workspace git) writes it: an empty command
// (diff.external=, credential.helper= — which also clears the helper list
// —, core.gitProxy=, core.editor= is not: git falls back to vi), hooks or
// attributes from /dev/null (not a directory, an empty file), fsmonitor
// off, ssh as /bin/false, a protocol refused (never), or the file protocol
// allowed where no submodule is fetched (a clone of a local path reads that
// path; allowed for submodules it is CVE-2022-39253's door, so a submodule,
// fetch, pull or --recurse-submodules keeps it code). Every other value of a
// code key stays code.
func gitDisables(lk, v string, seg *Segment) bool {
	switch lk {
	case "diff.external", "credential.helper", "core.gitproxy":
		return v == ""
	case "core.hookspath", "core.attributesfile":
		return v == "/dev/null"
	case "core.fsmonitor":
		b := strings.ToLower(v)
		return b == "false" || b == "no" || b == "off" || b == "0"
	case "core.sshcommand":
		return v == "/bin/false" || v == "false"
	case "protocol.allow":
		return v == "never"
	case "protocol.file.allow":
		if v == "never" {
			return true
		}
		switch seg.Subcommand {
		case "submodule", "fetch", "pull", "push", "remote", "ls-remote", "archive", "":
			return false
		}
		return (v == "always" || v == "user") && !slices.Contains(seg.Flags, "recurse-submodules") && !slices.Contains(seg.Flags, "recursive")
	}
	return strings.HasPrefix(lk, "protocol.") && strings.HasSuffix(lk, ".allow") && v == "never"
}

// findArity lists find predicates that take one argument.
var findArity = map[string]int{
	"name": 1, "iname": 1, "path": 1, "ipath": 1, "wholename": 1, "iwholename": 1, "regex": 1,
	"iregex": 1, "type": 1, "xtype": 1, "size": 1, "mtime": 1, "mmin": 1, "atime": 1, "amin": 1,
	"ctime": 1, "cmin": 1, "newer": 1, "anewer": 1, "cnewer": 1, "user": 1, "group": 1, "uid": 1,
	"gid": 1, "perm": 1, "maxdepth": 1, "mindepth": 1, "links": 1, "inum": 1, "samefile": 1,
	"lname": 1, "ilname": 1, "fstype": 1, "printf": 1, "fprint": 1, "fprint0": 1, "fls": 1,
	"fprintf": 2, "regextype": 1, "used": 1, "context": 1, "files0-from": 1, "newerXY": 1,
}

func (p *walker) findCode(f *frame, seg *Segment, ws []word) {
	first := len(p.cmd.Segments)
	defer func() { p.findChildListed(seg, first) }()
	seg.Flags = seg.Flags[:0]
	seg.Operands = seg.Operands[:0]
	i := 1
	// find -H|-L|-P, -D DEBUGOPTS and -Olevel come before the roots.
	for i < len(ws) && !ws[i].dynamic {
		t := ws[i].text
		if t == "-H" || t == "-L" || t == "-P" || strings.HasPrefix(t, "-O") && len(t) > 2 {
			seg.Flags = append(seg.Flags, t[1:])
			i++
			continue
		}
		if t == "-D" && i+1 < len(ws) {
			seg.Flags = append(seg.Flags, "D")
			i += 2
			continue
		}
		break
	}
	firstRoot := i
	for i < len(ws) && !strings.HasPrefix(ws[i].text, "-") && ws[i].text != "(" && ws[i].text != "!" && ws[i].text != "\\(" {
		seg.Operands = append(seg.Operands, p.operand(ws[i]))
		i++
	}
	for i < len(ws) {
		t := ws[i].text
		if !strings.HasPrefix(t, "-") || ws[i].dynamic {
			if ws[i].dynamic {
				seg.tag(TagDynamicArgs)
			}
			i++
			continue
		}
		name := strings.TrimLeft(t, "-")
		seg.Flags = append(seg.Flags, name)
		switch name {
		case "exec", "execdir", "ok", "okdir":
			j := i + 1
			for j < len(ws) && ws[j].text != ";" && ws[j].text != "+" {
				j++
			}
			if j < len(ws) && ws[j].text == "+" {
				seg.Options[name] = append(seg.Options[name], "+")
			}
			root := ""
			if len(seg.Operands) == 1 && !seg.Operands[0].Dynamic {
				root = ws[firstRoot].path
			} else if len(seg.Operands) == 0 {
				root = "."
			}
			p.execChild(f, seg, ws[i+1:j], "{}", root)
			i = j + 1
			continue
		case "fprint", "fprint0", "fls", "fprintf":
			if i+1 < len(ws) {
				seg.Writes = append(seg.Writes, p.operand(ws[i+1]))
			}
		case "newerXY":
		}
		n := findArity[name]
		if strings.HasPrefix(name, "newer") && len(name) == 7 {
			n = 1
		}
		for k := 1; k <= n && i+k < len(ws); k++ {
			seg.Options[name] = append(seg.Options[name], ws[i+k].text)
		}
		i += 1 + n
	}
}

// execChild adds a segment for a program run by another (find -exec);
// words equal to or containing placeholder are filled at run time.
func (p *walker) execChild(f *frame, parent *Segment, ws []word, placeholder, root string) {
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
	filled := make([]word, len(ws))
	for i, w := range ws {
		parts[i] = w.text
		filled[i] = w
		if placeholder != "" && strings.Contains(w.text, placeholder) {
			filled[i].dynamic = true
			filled[i].path = ""
			if w.text == placeholder && root != "" {
				// {} stands for the root and everything below it.
				filled[i].path, filled[i].fill = root, true
			}
		}
	}
	seg := p.newSegment(nf, strings.Join(parts, " "))
	name := parent.Program
	if name == "" {
		name = parent.Path // an unknown program, as written
	}
	seg.Wrappers = append(seg.Wrappers, Wrapper{Name: name, Args: []string{}})
	seg.fillOnly = placeholder != "" && root != ""
	for i, w := range ws {
		if w.dynamic || strings.Contains(w.text, placeholder) && !filled[i].fill {
			seg.fillOnly = false
		}
	}
	p.command(nf, seg, filled)
}

// applyPatch reads Codex's `apply_patch <<'EOF' … EOF`, which Codex applies
// itself: the files the patch adds, updates, deletes or moves to are the
// segment's writes, graded by the path policy like a file tool's. Anything
// else (arguments, a heredoc with expansions, no patch) leaves it uncovered.
func (p *walker) applyPatch(f *frame, seg *Segment) {
	if f.hdoc == nil || f.hdoc.dynamic || len(seg.Argv) != 1 || !strings.Contains(f.hdoc.text, "*** Begin Patch") {
		return
	}
	paths := applypatch.Paths(f.hdoc.text)
	if len(paths) == 0 {
		return
	}
	for _, path := range paths {
		seg.Writes = append(seg.Writes, p.operand(word{text: path, path: path}))
	}
	seg.tag(TagApplyPatch)
}

func (p *walker) awkCode(f *frame, seg *Segment, operands []word) {
	if files := seg.Options["file"]; len(files) > 0 {
		seg.Code = append(seg.Code, Code{Lang: "awk", Text: "-f " + strings.Join(files, " ")})
		seg.tag(TagScriptFile)
		seg.tag(TagCodeUnsafe)
		return
	}
	if len(operands) == 0 {
		return
	}
	prog := operands[0]
	seg.Operands = seg.Operands[1:]
	if prog.dynamic {
		p.dynamicCode(seg, "awk", prog)
		return
	}
	r := codescan.Awk(prog.text)
	if strings.Contains(prog.text, "ENVIRON") || strings.Contains(prog.text, "PROCINFO") {
		seg.tag(TagSecretEnv) // the environment, tokens included
	}
	seg.Code = append(seg.Code, Code{Lang: "awk", Text: prog.text, Safe: r.Safe})
	if !r.Safe {
		seg.tag(TagCodeUnsafe)
		p.opaque(f, seg, "awk", prog.text, false)
		if (strings.Contains(prog.text, "/inet/") || strings.Contains(prog.text, "/inet4/") || strings.Contains(prog.text, "/inet6/")) &&
			(strings.Count(prog.text, "getline") >= 2 || strings.Contains(prog.text, "system(")) {
			// gawk's network special files, with commands read from them
			// and run: a reverse shell.
			seg.tag(TagCodeRevShell)
		}
		// print > "file" and print >> "file" write those files.
		for _, m := range awkRedirect().FindAllStringSubmatch(prog.text, 16) {
			seg.Writes = append(seg.Writes, p.operand(word{text: m[1], path: m[1]}))
		}
		p.awkVarCommands(f, seg, prog.text)
	}
}

// awkVarCommands grades, as shell code, the value of each -v NAME=VALUE
// that the script hands to the shell by name: system(NAME), print | NAME,
// NAME | getline (awk -v c='rm -rf /' 'BEGIN{system(c)}').
func (p *walker) awkVarCommands(f *frame, seg *Segment, text string) {
	for _, a := range seg.Options["assign"] {
		name, val, ok := strings.Cut(a, "=")
		if !ok || name == "" || seg.dynOpts["assign\x00"+a].dynamic {
			continue
		}
		n := regexp.QuoteMeta(name)
		re, err := regexp.Compile(`system\s*\(\s*` + n + `\s*\)|(?:^|[^|])\|&?\s*` + n + `\b|\b` + n + `\s*\|&?\s*getline`)
		if err == nil && re.MatchString(text) {
			p.script(f, awkUnescape(val), seg.Index, KindEmbedded, false)
		}
	}
}

// awkUnescape processes the escapes awk applies to a -v value (\n, \t,
// \\, \/ and \"); other backslashes stay.
func awkUnescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`, `\"`, `"`, `\/`, "/")
	return r.Replace(s)
}

var (
	// embeddedShell finds the command of expect's spawn/exec and gdb's
	// shell/! commands.
	embeddedShell = lazyre.New(`(?m)(?:^|[;\[])\s*(?:spawn|exec|shell|!)\s*([^;\]\n]+)`)
	// gdbShell finds gdb's shell CMD, !CMD and pipe … | CMD: the rest of
	// the line is the shell command.
	gdbShell    = lazyre.New(`(?m)^\s*(?:shell\b|!|pipe\b[^|\n]*\|)\s*([^\n]+)`)
	awkRedirect = lazyre.New(`>>?\s*"([^"\\]+)"`)
	// sedExec finds GNU sed's `e command` (to the end of the line).
	sedExec = lazyre.New(`(?m)(?:^|[;{}])\s*(?:[0-9$]+(?:,[0-9$]+)?|/[^/\n]*/)?\s*!?\s*e[ \t]+([^\n]+)`)
)

func (p *walker) sedCode(f *frame, seg *Segment, operands []word) {
	scripts := append([]string(nil), seg.Options["expression"]...)
	files := operands
	if len(seg.Options["file"]) > 0 {
		seg.Code = append(seg.Code, Code{Lang: "sed", Text: "-f " + strings.Join(seg.Options["file"], " ")})
		seg.tag(TagCodeUnsafe)
		seg.tag(TagScriptFile)
	} else if len(scripts) == 0 && len(operands) > 0 {
		if operands[0].dynamic {
			p.dynamicCode(seg, "sed", operands[0])
			return
		}
		scripts = append(scripts, operands[0].text)
		files = operands[1:]
		seg.Operands = seg.Operands[1:]
	}
	suffixes, inPlace := seg.Options["in-place"]
	inPlace = inPlace || hasFlag(seg.Flags, "in-place")
	if inPlace && len(suffixes) == 0 && len(seg.Options["expression"]) == 0 && len(operands) > 1 && operands[0].text == "" &&
		!operands[0].dynamic {
		// BSD sed's -i takes its suffix as the next argument: `sed -i ''
		// SCRIPT FILE…`. GNU sed reads '' as the script and SCRIPT as a
		// file; grade both readings (SCRIPT as a script, and written).
		if operands[1].dynamic {
			p.dynamicCode(seg, "sed", operands[1])
			return
		}
		scripts = append(scripts, operands[1].text)
	}
	for _, s := range scripts {
		r := codescan.Sed(s)
		seg.Code = append(seg.Code, Code{Lang: "sed", Text: s, Safe: r.Safe})
		if !r.Safe {
			seg.tag(TagCodeUnsafe)
		}
		if r.Executes {
			seg.tag(TagCodeSpawns)
			for _, m := range sedExec().FindAllStringSubmatch(s, 16) {
				p.script(f, m[1], seg.Index, KindEmbedded, false)
			}
			if run, usesLine, ok := sedExecSubst(s); ok && len(scripts) == 1 {
				switch {
				case !usesLine:
					p.script(f, run(""), seg.Index, KindEmbedded, false) // s/.*/rm -rf \//e
				case len(files) == 0 && f.hdoc != nil && !f.hdoc.dynamic:
					p.sedExecLines(f, seg, f.hdoc.text) // sed 's/.*/&/e' <<< 'rm -rf /'
				}
			}
		}
		for _, w := range r.Writes {
			seg.Writes = append(seg.Writes, p.operand(word{text: w, path: w}))
		}
		for _, rd := range r.Reads {
			seg.Reads = append(seg.Reads, p.operand(word{text: rd, path: rd}))
		}
	}
	if inPlace {
		// '' names no file (BSD's -i '' suffix, which GNU sed reads as a
		// file it cannot open): neither read nor written.
		kept := seg.Operands[:0]
		for _, o := range seg.Operands {
			if o.Text != "" || o.Dynamic {
				kept = append(kept, o)
			}
		}
		seg.Operands = kept
		for _, w := range files {
			if w.text == "" && !w.dynamic {
				continue
			}
			seg.Writes = append(seg.Writes, p.operand(w))
			for _, sfx := range suffixes {
				for _, b := range sedBackups(w, sfx) {
					seg.Writes = append(seg.Writes, p.operand(b))
				}
			}
		}
	}
}

// sedBackups are the files `sed -i SUFFIX` may write as the backup of
// file w: w+SUFFIX, or, when SUFFIX holds '*' (each standing for w's base
// name), SUFFIX expanded both in w's directory and from the cwd (GNU sed
// puts it in w's directory; a SUFFIX with '/' names another one).
func sedBackups(w word, sfx string) []word {
	if sfx == "" {
		return nil
	}
	if w.dynamic || w.path == "" {
		return []word{{text: w.text + sfx, dynamic: true}}
	}
	if !strings.Contains(sfx, "*") {
		b := w.path + sfx
		return []word{{text: b, path: b}}
	}
	exp := strings.ReplaceAll(sfx, "*", baseName(w.path))
	out := []word{{text: exp, path: exp}}
	if d := dirOf(w.path); !strings.HasPrefix(exp, "/") {
		out = append(out, word{text: d + "/" + exp, path: d + "/" + exp})
	}
	return out
}

func (p *walker) vimCode(f *frame, seg *Segment, ws []word) {
	for i := 1; i < len(ws); i++ {
		t := ws[i].text
		code := ""
		switch {
		case (t == "-c" || t == "--cmd" || t == "-S") && i+1 < len(ws):
			code = ws[i+1].text
			i++
		case strings.HasPrefix(t, "+") && len(t) > 1:
			code = t[1:]
		}
		if code == "" {
			continue
		}
		seg.Code = append(seg.Code, Code{Lang: "vim", Text: code})
		if i := strings.IndexByte(code, '!'); i >= 0 && i+1 < len(code) {
			// :!cmd and :r !cmd hand cmd to the shell.
			p.script(f, code[i+1:], seg.Index, KindEmbedded, false)
		}
		if strings.Contains(code, "!") || strings.Contains(code, "system(") || strings.Contains(code, "sh") ||
			strings.Contains(code, "py") || strings.Contains(code, "lua") || strings.Contains(code, "perl") || strings.Contains(code, "ruby") {
			seg.tag(TagCodeSpawns)
		}
	}
}

func (p *walker) interpCode(f *frame, seg *Segment, lang string, codeFlags []string, operands []word) {
	// Code options first: python3 -c CODE --version still runs CODE (the
	// words after the code are its arguments).
	found := false
	for _, fl := range codeFlags {
		for _, c := range seg.Options[fl] {
			found = true
			if w, dyn := seg.dynOpts[fl+"\x00"+c]; dyn {
				p.dynamicCode(seg, lang, w)
				continue
			}
			if lang == "pwsh" {
				c, operands = pwshCode(fl, c, operands)
				if c == "" {
					seg.tag(TagDynamicCode) // an -EncodedCommand that does not decode
					continue
				}
				if c == "-" {
					p.stdinCode(f, seg, lang)
					continue
				}
			}
			p.opaque(f, seg, lang, c, false)
		}
	}
	if seg.Program == "ipython" || seg.Program == "ipython3" {
		// IPython's configuration options carry code too:
		// --InteractiveShellApp.code_to_run=…, --…exec_lines=[…].
		for name, vals := range seg.Options {
			if strings.HasSuffix(name, ".code_to_run") || strings.HasSuffix(name, ".exec_lines") {
				for _, c := range vals {
					found = true
					p.opaque(f, seg, lang, c, false)
				}
			}
		}
	}
	if found {
		return
	}
	if queryOnly(seg, operands) {
		return
	}
	switch {
	case seg.Program == "deno" && seg.Subcommand == "eval" || seg.Program == "deno" && seg.Subcommand == "repl" && len(seg.Options["eval"]) > 0:
		// deno eval CODE, deno repl --eval CODE
		code := operands
		if seg.Subcommand == "repl" {
			code = nil
			for _, c := range seg.Options["eval"] {
				code = append(code, word{text: c})
			}
		}
		if len(code) == 0 {
			seg.tag(TagInteractive)
			return
		}
		if code[0].dynamic {
			p.dynamicCode(seg, lang, code[0])
			return
		}
		p.opaque(f, seg, lang, code[0].text, false)
		return
	case seg.Program == "bun" && seg.Subcommand == "exec":
		// bun exec runs its operand in Bun's shell.
		p.joinedScript(f, seg, operands, KindScript)
		return
	case seg.Program == "powershell" && len(operands) > 0 && len(seg.Options["file"]) == 0:
		// Windows PowerShell's first positional parameter is -Command.
		var parts []string
		for _, w := range operands {
			if w.dynamic {
				p.dynamicCode(seg, lang, operands...)
				return
			}
			parts = append(parts, w.text)
		}
		p.opaque(f, seg, lang, strings.Join(parts, " "), false)
		return
	}
	if _, mod := seg.Options["m"]; mod {
		seg.tag(TagScriptFile)
		return
	}
	if len(operands) > 0 && operands[0].text != "-" {
		p.scriptFile(f, seg, operands[0])
		return
	}
	p.stdinCode(f, seg, lang)
}

// pwshCode returns the PowerShell code of option fl with value c: -Command
// takes the rest of the line, -EncodedCommand is base64 of UTF-16LE text
// ("" when it does not decode). The operands left are returned.
func pwshCode(fl, c string, operands []word) (string, []word) {
	switch fl {
	case "encodedcommand", "ec":
		return decodeUTF16Base64(c), operands
	}
	parts := []string{c}
	for _, w := range operands {
		parts = append(parts, w.text)
	}
	if c == "-" {
		return c, operands // -Command - reads standard input
	}
	return strings.Join(parts, " "), nil
}

// decodeUTF16Base64 decodes PowerShell's -EncodedCommand, or returns "".
func decodeUTF16Base64(s string) string {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b)%2 != 0 {
		return ""
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u))
}

// opaque records code in another language and looks into it: shell
// commands in its strings (when it can run programs), destruction of
// critical paths, and network plus process spawning.
func (p *walker) opaque(f *frame, seg *Segment, lang, text string, dynamic bool) {
	seg.Code = append(seg.Code, Code{Lang: lang, Text: text, Dynamic: dynamic})
	if dynamic {
		seg.tag(TagDynamicCode)
	}
	fnd := codescan.Scan(lang, text)
	if fnd.Spawns {
		seg.tag(TagCodeSpawns)
	}
	if fnd.Dynamic {
		seg.tag(TagDynamicCode)
	}
	// The floor denies only on what the code certainly does (a dangerous
	// call with constant arguments, codescan's Commands, Destroys, FetchRun
	// and RevShell); names that merely occur together ask, with tags of
	// their own.
	switch {
	case fnd.RevShell:
		seg.tag(TagCodeRevShell)
	case fnd.Network && fnd.Spawns:
		seg.tag(TagSuspectRevShell)
	}
	switch {
	case fnd.FetchRun:
		seg.tag(TagFetchedCode) // exec(urlopen(…).read())
	case fnd.Network && fnd.Dynamic:
		seg.tag(TagSuspectFetch)
	}
	for _, d := range fnd.Destroys {
		if isCriticalLiteral(p, d) {
			seg.tag(TagCodeCritical)
		}
	}
	if !seg.HasTag(TagCodeCritical) && fnd.Destructive {
		for _, lit := range fnd.Literals {
			if isCriticalLiteral(p, lit) {
				seg.tag(TagSuspectCritical) // os.chdir('/') … shutil.rmtree(tmpdir)
				break
			}
		}
	}
	// Commands the code certainly runs are graded as the shell commands
	// they are, floor included.
	certain := make(map[string]bool, len(fnd.Commands))
	for _, c := range fnd.Commands {
		certain[c] = true
		p.script(f, c, seg.Index, KindEmbedded, false)
	}
	if fnd.Spawns || lang == "awk" || !codescan.HasScanner(lang) {
		// Other strings of code that runs programs (or of a language
		// rivumi cannot scan, julia's run(`…`), erlang's os:cmd("…")) may be
		// commands too, or data: a floor shape among them asks.
		for _, lit := range fnd.Literals {
			if !certain[strings.TrimSpace(lit)] && looksLikeCommand(lit) && len(codescan.Floor(lit)) > 0 {
				seg.tag(TagSuspectFloor)
			}
		}
		// subprocess.run(["rm", "-rf", x]) … os.chdir("/"): an argv spread
		// over literals, read together.
		if len(fnd.Literals) > 1 && len(fnd.Literals) <= 32 {
			quoted := make([]string, len(fnd.Literals))
			for i, l := range fnd.Literals {
				quoted[i] = shquote.Word(l)
			}
			if joined := strings.Join(quoted, " "); !certain[joined] && len(codescan.Floor(joined)) > 0 {
				seg.tag(TagSuspectFloor)
			}
		}
	}
}

// isCriticalLiteral reports whether a string literal in opaque code names a
// path whose destruction the floor forbids.
func isCriticalLiteral(p *walker, lit string) bool {
	lit = strings.TrimSpace(lit)
	if lit == "" || strings.ContainsAny(lit, "\n") || !(strings.HasPrefix(lit, "/") || strings.HasPrefix(lit, "~")) {
		return false
	}
	_, c := p.env.classify(lit, strings.ContainsAny(lit, "*?["))
	switch c {
	case ClassRoot, ClassHome, ClassSystemTop, ClassCredentials, ClassDevice:
		return true
	}
	return false
}

// looksLikeCommand is a cheap filter for string literals worth parsing as
// shell: a word of letters, then anything.
func looksLikeCommand(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 2 || len(s) > 4096 {
		return false
	}
	c := s[0]
	return c >= 'a' && c <= 'z' || c == '/' || c == '.' || c == '$'
}

// pipelineCode settles, once a pipeline is complete, what a shell or
// interpreter reading code from the pipe gets: code from a fetch or decoder
// is fetched; static text from echo, printf or cat of a heredoc is parsed as
// the shell code it is.
func (p *walker) pipelineCode(f *frame, info *pipeInfo) {
	// fetched[i]: a stage before i fetches or decodes (one pass, linear).
	info.fetched = make([]bool, len(info.stages)+1)
	for i, idxs := range info.stages {
		info.fetched[i+1] = info.fetched[i]
		for _, j := range idxs {
			up := p.cmd.Segments[j]
			if isFetcher(up.Program) || isDecoder(up) || up.HasTag(TagFetchedCode) {
				info.fetched[i+1] = true
			}
		}
	}
	for i, idxs := range info.stages {
		for _, j := range idxs {
			seg := p.cmd.Segments[j]
			if p.upstreamFetches(info, i) && interpreter(seg.Program).lang != "" && readsStdinCode(seg) {
				seg.tag(TagFetchedCode) // curl … | python3 -c 'exec(sys.stdin.read())'
			}
			if p.upstreamFetches(info, i) {
				// What a fetch writes through a pipe is a download too.
				for _, w := range seg.Writes {
					if w.abs != "" && (seg.Program == "tee" || len(seg.Redirects) > 0) {
						put(&p.download, w.abs, true)
					}
				}
				if hasWrapper(seg, "xargs") && (isShell(seg.Program) || interpreter(seg.Program).lang != "") {
					seg.tag(TagFetchedCode) // curl … | xargs bash -c: the code is the download
				}
			}
			if i > 0 && len(info.stages[i-1]) == 1 && hasWrapper(seg, "xargs") && seg.HasTag(TagAppendedArgs) {
				p.xargsListing(info, i, seg) // xargs fed paths find printed
			}
			if (seg.Program == "sed" || seg.Program == "gsed") && seg.HasTag(TagCodeSpawns) && len(seg.Operands) == 0 {
				if src := p.staticSource(info, i); src != nil {
					if text, ok := p.staticOutput(src); ok {
						p.sedExecLines(f, seg, text) // echo 'rm -rf /' | sed 's/.*/&/e'
					}
				}
			}
			if installs, stdin := crontabInstalls(seg); installs && stdin && i > 0 {
				// echo '* * * * * CMD' | crontab -, (crontab -l; echo …) | crontab -
				if src := p.staticSource(info, i); src != nil {
					if text, ok := p.staticOutput(src); ok {
						p.crontabCode(f, seg, text)
					}
				} else {
					for _, text := range p.groupOutputs(info.stages[i-1]) {
						p.crontabCode(f, seg, text)
					}
				}
			}
			if !seg.HasTag(TagStdinCode) {
				continue
			}
			if p.upstreamFetches(info, i) {
				seg.tag(TagFetchedCode)
			}
			if src := p.staticSource(info, i); src != nil {
				if text, ok := p.staticOutput(src); ok {
					if isShell(seg.Program) || seg.PathKind == "dynamic" && len(seg.Argv) > 0 && shellVar(seg.Argv[0]) || seg.Program == "source" || seg.Program == "." || seg.Program == "at" || seg.Program == "batch" {
						p.script(f, text, seg.Index, KindStdin, false)
					} else if seg.Program == "make" || seg.Program == "gmake" {
						p.makeScripts(f, seg, text) // printf 'all:\n\trm -rf /\n' | make -f -
					} else if seg.HasTag(TagRemote) {
						p.script(f, text, seg.Index, KindRemote, false) // printf 'rm -rf /' | ssh host
					} else if in, isInterp := interpreterOf(seg.Program); isInterp {
						p.opaque(f, seg, in.lang, text, false)
					}
				}
			}
		}
	}
}

// staticSource finds the stage whose output reaches stage i: the one
// before it, looking through pass-through stages (tee, cat with no file).
func (p *walker) staticSource(info *pipeInfo, i int) *Segment {
	for k := i - 1; k >= 0 && len(info.stages[k]) == 1; k-- {
		s := p.cmd.Segments[info.stages[k][0]]
		passThrough := (s.Program == "tee" || s.Program == "cat" && len(s.Operands) == 0) && s.hdoc == nil
		if !passThrough || k == 0 {
			return s
		}
	}
	return nil
}

// staticOutput returns what a segment prints when that is statically
// known: echo or printf of static words, cat of a static heredoc or of a
// file an earlier segment wrote static text to (cat f, cat < f).
func (p *walker) staticOutput(s *Segment) (string, bool) {
	for _, d := range s.Dynamic {
		if d {
			return "", false
		}
	}
	// Wrappers (sudo, env, nohup, even xargs with its appended words) do
	// not change what echo prints first.
	if s.PathKind == "dynamic" {
		return "", false
	}
	if len(s.Argv) == 0 && len(s.Assigns) == 0 {
		return "", true // > f alone: an empty file
	}
	switch s.Program {
	case ":", "true":
		if len(s.Wrappers) == 0 {
			return "", true
		}
	case "echo":
		var words []string
		escapes, nl := false, "\n"
		for _, a := range s.Argv[1:] {
			if len(words) == 0 && (a == "-n" || a == "-e" || a == "-E" || a == "-ne" || a == "-en") {
				escapes = escapes || strings.Contains(a, "e")
				if strings.Contains(a, "n") {
					nl = "" // echo -n ends no line
				}
				continue
			}
			words = append(words, a)
		}
		out := strings.Join(words, " ") + nl
		if escapes {
			out = ansiC(out) // echo -e '\x72\x6d' prints rm
		}
		return out, true
	case "printf":
		args := s.Argv[1:]
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return "", false // printf -v VAR prints nothing; other options: not modelled
		}
		return printfStatic(args[0], args[1:])
	case "cat":
		if len(s.Argv) == 1 && s.hdoc != nil && !s.hdoc.dynamic {
			return s.hdoc.text, true
		}
		if len(s.Argv) >= 2 && len(s.Operands) == len(s.Argv)-1 {
			var b strings.Builder
			for _, o := range s.Operands { // cat f, cat a b
				t, ok := p.written[o.abs]
				if !ok || o.abs == "" {
					return "", false
				}
				b.WriteString(t)
			}
			return b.String(), true
		}
		if len(s.Argv) == 1 && s.hdoc == nil {
			for i := len(s.Redirects) - 1; i >= 0; i-- {
				if r := s.Redirects[i]; r.Op == "<" && (r.Fd == "" || r.Fd == "0") {
					t, ok := p.written[r.Target.abs] // cat < f
					return t, ok && r.Target.abs != ""
				}
			}
		}
	}
	return "", false
}

// printfStatic is what printf FORMAT ARGS… prints when the format holds
// only %s, %b and %% conversions: escapes in the format are decoded (as
// %b decodes its argument), and the format is reused until the arguments
// run out, as bash's printf does.
func printfStatic(format string, args []string) (string, bool) {
	type part struct {
		lit  string
		conv byte // 0 for a literal
	}
	var parts []part
	convs := 0
	for rest := format; rest != ""; {
		i := strings.IndexByte(rest, '%')
		if i < 0 {
			parts = append(parts, part{lit: ansiC(rest)})
			break
		}
		if i > 0 {
			parts = append(parts, part{lit: ansiC(rest[:i])})
		}
		if i+1 >= len(rest) {
			return "", false
		}
		switch c := rest[i+1]; c {
		case '%':
			parts = append(parts, part{lit: "%"})
		case 's', 'b':
			parts = append(parts, part{conv: c})
			convs++
		default:
			return "", false // widths, %d, %q …: not modelled
		}
		rest = rest[i+2:]
	}
	var b strings.Builder
	for pass := 0; pass == 0 || convs > 0 && len(args) > 0; pass++ {
		if b.Len() > 1<<16 {
			return "", false
		}
		for _, pt := range parts {
			if pt.conv == 0 {
				b.WriteString(pt.lit)
				continue
			}
			a := ""
			if len(args) > 0 {
				a, args = args[0], args[1:]
			}
			if pt.conv == 'b' {
				a = ansiC(a)
			}
			b.WriteString(a)
		}
	}
	return b.String(), true
}

// writtenCode grades the contents of a file an earlier segment wrote static
// text to, when seg runs it (bash x.sh, python3 x.py, ./x.sh).
func (p *walker) writtenCode(f *frame, seg *Segment, abs string) {
	text, ok := p.written[abs]
	if !ok && abs != "" {
		text, ok = p.written[p.origin(abs)] // cp x.sh y.sh && ./y.sh
	}
	if !ok || abs == "" {
		return
	}
	if in, isInterp := interpreterOf(seg.Program); isInterp {
		p.opaque(f, seg, in.lang, text, false)
		return
	}
	p.script(f, text, seg.Index, KindScript, false)
}

// substOutputCode parses, as shell code run by seg, the static output of
// the top segments of a substitution (source <(echo 'rm -rf /')).
func (p *walker) substOutputCode(f *frame, seg *Segment, from, to int) {
	for _, c := range p.cmd.Segments[from:to] {
		if c.Kind != KindProcSubst && c.Kind != KindSubst {
			continue
		}
		if text, ok := p.staticOutput(c); ok {
			p.script(f, text, seg.Index, KindStdin, false)
		}
	}
}

// readsStdinCode reports interpreter code that runs what it reads from
// standard input.
func readsStdinCode(s *Segment) bool {
	for _, c := range s.Code {
		if strings.Contains(c.Text, "stdin") && (strings.Contains(c.Text, "exec") || strings.Contains(c.Text, "eval")) {
			return true
		}
	}
	return false
}

// upstreamFetches reports a fetch or decoder in a stage before stage i.
func (p *walker) upstreamFetches(info *pipeInfo, i int) bool {
	return info.fetched[i]
}

func hasWrapper(s *Segment, name string) bool {
	for _, w := range s.Wrappers {
		if w.Name == name {
			return true
		}
	}
	return false
}

// runnerSubcommand reports a subcommand that runs an arbitrary package or
// command (npm exec, docker run), or such a program without a subcommand.
func runnerSubcommand(seg *Segment) bool {
	subs := rules.RunnerSubcommands(seg.Program)
	if len(subs) == 0 {
		return false
	}
	return seg.Subcommand == "" || slices.Contains(subs, seg.Subcommand)
}
