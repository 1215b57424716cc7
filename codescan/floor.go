package codescan

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/rivumi/rivumi/internal/ere"
	"github.com/rivumi/rivumi/programs"
)

// The ids returned by Floor.
const (
	floorRmRoot            = "floor.rm-root"
	floorForkBomb          = "floor.fork-bomb"
	floorDiskWrite         = "floor.disk-write"
	floorFetchRun          = "floor.fetch-run"
	floorReverseShell      = "floor.reverse-shell"
	floorSystemCredentials = "floor.system-credentials"
	floorKillInit          = "floor.kill-init"
	floorChmodRoot         = "floor.chmod-root"
)

// Floor scans raw text that could not be parsed as shell (or is otherwise opaque) for
// shapes that are never legitimate in automation. It returns the ids of the shapes found, sorted,
// deduplicated; nil when none. Best effort and conservative: it is a last line of defence used
// only when the real parser failed, so prefer catching (a false hit means deny of unparsable text).
//
// The text is first copied with every ', " and \ removed (a backslash-newline
// is removed entirely), so quoting cannot hide a word: r""m, \rm and "rm" all
// read as rm, and bash -c 'curl x | sh' reads as a pipeline. The copy is then
// split into words and simple commands at ; & && || | |& newlines ( ) $( <(
// >( backticks and standalone { }, and nested commands are tracked so that
// pipelines and process substitutions can be related to their outer
// command. Command names are compared case-insensitively after removing
// any directory (/bin/rm is rm). A "command word" is the first word of a
// simple command after skipping sudo, doas, env, nohup, exec, command,
// builtin, nice, ionice, stdbuf, timeout, xargs, time, setsid, unbuffer,
// if/then/do/else/while/until, { and !, together with their options and
// VAR=value assignments. Comments and heredoc bodies are scanned like any
// other text, and words such as rm are recognised anywhere in a command
// (echo rm -rf / is a hit): Floor is conservative by design.
//
// The ids and the shapes they stand for:
//
//   - floor.rm-root: an rm word followed in the same command by a recursive
//     option (-r, -R, --recursive or an abbreviation, or a bundle such as -rf,
//     -fr, -Rf, -rfv) and an operand that is /, /*, ~, ~/, ~/*, ~user, $HOME,
//     ${HOME} (with / or /* after them), or a top-level system directory
//     (/bin /boot /dev /etc /home /lib /lib32 /lib64 /opt /proc /root /run
//     /sbin /srv /sys /usr /var /System /Library /Applications /Users
//     /private, compared case-insensitively, with or without a trailing / or
//     /*, after path cleaning, or a glob in the first path component such as
//     /u*); or an rm word followed by --no-preserve-root.
//   - floor.fork-bomb: NAME|NAME& (spaces allowed, |& allowed) where NAME()
//     or "function NAME" is defined anywhere in the text, as in :(){ :|:& };:
//     and bomb() { bomb | bomb & }; also perl's "fork while fork".
//   - floor.disk-write: of=/dev/DEV anywhere; mkfs, mkfs.*, mke2fs, mkswap,
//     wipefs, shred, cryptsetup, fdisk, sfdisk, gdisk, sgdisk, parted,
//     blkdiscard, tee or cp followed by /dev/DEV; an output redirect (>, >>,
//     >|, &>, >&) to /dev/DEV; where DEV starts with sd hd vd xvd nvme mmcblk
//     disk rdisk mapper/ md loop dm- mem kmem.
//   - floor.fetch-run: a command containing curl, wget or fetch (or base64
//     with a decode option such as -d, -D, --decode) piped, directly or
//     further down the same pipeline, into a command whose command word is a
//     shell or interpreter (every shell and interpreter of the program
//     registry, programs/programs.yaml, and busybox, with or without a
//     version suffix such as python3.12) or source/.; a $( ), <( ) or backtick
//     substitution containing such a command inside a command whose command
//     word is a shell, interpreter, source, . or eval (bash <(curl ...),
//     source <(curl ...), . <(curl ...), eval "$(curl ...)", eval `curl ...`,
//     sh -c "$(curl ...)"); and curl ... > >(sh).
//   - floor.reverse-shell: /dev/tcp or /dev/udp anywhere (even in an echo);
//     nc, ncat or netcat followed by an -e or -c option (also attached, as in
//     -e/bin/sh, or in a bundle such as -lvpe, or --exec, --sh-exec,
//     --lua-exec); socat followed by a word containing exec: or system:; a
//     pipeline that contains both a network tool (nc ncat netcat socat
//     telnet) and a shell or interpreter as command words.
//   - floor.system-credentials: an output redirect to /etc/passwd,
//     /etc/shadow, /etc/gshadow, /etc/master.passwd, /etc/sudoers or
//     anything under /etc/sudoers.d (also under /private, after path
//     cleaning, case-insensitively), of= naming one of them, or tee, rm, mv,
//     cp, ln, chmod, chown, chgrp, chattr, truncate, install, dd, shred,
//     unlink, rsync, sed -i or perl -i followed by one of them as an
//     argument (cp /etc/passwd /tmp/x counts: any argument position).
//   - floor.kill-init: as command words: kill with process id 1 or -1 after
//     the signal options (kill -9 1, kill -9 -1, kill -KILL -1, kill -s KILL
//     1, kill 1, kill -- -1); pkill or killall naming init, systemd or
//     launchd; killall5; shutdown, reboot, halt, poweroff; init or telinit
//     with 0, 1, 6, s or S; systemctl with poweroff, reboot, halt, kexec,
//     soft-reboot or one of their .target units; launchctl reboot. A word
//     that is not a command word (git log --grep=reboot, echo reboot) is not
//     a hit.
//   - floor.chmod-root: chmod, chown or chgrp followed by -R (also in a
//     bundle such as -Rv or -fR) or --recursive and an operand that is / or
//     a top-level system directory as for floor.rm-root (home directories
//     are not included here).
//
// Limitations: text that builds names at run time ($'\x72m', variables,
// aliases, eval of concatenations) is not decoded. Floor never panics and
// runs in time linear in len(text).
func Floor(text string) []string {
	s := floorCopy(text)
	f := &floorScan{}
	if strings.Contains(s, "/dev/tcp") || strings.Contains(s, "/dev/udp") {
		f.hit(floorReverseShell)
	}
	if strings.Contains(s, "fork while fork") || forkBomb(s) {
		f.hit(floorForkBomb)
	}
	f.tokens(s)
	if len(f.hits) == 0 {
		return nil
	}
	out := make([]string, 0, len(f.hits))
	for id := range f.hits {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// floorCopy removes quotes and backslashes, and ends a line at each NUL:
// a NUL cannot reach bash (execve ends the argument there), so the text
// before it is what would run, and what follows is scanned as a new line.
func floorCopy(text string) string {
	b := make([]byte, 0, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case 0:
			b = append(b, '\n')
			continue
		case '\\':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			} else if i+2 < len(text) && text[i+1] == '\r' && text[i+2] == '\n' {
				i += 2
			}
			continue
		case '\'', '"':
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

func isFloorNameChar(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f', ';', '&', '|', '(', ')', '{', '}', '<', '>', '`':
		return false
	}
	return true
}

// forkBomb looks for NAME|NAME& with NAME defined as a function.
func forkBomb(s string) bool {
	var names map[string]bool
	for i := 0; i < len(s); i++ {
		if s[i] != '|' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '|' {
			i++
			continue
		}
		k := i
		for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
			k--
		}
		e := k
		for k > 0 && isFloorNameChar(s[k-1]) {
			k--
		}
		left := s[k:e]
		j := i + 1
		if j < len(s) && s[j] == '&' {
			j++
		}
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		st := j
		for j < len(s) && isFloorNameChar(s[j]) {
			j++
		}
		right := s[st:j]
		if left == "" || left != right {
			continue
		}
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j < len(s) && s[j] == '&' && (j+1 >= len(s) || s[j+1] != '&') {
			if names == nil {
				names = map[string]bool{}
			}
			names[left] = true
		}
	}
	if names == nil {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '(' {
			continue
		}
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j >= len(s) || s[j] != ')' {
			continue
		}
		k := i
		for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
			k--
		}
		e := k
		for k > 0 && isFloorNameChar(s[k-1]) {
			k--
		}
		if names[s[k:e]] {
			return true
		}
	}
	for off := 0; off < len(s); {
		k := strings.Index(s[off:], "function")
		if k < 0 {
			break
		}
		j := off + k + len("function")
		off = j
		if j >= len(s) || (s[j] != ' ' && s[j] != '\t') {
			continue
		}
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		st := j
		for j < len(s) && isFloorNameChar(s[j]) && s[j] != '(' {
			j++
		}
		if names[s[st:j]] {
			return true
		}
	}
	return false
}

type floorScan struct {
	hits     map[string]bool
	stack    []*flevel
	overflow int
}

func (f *floorScan) hit(id string) {
	if f.hits == nil {
		f.hits = map[string]bool{}
	}
	f.hits[id] = true
}

// flevel is one nesting level: the top level, a subshell, a command or
// process substitution, a backtick substitution or a brace group.
type flevel struct {
	kind     byte
	words    []string
	cmd      cmdState
	redirOut bool

	// current simple command
	segFetch  bool // curl/wget/fetch word, or nested substitution with one
	segB64    bool // base64 word
	segB64Dec bool // a decode option
	segNet    bool // nested network tool

	// current pipeline
	pipeFetch bool
	pipeNet   bool
	pipeShell bool

	// anywhere in this level
	sawFetch bool
	sawNet   bool
}

// cmdState finds the command word of a simple command incrementally.
type cmdState struct {
	found    bool
	skipNext bool
	wrapper  string
	name     string
	idx      int
	n        int
}

var floorWrappers = map[string]bool{
	"sudo": true, "doas": true, "env": true, "nohup": true, "exec": true, "command": true,
	"builtin": true, "nice": true, "ionice": true, "stdbuf": true, "timeout": true, "xargs": true,
	"time": true, "setsid": true, "unbuffer": true, "then": true, "do": true, "else": true,
	"elif": true, "if": true, "while": true, "until": true, "{": true, "!": true,
}

var wrapperArgFlags = map[string]string{
	"sudo":    " -u -g -h -p -C -D -r -t -U -T ",
	"doas":    " -u -C ",
	"env":     " -u -C -S ",
	"nice":    " -n ",
	"ionice":  " -c -n ",
	"timeout": " -s -k ",
	"xargs":   " -I -n -P -d -L -s -a -E ",
}

func (c *cmdState) step(w string) {
	idx := c.n
	c.n++
	if c.found {
		return
	}
	if c.skipNext {
		c.skipNext = false
		return
	}
	lw := cmdName(w)
	if floorWrappers[lw] {
		c.wrapper = lw
		return
	}
	if c.wrapper != "" && len(w) > 1 && w[0] == '-' {
		if flags, ok := wrapperArgFlags[c.wrapper]; ok && strings.Contains(flags, " "+w+" ") {
			c.skipNext = true
		}
		return
	}
	if isAssignment(w) {
		return
	}
	if c.wrapper != "" && w != "" && isDigit(w[0]) {
		return // timeout 10, nice 5
	}
	c.found, c.name, c.idx = true, lw, idx
}

func isAssignment(w string) bool {
	k := strings.IndexByte(w, '=')
	if k <= 0 {
		return false
	}
	for i := 0; i < k; i++ {
		if !isIdentChar(w[i]) {
			return false
		}
	}
	return !isDigit(w[0])
}

// cmdName returns the lower-cased basename of a command word.
func cmdName(w string) string {
	if k := strings.LastIndexByte(w, '/'); k >= 0 && k < len(w)-1 {
		w = w[k+1:]
	}
	return asciiLower(w)
}

func trimVersion(n string) string {
	t := strings.TrimRight(n, "0123456789.")
	if t == "" {
		return n
	}
	return t
}

// isShellName reports a shell or interpreter by the program registry
// (programs/programs.yaml: an entry that is a shell or has a language),
// with or without a version suffix, or busybox (whose applets include sh).
func isShellName(n string) bool {
	if n == "busybox" {
		return true
	}
	p := programs.Lookup(n)
	if p == nil {
		p = programs.Lookup(trimVersion(n))
	}
	return p != nil && p.HasCode()
}

// floorFetcher reports a program that downloads (the registry's fetches,
// as the parser has it).
func floorFetcher(n string) bool {
	p := programs.Lookup(n)
	return p != nil && p.Fetches
}

func (f *floorScan) top() *flevel { return f.stack[len(f.stack)-1] }

func (f *floorScan) push(kind byte) *flevel {
	if len(f.stack) >= 100 {
		f.overflow++
		f.endSegment(f.top(), false)
		return f.top()
	}
	l := &flevel{kind: kind}
	f.stack = append(f.stack, l)
	return l
}

// pop closes the innermost level whose kind is in kinds.
func (f *floorScan) pop(kinds string) {
	if f.overflow > 0 {
		f.overflow--
		f.endSegment(f.top(), false)
		return
	}
	if len(f.stack) <= 1 || strings.IndexByte(kinds, f.top().kind) < 0 {
		f.endSegment(f.top(), false)
		return
	}
	in := f.top()
	f.endSegment(in, false)
	f.stack = f.stack[:len(f.stack)-1]
	out := f.top()
	if in.sawFetch {
		out.segFetch = true
		out.sawFetch = true
		switch in.kind {
		case '$', '<', '`':
			if out.cmd.found {
				n := out.cmd.name
				if isShellName(n) || n == "source" || n == "." || n == "eval" {
					f.hit(floorFetchRun)
				}
			}
		}
	}
	if in.sawNet {
		out.segNet = true
		out.sawNet = true
	}
}

func (f *floorScan) tokens(s string) {
	f.stack = []*flevel{{}}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n' || c == ';':
			f.endSegment(f.top(), false)
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f':
			i++
		case c == '&':
			switch {
			case i+1 < len(s) && s[i+1] == '&':
				f.endSegment(f.top(), false)
				i += 2
			case i+1 < len(s) && s[i+1] == '>':
				i += 2
				if i < len(s) && s[i] == '>' {
					i++
				}
				f.top().redirOut = true
			default:
				f.endSegment(f.top(), false)
				i++
			}
		case c == '|':
			switch {
			case i+1 < len(s) && s[i+1] == '|':
				f.endSegment(f.top(), false)
				i += 2
			case i+1 < len(s) && s[i+1] == '&':
				f.endSegment(f.top(), true)
				i += 2
			default:
				f.endSegment(f.top(), true)
				i++
			}
		case c == '(':
			f.push('(')
			i++
		case c == ')':
			f.pop("($<>")
			i++
		case c == '`':
			if f.top().kind == '`' && f.overflow == 0 {
				f.pop("`")
			} else {
				f.push('`')
			}
			i++
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			f.push('$')
			i += 2
		case c == '<':
			if i+1 < len(s) && s[i+1] == '(' {
				f.push('<')
				i += 2
				continue
			}
			for i < len(s) && (s[i] == '<' || s[i] == '&' || s[i] == '>' || s[i] == '-') {
				i++
			}
		case c == '>':
			if i+1 < len(s) && s[i+1] == '(' {
				outer := f.top()
				inheritFetch := outer.pipeFetch || outer.segFetch || (outer.segB64 && outer.segB64Dec)
				l := f.push('>')
				if l != outer {
					l.pipeFetch = inheritFetch
				}
				i += 2
				continue
			}
			i++
			for i < len(s) && (s[i] == '>' || s[i] == '|' || s[i] == '&') {
				i++
			}
			f.top().redirOut = true
		default:
			j := i
			for j < len(s) && isFloorWordChar(s[j]) && !(s[j] == '$' && j+1 < len(s) && s[j+1] == '(') {
				j++
			}
			if j == i {
				j = i + 1 // cannot happen; never loop forever
			}
			w := s[i:j]
			i = j
			if i < len(s) && (s[i] == '>' || s[i] == '<') && allDigits(w) {
				continue // a file descriptor number: 2>/dev/null
			}
			f.word(w)
		}
	}
	for len(f.stack) > 1 {
		f.pop(string(f.top().kind))
	}
	f.endSegment(f.top(), false)
}

