package codescan

import (
	"path"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rivumi/rivumi/programs"
)

// Findings describes code in another language (python, node, perl, ruby, php, lua, ...)
type Findings struct {
	Literals    []string // string literals found in the code, unescaped best-effort, in order, deduplicated, each capped at 4096 bytes, at most 256 of them
	Spawns      bool     // the code can run programs: system, exec*, popen, spawn*, subprocess, child_process, os.system, Kernel.`, backticks in perl/ruby/php, shell_exec, passthru, proc_open, Runtime.exec, pty.spawn, IO.popen, Open3, %x{...}
	Destructive bool     // calls a file-destroying or overwriting API: rmtree, rm_rf, rm_r, remove_dir_all, rmSync, rmdirSync, unlinkSync, unlink, os.remove, os.removedirs, shutil.rmtree, FileUtils.rm*, File.delete, Path.unlink, truncate, writeFileSync/ write_text / open(..., 'w' or 'a'), chmod, chown
	Network     bool     // opens network connections: socket, connect, fsockopen, IO::Socket, TCPSocket, net.connect, net.Socket, http.request, urllib, requests., fetch(, XMLHttpRequest
	Dynamic     bool     // evaluates code built at run time: eval(, exec( of a string, Function(, compile(, __import__, importlib, instance_eval, class_eval, send(, base64 decode fed to exec

	// What the code certainly does, read from its calls with constant
	// arguments (see "Certain evidence" in [Scan]); the flags above are
	// heuristics over names, these are not.
	Commands []string // shell command lines run with constant arguments, argv lists shell-quoted and joined
	Destroys []string // constant paths deleted, moved away or overwritten (absolute or ~; relative ones only after a constant chdir)
	FetchRun bool     // evaluates, or runs as a command, data read from the network in the same expression or through a variable
	RevShell bool     // runs commands read from a socket, or wires file descriptors to stdio and spawns a shell in code that opens connections
}

// Scan inspects code written for the interpreter lang and reports its string
// literals and the dangerous capabilities it uses.
//
// lang is a language (python, node or js, perl, ruby, php, lua, pwsh,
// osascript) or an interpreter's basename, mapped to its language by the
// program registry (programs/programs.yaml: ipython is python, tsx is node,
// luajit is lua). It is matched case-insensitively after removing any
// directory, a ".exe" suffix and a trailing version ("python3.12" is
// python, "lua5.4" is lua):
//   - python: python, py, pypy, ipython …
//   - node (JavaScript): node, nodejs, deno, bun, ts-node, tsx, js …
//   - perl; ruby (irb, jruby); php (php-cgi, php-cli); lua (luajit); pwsh (powershell)
//   - osascript: AppleScript, or JavaScript for Automation (JXA) when the
//     code contains Application(, ObjC. or doShellScript
//   - anything else: a generic scan that applies the rules of every
//     language at once, except the PowerShell command-position aliases, lua's
//     bare load( and x.execute(, JS bare rm(, perl's do/require/&$ shapes,
//     PHP's )(, ]( and }( shapes and AppleScript's delete; it treats
//     backticks as command substitution and knows only '...', "..." and
//     `...` strings, each ending at the end of its line, and no comments.
//
// # Literals
//
// A lexer for the language finds '...' and "..." strings (decoding \n \t
// \r \a \b \f \v \0, \e (not in python), octal, \xHH, \x{H..}, \uHHHH,
// \u{H..}, python \UHHHHHHHH, lua \ddd and \z; unknown escapes keep their
// backslash in python, php, lua and AppleScript and lose it elsewhere;
// perl/ruby/php single quotes only decode \\ and \'), python triple quotes
// and r/b/f/u/t prefixes (raw strings are not decoded), JS template
// literals (text kept as written, ${...} included), perl q qq qw qx and
// ruby %q %Q %w %W %i %I %x %() (qw/%w words become separate literals),
// perl/ruby/php heredocs, lua long strings, PowerShell quoting (doubled
// quotes, backtick escapes, here-strings) and backtick strings in perl,
// ruby, php and the generic scan. Comments of the language (and perl POD,
// ruby =begin) are skipped, and so are JS, perl and ruby regex literals
// where an operand is expected. Literals are reported in order of
// appearance, deduplicated, empty ones omitted, each capped at 4096 bytes
// (cut on a rune boundary), at most 256 of them.
//
// # Flags
//
// The flags are computed on the whole text, strings and comments included,
// so a dangerous name that only appears inside a string or comment still
// counts (deliberately conservative: print "system ok" in perl is Spawns).
// Names are matched as whole identifiers: unlink does not match
// unlinked_list. Python (and generic) code is first folded from fullwidth
// and mathematical alphanumeric letters to ASCII, and JS (and generic)
// \uXXXX escapes are decoded, because both can spell identifiers. Every
// literal that contained escape sequences is decoded and scanned again as
// code of the same language, two levels deep, so "child\x5fprocess" is
// caught. Below, "name(" means the name followed by '(' (a call), "x.name"
// a name qualified by x through '.', '::', '->' or '?.', "'name'" the whole
// content of a string or a ruby :symbol (as passed to getattr, send, PHP
// callables), and "cmd form" a perl/ruby list-operator call without
// parentheses (system "ls", exec $c, system qw(...), unlink $f, chmod 0755,
// $f).
//
// Spawns: system( (not platform.system), os./posix./nt./Kernel./CORE::system,
// 'system', system in perl/ruby cmd form or after import/from (python);
// exec( and 'exec' (php), bare exec( (JS), exec in perl/ruby cmd form or
// call; spawn( and x.spawn for pty, PTY, Process, Bun, child_process, cp,
// os, spawn in perl/ruby cmd form; anywhere: execl execle execlp execlpe
// execv execve execvp execvpe fexecve posix_spawn posix_spawnp spawnl..
// spawnvpe spawnSync spawn_sync execSync execFile execFileSync forkpty popen
// popen2 popen3 popen4 proc_open shell_exec passthru pcntl_exec readpipe
// subprocess child_process Popen Open3 ProcessBuilder NSTask doShellScript
// create_subprocess_exec create_subprocess_shell getoutput
// getstatusoutput getRuntime execa shelljs; os.execute, 'execute' and lua
// x.execute(; os.startfile; Deno.run, Deno.Command; backticks anywhere in
// perl, ruby, php and the generic scan; $` (bun/zx shell) in JS; perl qx
// and ruby %x; a literal starting or ending with '|' shortly after open in
// the same statement (perl "-|", "ls |", ruby open("| cmd")); a literal
// child_process, subprocess, open3, pty, execa, shelljs or zx after
// require/import/from/use/load; AppleScript "do shell script";
// PowerShell Start-Process, Start-Job, Invoke-Command, Invoke-Item,
// Diagnostics, the & call operator and saps, cmd, bash, sh, wsl,
// powershell, pwsh in command position.
//
// Destructive: anywhere: rmtree rm_rf rm_r rm_f remove_dir_all remove_tree
// remove_file rmSync rmdirSync unlinkSync removeSync emptyDirSync
// writeFileSync appendFileSync writeFile appendFile writeTextFile
// writeTextFileSync write_text write_bytes createWriteStream
// file_put_contents copyFile copyFileSync cpSync renameSync truncateSync
// ftruncate ftruncateSync chmodSync chownSync lchown lchownSync fchmod
// fchmodSync fchown fchownSync lchmod removedirs O_WRONLY O_RDWR O_TRUNC
// O_CREAT O_APPEND; unlink, rmdir, truncate, chmod, chown and rename as
// calls, strings, perl/ruby cmd forms, or qualified by os, fs, fsp,
// promises, File, Path, Deno, posix, FileUtils, Dir or shutil; x.remove for
// os, FileUtils, Deno, fs, fse, fsp, promises; File/FileUtils/Dir/Files
// .delete; os.replace; shutil.move/copy/copy2/copyfile/copytree/chown;
// fs.rm, fsp.rm, promises.rm, FileUtils.rm, Deno.rm and bare rm( in JS;
// fs.cp; File/IO/Bun.write; FileUtils.rm*, remove*, mv*, move*, cp*,
// copy*, ln*, chmod*, chown* and install*; a mode string such as 'w', 'a',
// 'x', 'wb', 'r+' passed after a ',' or mode= to an open-like call (open, fopen,
// openSync, sysopen, popen, File.new ...) in the same statement, or as the
// first argument of x.open( (Path.open('w')); a literal starting with '>',
// '+<' or '+>' after open (perl); PowerShell Remove-Item, Clear-Content,
// Set-Content, Add-Content, Out-File, Move-Item, Rename-Item, Copy-Item,
// Format-Volume, Clear-Disk, Clear-RecycleBin and rm, del, erase, rd, ri,
// rmdir in command position; AppleScript delete and "empty (the) trash".
//
// Network: anywhere: socket Socket urllib urllib2 urllib3 aiohttp httplib
// httplib2 ftplib smtplib telnetlib poplib imaplib nntplib paramiko pycurl
// websocket websockets socketserver xmlrpc fsockopen pfsockopen
// stream_socket_client stream_socket_server curl_init curl_exec TCPSocket
// UDPSocket TCPServer UDPServer XMLHttpRequest WebSocket EventSource axios
// undici LWP createConnection createServer webbrowser gethostbyname
// getaddrinfo HttpClient WebClient TcpClient UdpClient HttpURLConnection
// URLSession Mechanize HTTParty Faraday RestClient HTTPServer
// HTTPConnection HTTPSConnection dgram connectTls open_connection
// start_server create_connection; requests and httpx followed by '.' or
// after import/from; bare fetch( and globalThis/window/self.fetch; connect(
// (not sqlite3/sqlite/duckdb/dbm/shelve.connect); listen(; http, https
// and http2 .request and .get; http.server, http.client; Bun/Deno.serve;
// HTTP::Tiny; URI.open; anything qualified by Net (Net::HTTP, Net.WebClient);
// a literal starting with http://, https://, ftp://, ws:// or wss://
// (conservative: printing a URL counts); a literal net, http, https,
// http2, dgram, tls, undici, node-fetch, socket, open-uri, net/http,
// net/https, net/ftp, socket.io-client or ws (optionally node:) after
// require/import/from/use/load; PowerShell Invoke-WebRequest,
// Invoke-RestMethod, DownloadString, DownloadFile, DownloadData,
// UploadString, Start-BitsTransfer and iwr, irm, curl, wget in command
// position; AppleScript "open location".
//
// Dynamic: eval (python: unqualified, so not model.eval(); perl: call,
// string or cmd form but not eval { }; elsewhere anywhere); python bare
// exec, bare compile(, getattr(, globals(, vars(; JS Function(, x.constructor(
// and 'constructor', vm.Script, require( or import( whose argument is not
// a single string literal, setTimeout/setInterval/setImmediate with a
// string, a computed member of global, globalThis, window, self or process
// (global['ev'+'al']); anywhere: __import__ importlib import_module
// __builtins__ builtins __dict__ __globals__ __subclasses__
// __getattribute__ __code__ instance_eval class_eval module_eval
// instance_exec class_exec module_exec create_function call_user_func
// call_user_func_array runInNewContext runInThisContext runInContext
// compileFunction loadstring dofile loadfile unsafe_load dlopen mainModule
// const_get ctypes cffi runpy load_source _compile _load; pickle, cPickle,
// marshal, dill, Marshal, jsonpickle, shelve .load/.loads; ruby send,
// public_send, __send__ (qualified, called or cmd form) and method(,
// instance_method(, public_method( without a literal argument; PHP
// assert(, $var(...), ...)(...), ...](...), ...}(...) and preg_replace with
// an /e pattern; perl &$ref, &{...}, s///ee, do $file/"file" and require
// $x; lua bare load(, _G[...], _ENV[...], rawget, getfenv, setfenv;
// PowerShell Invoke-Expression, ScriptBlock, Add-Type and iex in command
// position; AppleScript "run script" and "do JavaScript"; a base64
// decoder (b64decode, standard_b64decode, urlsafe_b64decode, b32decode,
// b16decode, a85decode, b85decode, decodebytes, decodestring, atob,
// decode_base64, base64_decode, decode64, strict_decode64,
// urlsafe_decode64, FromBase64String, or a "base64" literal) together with
// exec, eval, system, spawn, popen, Function, loadstring, iex, execSync,
// spawnSync, Popen, Invoke-Expression or any other Spawns or Dynamic
// finding; in python, any non-ASCII character in code outside strings and
// comments (identifiers are NFKC-normalised, so such characters can spell
// any name).
//
// Limitations: the flags are heuristics over names. Code that reaches a
// dangerous API through an alias held in a variable, without any of the
// Dynamic shapes above (for example a module object passed around under
// another name), is not recognised; Spawns/Destructive/Network say that a
// capability is used, not what it is used on. Literal extraction can
// mis-pair quotes in unusual code (the flags do not depend on it); callers
// must not treat an empty Literals as proof that no command string exists.
// Scan never panics and runs in time linear in len(code).
func Scan(lang, code string) Findings {
	sc := newScanner(lang, code)
	st := &scanState{seen: map[string]bool{}}
	sc.scan(code, 0, st)
	if sc.mask&mPwsh != 0 {
		pwshBareArgs(code, st)
	}
	f := st.f
	if st.b64 && (st.execWord || f.Spawns || f.Dynamic) {
		f.Dynamic = true
	}
	c := sc.certain(lang, code)
	f.Commands, f.Destroys, f.FetchRun = c.commands, c.destroys, c.fetchRun
	f.RevShell = c.revShell || f.Network && c.wiring && c.shellSpawned()
	return f
}