// isFloorWordChar reports whether c belongs to a word of the scan copy
// (braces do: ${HOME} and {a,b} are words; a lone { or } is a group).
func isFloorWordChar(c byte) bool {
	return c == '{' || c == '}' || isFloorNameChar(c)
}

func allDigits(w string) bool {
	if w == "" {
		return false
	}
	for k := 0; k < len(w); k++ {
		if !isDigit(w[k]) {
			return false
		}
	}
	return true
}

// word handles one word of the scan copy.
func (f *floorScan) word(w string) {
	l := f.top()
	if w == "{" {
		f.push('{')
		return
	}
	if w == "}" && l.kind == '{' && f.overflow == 0 {
		f.pop("{")
		return
	}
	if l.redirOut {
		l.redirOut = false
		if isBlockDev(w) {
			f.hit(floorDiskWrite)
		}
		if isCredPath(w) {
			f.hit(floorSystemCredentials)
		}
		l.words = append(l.words, w)
		l.cmd.n++
		return
	}
	l.words = append(l.words, w)
	l.cmd.step(w)
	n := cmdName(w)
	if floorFetcher(n) {
		l.segFetch = true
	}
	if n == "base64" {
		l.segB64 = true
	}
	if isDecodeFlag(w) {
		l.segB64Dec = true
	}
}

func isDecodeFlag(w string) bool {
	if w == "--decode" {
		return true
	}
	return len(w) >= 2 && w[0] == '-' && w[1] != '-' && strings.ContainsAny(w[1:], "dD")
}

// endSegment analyses the current simple command of l and resets it. pipe
// reports that it was ended by a pipe, so the pipeline continues.
func (f *floorScan) endSegment(l *flevel, pipe bool) {
	words := l.words
	if len(words) > 0 {
		f.analyze(words, &l.cmd)
	}
	fetch := l.segFetch || (l.segB64 && l.segB64Dec)
	isShell := l.cmd.found && (isShellName(l.cmd.name) || l.cmd.name == "source" || l.cmd.name == ".")
	if !l.cmd.found && (l.cmd.wrapper == "sudo" || l.cmd.wrapper == "doas") {
		// sudo -s / sudo -i without a command: a shell reading stdin.
		for _, w := range words {
			if w == "-s" || w == "-i" || w == "--shell" || w == "--login" {
				isShell = true
			}
		}
	}
	isNet := l.cmd.found && hasKind(l.cmd.name, "socket_relay") || l.segNet
	if isShell && l.pipeFetch {
		f.hit(floorFetchRun)
	}
	if (isShell && l.pipeNet) || (isNet && l.pipeShell) {
		f.hit(floorReverseShell)
	}
	if fetch {
		l.sawFetch = true
	}
	if isNet {
		l.sawNet = true
	}
	if pipe {
		l.pipeFetch = l.pipeFetch || fetch
		l.pipeNet = l.pipeNet || isNet
		l.pipeShell = l.pipeShell || isShell
	} else {
		l.pipeFetch, l.pipeNet, l.pipeShell = false, false, false
	}
	l.words = l.words[:0]
	l.cmd = cmdState{}
	l.segFetch, l.segB64, l.segB64Dec, l.segNet = false, false, false, false
	l.redirOut = false
}