type langMask uint16

const (
	mPy langMask = 1 << iota
	mJS
	mPerl
	mRuby
	mPHP
	mLua
	mPwsh
	mOsa
	mGen
	mAll = mPy | mJS | mPerl | mRuby | mPHP | mLua | mPwsh | mOsa | mGen
)

type flagBit uint8

const (
	fS flagBit = 1 << iota // Spawns
	fD                     // Destructive
	fN                     // Network
	fY                     // Dynamic
)

type scanner struct {
	mask  langMask
	style *lexStyle
}

type scanState struct {
	f        Findings
	seen     map[string]bool
	b64      bool
	execWord bool
}

func (st *scanState) set(fl flagBit) {
	if fl&fS != 0 {
		st.f.Spawns = true
	}
	if fl&fD != 0 {
		st.f.Destructive = true
	}
	if fl&fN != 0 {
		st.f.Network = true
	}
	if fl&fY != 0 {
		st.f.Dynamic = true
	}
}

var (
	stylePy = &lexStyle{hashComment: true, singleOn: true, doubleOn: true, single: escKeep, double: escKeep,
		singleLine: true, pyPrefix: true, xIsRune: true, noEscE: true, bigU: true}
	styleJS = &lexStyle{slashComment: true, singleOn: true, doubleOn: true, single: escFull, double: escFull,
		backtick: 1, singleLine: true, regex: true, xIsRune: true}
	stylePerl = &lexStyle{hashComment: true, singleOn: true, doubleOn: true, single: escMinimal, double: escFull,
		backtick: 2, perlQuote: true, heredoc: 1, regex: true, pod: true}
	styleRuby = &lexStyle{hashComment: true, singleOn: true, doubleOn: true, single: escMinimal, double: escFull,
		backtick: 2, rubyPercent: true, heredoc: 1, regex: true, rubyInterp: true, rubyDoc: true}
	stylePHP = &lexStyle{hashComment: true, slashComment: true, singleOn: true, doubleOn: true, single: escMinimal,
		double: escKeep, backtick: 2, heredoc: 2, phpInterp: true}
	styleLua = &lexStyle{dashComment: true, luaLong: true, singleOn: true, doubleOn: true, single: escLua,
		double: escLua, singleLine: true}
	stylePwsh = &lexStyle{hashComment: true, pwshComment: true, singleOn: true, doubleOn: true,
		single: escPwshSingle, double: escPwsh, pwshHere: true, pwshInterp: true}
	styleOsa = &lexStyle{dashComment: true, osaComment: true, hashComment: true, doubleOn: true, double: escKeep}
	styleGen = &lexStyle{singleOn: true, doubleOn: true, single: escFull, double: escFull, backtick: 2,
		singleLine: true}
)