var systemDirs = map[string]bool{
	"bin": true, "boot": true, "dev": true, "etc": true, "home": true, "lib": true, "lib32": true,
	"lib64": true, "opt": true, "proc": true, "root": true, "run": true, "sbin": true, "srv": true,
	"sys": true, "usr": true, "var": true, "system": true, "library": true, "applications": true,
	"users": true, "private": true,
}

// isSystemPath reports whether w is /, a top-level system directory (or
// all of its contents), or a glob over the first path component.
func isSystemPath(w string) bool {
	if w == "" || w[0] != '/' {
		return false
	}
	p := path.Clean(w)
	for {
		if strings.Trim(p, "/*") == "" {
			return true // "/", "/*", "/**"
		}
		first := p[1:]
		rest := ""
		if k := strings.IndexByte(first, '/'); k >= 0 {
			first, rest = first[:k], first[k:]
		}
		if strings.ContainsAny(first, "*?[") {
			return true
		}
		name := asciiLower(first)
		if name == "private" && rest != "" {
			p = rest // macOS: /private/etc is /etc
			continue
		}
		return strings.Trim(rest, "/*") == "" && systemDirs[name]
	}
}

// isHomeTarget reports whether w is the home directory itself (or all of
// its contents): ~, ~/, ~/*, ~user, $HOME, ${HOME}/*, ...
func isHomeTarget(w string) bool {
	w = strings.ReplaceAll(w, "${HOME}", "$HOME")
	var rest string
	switch {
	case strings.HasPrefix(w, "$HOME"):
		rest = w[len("$HOME"):]
		if rest != "" && rest[0] != '/' {
			return false // $HOMEDIR
		}
	case strings.HasPrefix(w, "~"):
		rest = w[1:]
		if rest != "" && rest[0] != '/' {
			// ~user or ~user/...
			k := strings.IndexByte(rest, '/')
			if k < 0 {
				return true
			}
			rest = rest[k:]
		}
	default:
		return false
	}
	rest = strings.TrimRight(rest, "*")
	return path.Clean("/"+rest) == "/"
}

func isRmRecursive(w string) bool {
	if strings.HasPrefix(w, "--") {
		return len(w) >= 3 && strings.HasPrefix("--recursive", w)
	}
	return len(w) >= 2 && w[0] == '-' && strings.ContainsAny(w[1:], "rR")
}

func isChmodRecursive(w string) bool {
	if strings.HasPrefix(w, "--") {
		return len(w) >= 4 && strings.HasPrefix("--recursive", w)
	}
	return len(w) >= 2 && w[0] == '-' && strings.IndexByte(w[1:], 'R') >= 0
}

func isNoPreserveRoot(w string) bool {
	return len(w) >= 3 && strings.HasPrefix(w, "--n") && strings.HasPrefix("--no-preserve-root", w)
}

var blockPrefixes = []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "mapper/", "md", "loop", "dm-", "mem", "kmem"}

func isBlockDev(w string) bool {
	w = strings.TrimPrefix(w, "of=")
	if !strings.HasPrefix(w, "/dev/") {
		if !strings.HasPrefix(w, "/") || !strings.Contains(w, "/dev/") {
			return false
		}
		w = path.Clean(w)
		if !strings.HasPrefix(w, "/dev/") {
			return false
		}
	}
	rest := w[len("/dev/"):]
	for _, p := range blockPrefixes {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	return false
}

var credPaths = []string{"/etc/passwd", "/etc/shadow", "/etc/gshadow", "/etc/master.passwd", "/etc/sudoers"}

func isCredPath(w string) bool {
	w = strings.TrimPrefix(w, "of=")
	if w == "" || w[0] != '/' {
		return false
	}
	p := asciiLower(path.Clean(w))
	p = strings.TrimPrefix(p, "/private")
	for _, c := range credPaths {
		if strings.HasPrefix(p, c) {
			return true
		}
	}
	return false
}

// diskTools and credTools are the registry's kinds disk_writer and
// credential_writer.
func diskTools(n string) bool { return hasKind(n, "disk_writer") }
func credTools(n string) bool { return hasKind(n, "credential_writer") }
func hasKind(n, kind string) bool {
	p := programs.Lookup(n)
	return p != nil && slices.Contains(p.Kinds, kind)
}

func isNcExecFlag(w string) bool {
	if strings.HasPrefix(w, "--") {
		return strings.HasPrefix(w, "--exec") || strings.HasPrefix(w, "--sh-exec") || strings.HasPrefix(w, "--lua-exec")
	}
	if len(w) < 2 || w[0] != '-' {
		return false
	}
	if w[1] == 'e' || w[1] == 'c' {
		return true
	}
	for k := 1; k < len(w); k++ {
		c := w[k]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false // -p4444 and the like: stop at the first non-letter
		}
		if c == 'e' || c == 'c' {
			return true
		}
	}
	return false
}