// langName normalises an interpreter name: basename, lower case, without
// ".exe" and without a trailing version number.
func langName(lang string) string {
	l := strings.ToLower(path.Base(strings.ReplaceAll(lang, `\`, "/")))
	l = strings.TrimSuffix(l, ".exe")
	l = strings.TrimRight(l, "0123456789.")
	return strings.TrimSuffix(l, "-")
}

// HasScanner reports whether lang has a scanner of its own; code in any
// other language gets the generic scan, which cannot tell a string that is
// run from one that is printed.
func HasScanner(lang string) bool {
	return newScanner(lang, "").mask != mGen
}

// language maps an interpreter's name to its language by the program
// registry (ipython is python, tsx is node); a language name maps to itself.
func language(lang string) string {
	l := langName(lang)
	if p := programs.Lookup(l); p != nil && p.Language != "" {
		return p.Language
	}
	if p := programs.Lookup(strings.ToLower(path.Base(strings.ReplaceAll(lang, `\`, "/")))); p != nil && p.Language != "" {
		return p.Language // a versioned name: python3.12
	}
	return l
}

func newScanner(lang, code string) *scanner {
	switch language(lang) {
	case "python":
		return &scanner{mask: mPy, style: stylePy}
	case "node", "js":
		return &scanner{mask: mJS, style: styleJS}
	case "perl":
		return &scanner{mask: mPerl, style: stylePerl}
	case "ruby":
		return &scanner{mask: mRuby, style: styleRuby}
	case "php":
		return &scanner{mask: mPHP, style: stylePHP}
	case "lua":
		return &scanner{mask: mLua, style: styleLua}
	case "pwsh":
		return &scanner{mask: mPwsh, style: stylePwsh}
	case "osascript":
		if strings.Contains(code, "Application(") || strings.Contains(code, "ObjC.") ||
			strings.Contains(code, "doShellScript") {
			return &scanner{mask: mOsa | mJS, style: styleJS}
		}
		return &scanner{mask: mOsa, style: styleOsa}
	}
	return &scanner{mask: mGen, style: styleGen}
}

const maxDepth = 2

func (sc *scanner) scan(code string, depth int, st *scanState) {
	lx := lexer{src: code, st: sc.style}
	lx.emit = func(l lit) { sc.literal(code, l, depth, st) }
	lx.run()
	if lx.dynamic {
		st.set(fY)
	}
	if lx.nonASCII && sc.mask&mPy != 0 && depth == 0 {
		st.set(fY)
	}
	t := code
	if sc.mask&(mPy|mGen) != 0 {
		t = foldCompat(t)
	}
	if sc.mask&(mJS|mGen) != 0 && strings.Contains(t, `\u`) {
		t = decodeUnicodeEscapes(t)
	}
	sc.words(t, st)
}

// literal records one literal and applies the literal-based checks.
func (sc *scanner) literal(src string, l lit, depth int, st *scanState) {
	v := l.val
	if depth == 0 && v != "" && len(st.f.Literals) < maxLiterals {
		out := capString(v)
		if !st.seen[out] {
			st.seen[out] = true
			st.f.Literals = append(st.f.Literals, out)
		}
	}
	if l.cmd {
		st.set(fS)
	}
	if v == "" {
		return
	}
	if hasURLScheme(v) {
		st.set(fN)
	}
	if len(v) <= 32 {
		if strings.EqualFold(v, "base64") {
			st.b64 = true
		}
		if moduleContext(src, l.start) {
			name := strings.TrimPrefix(strings.ToLower(v), "node:")
			switch name {
			case "net", "http", "https", "http2", "dgram", "tls", "undici", "node-fetch", "socket",
				"open-uri", "net/http", "net/https", "net/ftp", "socket.io-client", "ws":
				st.set(fN)
			case "child_process", "subprocess", "open3", "pty", "execa", "shelljs", "zx":
				st.set(fS)
			}
		}
		if !st.f.Destructive && isWriteMode(v) && modeContext(src, l.start) {
			st.set(fD)
		}
	}
	tv := strings.TrimSpace(v)
	if sc.mask&(mPerl|mRuby|mGen) != 0 && !st.f.Spawns &&
		(strings.HasPrefix(tv, "|") || strings.HasSuffix(tv, "|")) && openBefore(src, l.start) {
		st.set(fS)
	}
	if sc.mask&(mPerl|mGen) != 0 && !st.f.Destructive &&
		(strings.HasPrefix(tv, ">") || strings.HasPrefix(tv, "+<") || strings.HasPrefix(tv, "+>")) &&
		openBefore(src, l.start) {
		st.set(fD)
	}
	if sc.mask&(mPHP|mGen) != 0 && pregEval(v) && moduleCall(src, l.start, "preg_replace") {
		st.set(fY)
	}
	if l.changed && depth < maxDepth {
		sc.scan(v, depth+1, st)
	}
}

// pregEval reports whether v is a PCRE pattern with the e modifier, as in
// '/x/e' (PHP < 7 evaluates the replacement as code).
func pregEval(v string) bool {
	if len(v) < 3 {
		return false
	}
	d := v[0]
	if isAlnum(d) || d == '\\' || isSpaceByte(d) {
		return false
	}
	cl := closingOf(d)
	k := strings.LastIndexByte(v, cl)
	if k <= 0 {
		return false
	}
	mods := v[k+1:]
	for i := 0; i < len(mods); i++ {
		if !isAlnum(mods[i]) {
			return false
		}
	}
	return strings.IndexByte(mods, 'e') >= 0
}

// moduleCall reports whether the literal at start is the first argument of
// a call to name.
func moduleCall(src string, start int, name string) bool {
	k := skipSpaceBack(src, start)
	if k == 0 || src[k-1] != '(' {
		return false
	}
	return identBefore(src, skipSpaceBack(src, k-1)) == name
}

func hasURLScheme(v string) bool {
	if len(v) < 6 {
		return false
	}
	p := v
	if len(p) > 8 {
		p = p[:8]
	}
	p = strings.ToLower(p)
	for _, s := range []string{"http://", "https://", "ftp://", "ws://", "wss://"} {
		if strings.HasPrefix(p, s) {
			return true
		}
	}
	return false
}

// isWriteMode reports whether v looks like an fopen-style mode that writes.
func isWriteMode(v string) bool {
	if len(v) == 0 || len(v) > 4 {
		return false
	}
	w := false
	for k := 0; k < len(v); k++ {
		switch v[k] {
		case 'w', 'a', 'x', '+':
			w = true
		case 'r', 'b', 't', 'U':
		default:
			return false
		}
	}
	return w
}

func skipSpaceBack(s string, k int) int {
	for k > 0 && isSpaceByte(s[k-1]) {
		k--
	}
	return k
}

// identBefore returns the identifier ending at k (exclusive), if any.
func identBefore(s string, k int) string {
	e := k
	for k > 0 && isIdentChar(s[k-1]) {
		k--
	}
	return s[k:e]
}

// moduleContext reports whether the literal starting at start is the
// argument of require/import/from/use/load.
func moduleContext(src string, start int) bool {
	k := skipSpaceBack(src, start)
	if k > 0 && src[k-1] == '(' {
		k = skipSpaceBack(src, k-1)
	}
	switch identBefore(src, k) {
	case "require", "import", "from", "require_relative", "use", "load", "__import__", "import_module":
		return true
	}
	return false
}

// modeContext reports whether a mode-like literal at start is passed as a
// later argument of an open-like call.
func modeContext(src string, start int) bool {
	k := skipSpaceBack(src, start)
	if k == 0 {
		return false
	}
	switch src[k-1] {
	case ',', '=':
		return openBefore(src, start)
	case '(':
		k = skipSpaceBack(src, k-1)
		if identBefore(src, k) == "open" {
			_, dotted := qualifier(src, k-len("open"))
			return dotted
		}
	}
	return false
}

// openBefore reports whether an open-like call appears shortly before start
// in the same statement.
func openBefore(src string, start int) bool {
	lo := start - 256
	if lo < 0 {
		lo = 0
	}
	w := src[lo:start]
	if k := strings.LastIndexAny(w, ";\n"); k >= 0 {
		w = w[k+1:]
	}
	for _, name := range []string{"open", "fopen", "openSync", "sysopen", "new", "popen", "open3"} {
		if containsWord(w, name) {
			return true
		}
	}
	return false
}

// containsWord reports whether w occurs in s as a whole identifier.
func containsWord(s, w string) bool {
	for off := 0; off < len(s); {
		k := strings.Index(s[off:], w)
		if k < 0 {
			return false
		}
		a := off + k
		b := a + len(w)
		if (a == 0 || !isIdentChar(s[a-1])) && (b == len(s) || !isIdentChar(s[b])) {
			return true
		}
		off = a + 1
	}
	return false
}

// qualifier returns the identifier qualifying the word starting at i (the
// "os" of "os.system", "os . system", "Net::HTTP", "$x->y", "a?.b") and
// whether a qualifier separator is present at all.
func qualifier(t string, i int) (string, bool) {
	k := i
	for k > 0 && (t[k-1] == ' ' || t[k-1] == '\t') {
		k--
	}
	switch {
	case k > 0 && t[k-1] == '.':
		k--
		if k > 0 && t[k-1] == '?' {
			k--
		}
	case k > 1 && t[k-2] == ':' && t[k-1] == ':':
		k -= 2
	case k > 1 && t[k-2] == '-' && t[k-1] == '>':
		k -= 2
	default:
		return "", false
	}
	for k > 0 && (t[k-1] == ' ' || t[k-1] == '\t') {
		k--
	}
	return identBefore(t, k), true
}

// nextNonSpace returns the offset of the first non-whitespace byte at or
// after j (len(t) if none).
func nextNonSpace(t string, j int) int {
	for j < len(t) && isSpaceByte(t[j]) {
		j++
	}
	return j
}

type cond uint16

const (
	cAny        cond = 1 << iota
	cCall            // followed by '('
	cBareCall        // followed by '(' and not qualified
	cQual            // qualified by one of rule.quals
	cDotted          // qualified by anything
	cQuoted          // the whole content of a quoted string, or a :symbol
	cCmd             // perl/ruby command form: followed by an argument
	cCmdNoBrace      // like cCmd, but not followed by '{' (perl eval BLOCK)
	cMember          // followed by '.'
	cImport          // after import/from/require or ','
	cDottedCall      // qualified and followed by '('
	cBare            // not qualified
)

type rule struct {
	flag  flagBit
	mask  langMask
	cond  cond
	quals []string
	not   []string
}

// rules and ciRules are filled on first use (rulesOnce, loadRules) and
// read through ruleTable and ciRuleTable: building them at initialisation
// would cost every rivumi process, most of which scan no code.
var rules = map[string][]rule{}

type ciRule struct {
	flag   flagBit
	mask   langMask
	cmdPos bool
}

var ciRules = map[string][]ciRule{}

func addRule(words string, flag flagBit, mask langMask, c cond, quals, not []string) {
	for _, w := range strings.Fields(words) {
		rules[w] = append(rules[w], rule{flag: flag, mask: mask, cond: c, quals: quals, not: not})
	}
}

func addCI(words string, flag flagBit, mask langMask, cmdPos bool) {
	for _, w := range strings.Fields(words) {
		ciRules[w] = append(ciRules[w], ciRule{flag: flag, mask: mask, cmdPos: cmdPos})
	}
}

func q(s string) []string { return strings.Fields(s) }

const mPerlRuby = mPerl | mRuby | mGen

var rulesOnce sync.Once

// ruleTable returns rules, filled.
func ruleTable() map[string][]rule {
	rulesOnce.Do(loadRules)
	return rules
}

// ciRuleTable returns ciRules, filled.
func ciRuleTable() map[string][]ciRule {
	rulesOnce.Do(loadRules)
	return ciRules
}

// loadRules fills rules and ciRules (once, through rulesOnce).
func loadRules() {
	// ---- Spawns ----
	addRule("system", fS, mAll, cCall|cQuoted|cQual, q("os posix nt Kernel CORE POSIX"), q("platform"))
	addRule("system", fS, mPerlRuby, cCmd, nil, q("platform"))
	addRule("system", fS, mPy|mGen, cImport, nil, nil)
	addRule("exec", fS, mJS|mGen, cBareCall, nil, nil)
	addRule("exec", fS, mPerlRuby, cCmd|cCall|cQuoted|cQual, q("Kernel Process CORE POSIX"), nil)
	addRule("exec", fS, mPHP|mGen, cCall|cQuoted, nil, nil)
	addRule("execl execle execlp execlpe execv execve execvp execvpe fexecve posix_spawn posix_spawnp "+
		"spawnl spawnle spawnlp spawnlpe spawnv spawnve spawnvp spawnvpe spawnSync spawn_sync execSync "+
		"execFile execFileSync forkpty popen popen2 popen3 popen4 proc_open shell_exec passthru pcntl_exec "+
		"readpipe subprocess child_process Popen Open3 ProcessBuilder NSTask doShellScript "+
		"create_subprocess_exec create_subprocess_shell getoutput getstatusoutput getRuntime execa shelljs",
		fS, mAll, cAny, nil, nil)
	addRule("spawn", fS, mAll, cCall|cQual, q("pty PTY Process Bun child_process cp os"), nil)
	addRule("spawn", fS, mPerlRuby, cCmd, nil, nil)
	addRule("execute", fS, mAll, cQual|cQuoted, q("os"), nil)
	addRule("execute", fS, mLua, cDottedCall, nil, nil)
	addRule("startfile", fS, mAll, cQual, q("os"), nil)
	addRule("run Command", fS, mAll, cQual, q("Deno"), nil)

	// ---- Destructive ----
	addRule("rmtree rm_rf rm_r rm_f remove_dir_all remove_tree remove_file rmSync rmdirSync unlinkSync "+
		"removeSync emptyDirSync writeFileSync appendFileSync writeFile appendFile writeTextFile "+
		"writeTextFileSync write_text write_bytes createWriteStream file_put_contents copyFileSync cpSync "+
		"renameSync truncateSync ftruncateSync ftruncate chmodSync chownSync lchown lchownSync fchmod "+
		"fchmodSync fchown fchownSync lchmod removedirs copyFile O_WRONLY O_RDWR O_TRUNC O_CREAT O_APPEND",
		fD, mAll, cAny, nil, nil)
	addRule("unlink rmdir truncate chmod chown rename", fD, mAll, cCall|cQual|cQuoted,
		q("os fs fsp promises File Path Deno posix FileUtils Dir shutil"), nil)
	addRule("unlink rmdir truncate chmod chown rename", fD, mPerlRuby, cCmd, nil, nil)
	addRule("remove", fD, mAll, cQual, q("os FileUtils Deno fs fse fsp promises"), nil)
	addRule("delete", fD, mAll, cQual, q("File FileUtils Dir Files"), nil)
	addRule("replace", fD, mAll, cQual, q("os"), nil)
	addRule("move copy copy2 copyfile copytree chown", fD, mAll, cQual, q("shutil"), nil)
	addRule("rm", fD, mAll, cQual, q("fs fsp promises FileUtils Deno"), nil)
	addRule("rm", fD, mJS, cBareCall, nil, nil)
	addRule("cp", fD, mAll, cQual, q("fs fsp promises"), nil)
	addRule("write", fD, mAll, cQual, q("File IO Bun"), nil)

	// ---- Network ----
	addRule("urllib urllib2 urllib3 aiohttp httplib httplib2 ftplib smtplib telnetlib poplib imaplib "+
		"nntplib paramiko pycurl websocket websockets socketserver xmlrpc fsockopen pfsockopen "+
		"stream_socket_client stream_socket_server curl_init curl_exec TCPSocket UDPSocket TCPServer "+
		"UDPServer XMLHttpRequest WebSocket EventSource axios undici LWP createConnection createServer "+
		"socket Socket webbrowser gethostbyname getaddrinfo HttpClient WebClient TcpClient UdpClient "+
		"HttpURLConnection URLSession Mechanize HTTParty Faraday RestClient HTTPServer dgram connectTls "+
		"HTTPConnection HTTPSConnection open_connection start_server create_connection",
		fN, mAll, cAny, nil, nil)
	addRule("requests httpx", fN, mAll, cMember|cImport, nil, nil)
	addRule("fetch", fN, mAll, cBareCall|cQual, q("globalThis window self"), nil)
	addRule("connect", fN, mAll, cCall, nil, q("sqlite3 sqlite duckdb dbm shelve"))
	addRule("listen", fN, mAll, cCall, nil, nil)
	addRule("request get", fN, mAll, cQual, q("http https http2"), nil)
	addRule("server client", fN, mAll, cQual, q("http"), nil)
	addRule("serve", fN, mAll, cQual, q("Bun Deno"), nil)
	addRule("Tiny", fN, mAll, cQual, q("HTTP"), nil)
	addRule("open", fN, mAll, cQual, q("URI"), nil)

	// ---- Dynamic ----
	addRule("eval", fY, mPy, cBare|cQuoted, nil, nil) // not model.eval()
	addRule("eval", fY, mAll&^(mPy|mPerl), cAny, nil, nil)
	addRule("eval", fY, mPerl, cCall|cQuoted|cCmdNoBrace, nil, nil) // not eval { ... }
	addRule("exec", fY, mPy, cBare, nil, nil)
	addRule("exec", fY, mGen, cBareCall, nil, nil)
	addRule("compile", fY, mPy|mGen, cBareCall, nil, nil)
	addRule("getattr globals vars", fY, mPy|mGen, cCall, nil, nil)
	addRule("Function", fY, mJS|mGen, cCall, nil, nil)
	addRule("constructor", fY, mJS|mGen, cDottedCall|cQuoted, nil, nil)
	addRule("Script", fY, mAll, cQual, q("vm"), nil)
	addRule("__import__ importlib import_module __builtins__ builtins __dict__ __globals__ __subclasses__ "+
		"__getattribute__ __code__ instance_eval class_eval module_eval instance_exec class_exec module_exec "+
		"create_function call_user_func call_user_func_array runInNewContext runInThisContext runInContext "+
		"compileFunction loadstring dofile loadfile unsafe_load dlopen mainModule const_get ctypes cffi runpy "+
		"load_source _compile _load",
		fY, mAll, cAny, nil, nil)
	addRule("loads load", fY, mAll, cQual, q("pickle cPickle marshal dill Marshal jsonpickle shelve"), nil)
	addRule("load", fY, mLua, cBareCall, nil, nil)
	addRule("send public_send __send__", fY, mRuby|mGen, cDotted|cCall|cCmd, nil, nil)
	addRule("assert", fY, mPHP|mGen, cCall, nil, nil)

	// ---- case-insensitive: PowerShell and AppleScript ----
	addCI("start-process start-job invoke-command invoke-item diagnostics", fS, mPwsh|mGen, false)
	addCI("saps cmd bash sh wsl powershell pwsh", fS, mPwsh, true)
	addCI("remove-item clear-content set-content add-content out-file move-item rename-item copy-item "+
		"format-volume clear-disk clear-recyclebin", fD, mPwsh|mGen, false)
	addCI("rm del erase rd ri rmdir", fD, mPwsh, true)
	addCI("invoke-webrequest invoke-restmethod downloadstring downloadfile downloaddata uploadstring "+
		"start-bitstransfer", fN, mPwsh|mGen, false)
	addCI("iwr irm curl wget", fN, mPwsh, true)
	addCI("invoke-expression scriptblock add-type", fY, mPwsh|mGen, false)
	addCI("iex", fY, mPwsh, true)
	addCI("doshellscript", fS, mOsa|mGen, false)
	addCI("delete", fD, mOsa, false)
}

var b64Words = map[string]bool{
	"b64decode": true, "standard_b64decode": true, "urlsafe_b64decode": true, "b32decode": true,
	"b16decode": true, "a85decode": true, "b85decode": true, "decodebytes": true, "decodestring": true,
	"atob": true, "decode_base64": true, "base64_decode": true, "decode64": true, "strict_decode64": true,
	"urlsafe_decode64": true, "FromBase64String": true, "frombase64string": true,
}

// execWords are names that, next to a base64 decoder, suggest that decoded
// data is executed.
var execWords = map[string]bool{
	"exec": true, "eval": true, "system": true, "spawn": true, "popen": true, "Function": true,
	"loadstring": true, "iex": true, "execSync": true, "spawnSync": true, "Popen": true,
}

func isQuoteByte(b byte) bool { return b == '\'' || b == '"' || b == '`' }

// words walks the identifiers of t and applies the rules.
func (sc *scanner) words(t string, st *scanState) {
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case isIdentStart(c):
			j := i + 1
			for j < len(t) && isIdentChar(t[j]) {
				j++
			}
			sc.word(t, i, j, st)
			i = j
			continue
		case isDigit(c):
			for i < len(t) && isIdentChar(t[i]) {
				i++
			}
			continue
		case c == '`':
			if sc.mask&(mPerl|mRuby|mPHP|mGen) != 0 {
				st.set(fS)
			}
			if sc.mask&mJS != 0 && i > 0 && t[i-1] == '$' {
				st.set(fS)
			}
		case c == '%':
			// ruby %x(...)
			if sc.mask&(mRuby|mGen) != 0 && i+2 < len(t) && t[i+1] == 'x' {
				d := t[i+2]
				if !isAlnum(d) && !isSpaceByte(d) && d < 0x80 && d != '=' && !(sc.mask&mRuby == 0 && isQuoteByte(d)) {
					st.set(fS)
				}
			}
		case c == '$':
			// PHP variable functions: $f(...)
			if sc.mask&(mPHP|mGen) != 0 {
				j := i + 1
				for j < len(t) && isIdentChar(t[j]) {
					j++
				}
				if j > i+1 {
					if k := nextNonSpace(t, j); k < len(t) && t[k] == '(' {
						st.set(fY)
					}
				}
			}
		case c == ')' || c == ']' || c == '}':
			if sc.mask&mPHP != 0 {
				if k := nextNonSpace(t, i+1); k < len(t) && t[k] == '(' {
					st.set(fY)
				}
			}
		case c == '&':
			if sc.mask&mPerl != 0 && i+1 < len(t) && (t[i+1] == '$' || t[i+1] == '{') && (i == 0 || t[i-1] != '&') {
				st.set(fY)
			}
			if sc.mask&mPwsh != 0 && (i+1 >= len(t) || t[i+1] != '&') && (i == 0 || t[i-1] != '&') && cmdPosition(t, i) {
				if k := nextNonSpace(t, i+1); k < len(t) && (isQuoteByte(t[k]) || t[k] == '$' || t[k] == '(' || isIdentStart(t[k])) {
					st.set(fS)
				}
			}
		}
		i++
	}
}

// literalArg reports whether the call whose '(' is at open has a single
// string literal or :symbol as its (first) argument.
func literalArg(t string, open int) bool {
	k := nextNonSpace(t, open+1)
	if k >= len(t) {
		return false
	}
	switch q := t[k]; {
	case isQuoteByte(q):
		k++
		for k < len(t) && t[k] != q {
			if t[k] == '\\' {
				k++
			}
			k++
		}
		k++
	case q == ':':
		k++
		for k < len(t) && isIdentChar(t[k]) {
			k++
		}
	default:
		return false
	}
	k = nextNonSpace(t, k)
	return k < len(t) && (t[k] == ')' || t[k] == ',')
}

// cmdPosition reports whether offset i starts a command (PowerShell).
func cmdPosition(t string, i int) bool {
	k := i
	for k > 0 && (t[k-1] == ' ' || t[k-1] == '\t') {
		k--
	}
	if k == 0 {
		return true
	}
	switch t[k-1] {
	case ';', '|', '{', '(', '&', '\n', '\r', '=':
		return true
	}
	return false
}

func asciiLower(w string) string {
	for k := 0; k < len(w); k++ {
		if w[k] >= 'A' && w[k] <= 'Z' {
			return strings.ToLower(w)
		}
	}
	return w
}

// word applies the rules to the identifier t[i:j].
func (sc *scanner) word(t string, i, j int, st *scanState) {
	w := t[i:j]
	if execWords[w] {
		st.execWord = true
	}
	if b64Words[w] {
		st.b64 = true
	}
	qual, dotted := qualifier(t, i)
	nn := nextNonSpace(t, j)
	if rs, ok := ruleTable()[w]; ok {
		for k := range rs {
			r := &rs[k]
			if r.mask&sc.mask != 0 && sc.match(t, i, j, r, qual, dotted, nn) {
				st.set(r.flag)
			}
		}
	}
	if dotted {
		switch qual {
		case "Net":
			st.set(fN)
		case "FileUtils":
			for _, p := range []string{"rm", "remove", "mv", "move", "cp", "copy", "ln", "chmod", "chown", "install"} {
				if strings.HasPrefix(w, p) {
					st.set(fD)
				}
			}
		}
	}
	if sc.mask&(mJS|mGen) != 0 {
		switch w {
		case "require", "import":
			if nn < len(t) && t[nn] == '(' && !literalArg(t, nn) {
				st.set(fY) // require(name), require("a" + "b")
			}
		case "global", "globalThis", "window", "self", "process":
			if nn < len(t) && t[nn] == '[' {
				st.set(fY) // computed member of the global object
			}
		case "setTimeout", "setInterval", "setImmediate":
			if nn < len(t) && t[nn] == '(' {
				if k := nextNonSpace(t, nn+1); k < len(t) && isQuoteByte(t[k]) {
					st.set(fY)
				}
			}
		}
	}
	if sc.mask&(mRuby|mGen) != 0 && (w == "method" || w == "instance_method" || w == "public_method") &&
		nn < len(t) && t[nn] == '(' && !literalArg(t, nn) {
		st.set(fY) // method("sys" + "tem")
	}
	if sc.mask&(mLua|mGen) != 0 {
		switch w {
		case "_G", "_ENV":
			if nn < len(t) && t[nn] == '[' {
				st.set(fY)
			}
		case "rawget", "getfenv", "setfenv":
			st.set(fY)
		}
	}
	if sc.mask&mPerl != 0 && (w == "do" || w == "require") && nn < len(t) && !dotted {
		if c := t[nn]; c == '$' || isQuoteByte(c) {
			st.set(fY) // do FILE / require $x: runs code chosen at run time
		}
	}
	if sc.mask&(mPwsh|mOsa|mGen) != 0 {
		sc.ciWord(t, i, j, w, st)
	}
}

func (sc *scanner) ciWord(t string, i, j int, w string, st *scanState) {
	lw := asciiLower(w)
	if execWords[lw] || lw == "invoke-expression" {
		st.execWord = true
	}
	if lw == "frombase64string" {
		st.b64 = true
	}
	apply := func(key string) {
		for _, r := range ciRuleTable()[key] {
			if r.mask&sc.mask != 0 && (!r.cmdPos || cmdPosition(t, i)) {
				st.set(r.flag)
			}
		}
	}
	apply(lw)
	// PowerShell Verb-Noun names.
	if j+1 < len(t) && t[j] == '-' && isIdentStart(t[j+1]) {
		k := j + 1
		for k < len(t) && isIdentChar(t[k]) {
			k++
		}
		compound := lw + "-" + asciiLower(t[j+1:k])
		if compound == "invoke-expression" {
			st.execWord = true
		}
		apply(compound)
	}
	if sc.mask&(mOsa|mGen) != 0 {
		switch lw {
		case "do":
			n1, e1 := nextWord(t, j)
			switch n1 {
			case "shell":
				if n2, _ := nextWord(t, e1); n2 == "script" {
					st.set(fS)
				}
			case "javascript":
				st.set(fY)
			}
		case "run":
			if n1, _ := nextWord(t, j); n1 == "script" {
				st.set(fY)
				st.execWord = true
			}
		case "open":
			if n1, _ := nextWord(t, j); n1 == "location" {
				st.set(fN)
			}
		case "empty":
			n1, e1 := nextWord(t, j)
			if n1 == "the" {
				n1, _ = nextWord(t, e1)
			}
			if n1 == "trash" {
				st.set(fD)
			}
		}
	}
}

// nextWord returns the lower-cased identifier following t[j:] after spaces
// and tabs, and its end offset.
func nextWord(t string, j int) (string, int) {
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	k := j
	for k < len(t) && isIdentChar(t[k]) {
		k++
	}
	return asciiLower(t[j:k]), k
}

var cmdStopWords = map[string]bool{
	"if": true, "unless": true, "and": true, "or": true, "not": true, "while": true, "until": true,
	"eq": true, "ne": true, "lt": true, "gt": true, "le": true, "ge": true, "cmp": true, "do": true,
	"then": true, "x": true, "for": true, "foreach": true, "in": true,
}

func (sc *scanner) match(t string, i, j int, r *rule, qual string, dotted bool, nn int) bool {
	if dotted {
		for _, n := range r.not {
			if qual == n {
				return false
			}
		}
	}
	c := r.cond
	if c&cAny != 0 {
		return true
	}
	call := nn < len(t) && t[nn] == '('
	if c&cCall != 0 && call {
		return true
	}
	if c&cBareCall != 0 && call && !dotted {
		return true
	}
	if c&cDotted != 0 && dotted {
		return true
	}
	if c&cDottedCall != 0 && dotted && call {
		return true
	}
	if c&cBare != 0 && !dotted {
		return true
	}
	if c&cQual != 0 && dotted {
		for _, qq := range r.quals {
			if qual == qq {
				return true
			}
		}
	}
	if c&cQuoted != 0 {
		if i > 0 && j < len(t) && isQuoteByte(t[i-1]) && t[j] == t[i-1] {
			return true
		}
		if sc.mask&(mRuby|mGen) != 0 && i > 0 && t[i-1] == ':' && (i < 2 || t[i-2] != ':') {
			return true
		}
	}
	if c&cMember != 0 && nn < len(t) && t[nn] == '.' {
		return true
	}
	if c&cImport != 0 {
		k := skipSpaceBack(t, i)
		if k > 0 && t[k-1] == ',' {
			return true
		}
		switch identBefore(t, k) {
		case "import", "from", "require":
			return true
		}
	}
	if c&(cCmd|cCmdNoBrace) != 0 && cmdForm(t, i, j, c&cCmdNoBrace != 0) {
		return true
	}
	return false
}

// cmdForm reports whether the word t[i:j] is used like a perl/ruby list
// operator: system "ls", exec $cmd, system qw(...), exec { $p } @args.
func cmdForm(t string, i, j int, noBrace bool) bool {
	if i > 0 {
		switch t[i-1] {
		case '$', '@', '%', '&', '*':
			return false
		}
	}
	k := j
	for k < len(t) && (t[k] == ' ' || t[k] == '\t') {
		k++
	}
	if k >= len(t) {
		return false
	}
	n := t[k]
	if noBrace && n == '{' {
		return false
	}
	if k == j {
		// No space: only a quote or a brace can follow directly.
		return isQuoteByte(n) || n == '{'
	}
	switch {
	case isQuoteByte(n), isDigit(n), n == '$', n == '@', n == '{', n == '[', n == '(', n == '%', n == ':':
		return true
	case isIdentStart(n):
		e := k
		for e < len(t) && isIdentChar(t[e]) {
			e++
		}
		return !cmdStopWords[t[k:e]]
	}
	return false
}

// foldCompat maps fullwidth ASCII and mathematical alphanumeric symbols to
// ASCII, the most common ways to spell an identifier that python's NFKC
// normalisation turns back into a plain name. Other bytes are kept.
func foldCompat(s string) string {
	ascii := true
	for k := 0; k < len(s); k++ {
		if s[k] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	b := make([]byte, 0, len(s))
	for k := 0; k < len(s); {
		if s[k] < 0x80 {
			b = append(b, s[k])
			k++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[k:])
		if r == utf8.RuneError && n <= 1 {
			b = append(b, s[k])
			k++
			continue
		}
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			b = append(b, byte(r-0xFEE0))
		case r >= 0x1D400 && r <= 0x1D6A3:
			idx := (r - 0x1D400) % 52
			if idx < 26 {
				b = append(b, byte('A'+idx))
			} else {
				b = append(b, byte('a'+idx-26))
			}
		case r >= 0x1D7CE && r <= 0x1D7FF:
			b = append(b, byte('0'+(r-0x1D7CE)%10))
		default:
			b = append(b, s[k:k+n]...)
		}
		k += n
	}
	return string(b)
}

// decodeUnicodeEscapes replaces \uHHHH and \u{H..} everywhere (JS allows
// them in identifiers: \u0065val is eval).
func decodeUnicodeEscapes(s string) string {
	b := make([]byte, 0, len(s))
	for k := 0; k < len(s); {
		if s[k] == '\\' && k+1 < len(s) && s[k+1] == 'u' {
			if r, n, ok := braceHex(s[k+2:]); ok {
				b = utf8.AppendRune(b, r)
				k += 2 + n
				continue
			}
			if v, n := hexDigits(s[k+2:], 4); n == 4 {
				b = utf8.AppendRune(b, rune(v))
				k += 6
				continue
			}
		}
		b = append(b, s[k])
		k++
	}
	return string(b)
}

// pwshBareArgs adds PowerShell's unquoted path arguments as literals: in
// command mode a bare word is a string (Remove-Item -Recurse -Force /).
// Only words that look like paths are kept: /, ~, a drive (C:\), $HOME,
// $env:….
func pwshBareArgs(code string, st *scanState) {
	for _, w := range strings.FieldsFunc(code, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == ';' || r == '|' || r == '(' || r == ')' || r == '{' || r == '}' || r == ','
	}) {
		if len(st.f.Literals) >= maxLiterals {
			return
		}
		if w == "" || strings.ContainsAny(w[:1], "'\"-`@") {
			continue
		}
		lw := strings.ToLower(w)
		path := w[0] == '/' || w[0] == '~' || w[0] == '\\' || strings.HasPrefix(lw, "$home") || strings.HasPrefix(lw, "$env:") ||
			len(w) >= 3 && (w[1] == ':' && (w[2] == '\\' || w[2] == '/'))
		if !path {
			continue
		}
		if strings.HasPrefix(lw, "$home") {
			w = "~" + w[len("$home"):]
		}
		w = strings.ReplaceAll(w, `\`, "/")
		if !st.seen[w] {
			st.seen[w] = true
			st.f.Literals = append(st.f.Literals, w)
		}
	}
}