func isInPlaceFlag(w string) bool {
	if strings.HasPrefix(w, "--") {
		return strings.HasPrefix(w, "--in-place")
	}
	return len(w) >= 2 && w[0] == '-' && strings.IndexByte(w[1:], 'i') >= 0
}

// analyze applies the per-command checks to one simple command. Checks that
// relate a command name to later words run right to left with accumulated
// facts about the words after each position, so the whole pass is linear.
func (f *floorScan) analyze(words []string, cmd *cmdState) {
	var recAfter, chRecAfter, rmTargetAfter, sysTargetAfter, nprAfter, blkAfter, credAfter, inPlaceAfter, ncExecAfter, socatExecAfter bool
	for k := len(words) - 1; k >= 0; k-- {
		w := words[k]
		n := cmdName(w)
		switch {
		case n == "rm":
			if (recAfter && rmTargetAfter) || nprAfter {
				f.hit(floorRmRoot)
			}
		case n == "chmod" || n == "chown" || n == "chgrp":
			if chRecAfter && sysTargetAfter {
				f.hit(floorChmodRoot)
			}
		case n == "nc" || n == "ncat" || n == "netcat":
			if ncExecAfter {
				f.hit(floorReverseShell)
			}
		case n == "socat":
			if socatExecAfter {
				f.hit(floorReverseShell)
			}
		}
		if blkAfter && (diskTools(n) || strings.HasPrefix(n, "mkfs")) {
			f.hit(floorDiskWrite)
		}
		if credAfter {
			switch {
			case credTools(n):
				f.hit(floorSystemCredentials)
			case (n == "sed" || trimVersion(n) == "perl") && inPlaceAfter:
				f.hit(floorSystemCredentials)
			}
		}
		if strings.HasPrefix(w, "of=") {
			if isBlockDev(w) {
				f.hit(floorDiskWrite)
			}
			if isCredPath(w) {
				f.hit(floorSystemCredentials)
			}
		}
		// Facts about this word, for the words before it.
		if isRmRecursive(w) {
			recAfter = true
		}
		if isChmodRecursive(w) {
			chRecAfter = true
		}
		if isNoPreserveRoot(w) {
			nprAfter = true
		}
		if isSystemPath(w) {
			sysTargetAfter = true
			rmTargetAfter = true
		} else if isHomeTarget(w) {
			rmTargetAfter = true
		}
		if isBlockDev(w) {
			blkAfter = true
		}
		if isCredPath(w) {
			credAfter = true
		}
		if isInPlaceFlag(w) {
			inPlaceAfter = true
		}
		if isNcExecFlag(w) {
			ncExecAfter = true
		}
		if lw := asciiLower(w); strings.Contains(lw, "exec:") || strings.Contains(lw, "system:") {
			socatExecAfter = true
		}
	}
	if cmd.found && cmd.idx < len(words) {
		f.killInit(cmd.name, words[cmd.idx+1:])
	}
}

func (f *floorScan) killInit(name string, args []string) {
	switch name {
	case "shutdown", "reboot", "halt", "poweroff", "killall5":
		f.hit(floorKillInit)
	case "kill":
		sigDone := false
		for k := 0; k < len(args); k++ {
			a := args[k]
			if !sigDone && a == "--" {
				sigDone = true
				continue
			}
			if !sigDone && len(a) > 1 && a[0] == '-' {
				switch a {
				case "-l", "-L", "--list", "--table":
					return
				case "-s", "-n", "--signal":
					k++
				}
				sigDone = true
				continue
			}
			sigDone = true
			p := strings.TrimLeft(strings.TrimPrefix(a, "-"), "0")
			if p == "1" {
				f.hit(floorKillInit)
				return
			}
		}
	case "pkill", "killall":
		if killsInitByName(name, args) {
			f.hit(floorKillInit)
		}
	case "init", "telinit":
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			switch a {
			case "0", "1", "6", "s", "S":
				f.hit(floorKillInit)
			}
			return
		}
	case "systemctl":
		for _, a := range args {
			switch asciiLower(a) {
			case "poweroff", "reboot", "halt", "kexec", "soft-reboot",
				"poweroff.target", "reboot.target", "halt.target", "kexec.target":
				f.hit(floorKillInit)
				return
			}
		}
	case "launchctl":
		for _, a := range args {
			if asciiLower(a) == "reboot" {
				f.hit(floorKillInit)
				return
			}
		}
	}
}

// InitNames are the names PID 1 runs under, what pkill and killall search
// without -f; InitCmdlines its command lines, what pkill -f searches (the
// lists of policies/lib/kill.rego, which the Go mirror shares).
var (
	InitNames    = []string{"init", "systemd", "launchd"}
	InitCmdlines = []string{
		"init", "systemd", "launchd", "/sbin/launchd",
		"/sbin/init", "/sbin/init splash", "/sbin/init --system",
		"/lib/systemd/systemd", "/lib/systemd/systemd --system --deserialize 30",
		"/usr/lib/systemd/systemd", "/usr/lib/systemd/systemd --switched-root --system --deserialize 31",
	}
)

// killsInitByName: pkill's or killall's words could select PID 1, read the
// way floor.kill-init reads them, without the options' values: every word
// that is not an option is taken for a pattern (pkill, killall -r) or a
// name; pkill -v selects init. A word it cannot read is no hit here (the
// command asks anyway).
func killsInitByName(name string, args []string) bool {
	full, exact, regexp := false, false, name == "pkill"
	var words []string
	for _, a := range args {
		switch {
		case a == "--full":
			full = true
		case a == "--exact":
			exact = true
		case a == "--regexp":
			regexp = true
		case a == "--inverse":
			return name == "pkill"
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && a[0] == '-':
			full = full || strings.ContainsRune(a, 'f')
			exact = exact || strings.ContainsRune(a, 'x')
			regexp = regexp || strings.ContainsAny(a, "rm")
			if name == "pkill" && strings.ContainsRune(a, 'v') {
				return true
			}
		default:
			words = append(words, a)
		}
	}
	subjects := InitNames
	if full && name == "pkill" {
		subjects = InitCmdlines
	}
	for _, w := range words {
		if slices.Contains(InitCmdlines, asciiLower(w)) || regexp && ere.Finds(w, exact && name == "pkill", subjects) {
			return true
		}
	}
	return false
}
