package rules

import (
	"regexp"
	"strings"
)

// Programs that run arbitrary code or arbitrary other programs: granting
// them is granting everything.
var anythingRunners = map[string]bool{
	// shells
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "pdksh": true,
	"csh": true, "tcsh": true, "fish": true, "ash": true, "yash": true, "rc": true, "elvish": true,
	"nu": true, "xonsh": true, "pwsh": true, "powershell": true, "busybox": true, "toybox": true,
	// interpreters
	"node": true, "nodejs": true, "deno": true, "bun": true, "perl": true, "ruby": true, "irb": true,
	"php": true, "tclsh": true, "wish": true, "expect": true, "osascript": true, "jshell": true,
	"julia": true, "ghci": true, "runghc": true, "scala": true,
	"awk": true, "gawk": true, "mawk": true, "nawk": true, "gdb": true, "lldb": true,
	"ipython": true, "ts-node": true, "tsx": true, "zx": true, "guile": true, "racket": true,
	"sbcl": true, "erl": true, "elixir": true, "iex": true, "groovy": true, "php-cgi": true,
	"python": true, "python2": true, "python3": true, "pypy": true, "pypy3": true, "lua": true,
	"luajit": true, "r": true, "rscript": true, "swift": true, "clisp": true, "ecl": true,
	"ocaml": true, "scheme": true, "chicken": true, "csi": true, "gst": true, "pike": true,
	"rexx": true, "tcl": true, "busybox-sh": true, "rbash": true, "posh": true, "oksh": true,
	// runners and wrappers
	"env": true, "sudo": true, "doas": true, "su": true, "runuser": true, "pkexec": true,
	"xargs": true, "parallel": true, "eval": true, "exec": true, "command": true, "builtin": true,
	"source": true, ".": true, "find": true, "nohup": true, "timeout": true, "nice": true,
	"ionice": true, "chrt": true, "taskset": true, "stdbuf": true, "setsid": true, "time": true,
	"watch": true, "flock": true, "chroot": true, "unshare": true, "nsenter": true, "strace": true,
	"ltrace": true, "script": true, "ssh": true, "tmux": true, "screen": true, "npx": true,
	"bunx": true, "pnpx": true, "uvx": true, "fakeroot": true, "systemd-run": true,
	"bwrap": true, "firejail": true, "rivumi": true,
}

// runnerName is the name a program is known by for grant refusal: lower
// case, without ".exe" and without a version suffix (python3.12, lua5.4,
// php8.2-cgi, php-cgi8.2, ipython3, node18 are python, lua, php-cgi,
// php-cgi, ipython, node).
func runnerName(base string) string {
	n := strings.TrimSuffix(strings.ToLower(base), ".exe")
	for {
		m := versionSuffix.FindStringIndex(n)
		if m == nil || m[0] == 0 {
			break
		}
		if anythingRunners[n] {
			return n
		}
		n = n[:m[0]]
	}
	if i := versionInfix.FindStringSubmatchIndex(n); i != nil {
		n = n[:i[2]] + n[i[3]:] // php8.2-cgi → php-cgi
	}
	return n
}

var (
	versionSuffix = regexp.MustCompile(`[-_]?[0-9][0-9.]*$`)
	versionInfix  = regexp.MustCompile(`^[a-z]+([0-9][0-9.]*)-[a-z]+$`)
)

// Two-word prefixes that run an arbitrary package or command.
var anythingRunnerSubcommands = map[string][]string{
	"npm":     {"exec", "x"},
	"pnpm":    {"dlx", "exec"},
	"yarn":    {"dlx", "exec"},
	"pipx":    {"run"},
	"uv":      {"tool"},
	"go":      {"tool"},
	"docker":  {"run", "exec"},
	"podman":  {"run", "exec"},
	"kubectl": {"exec", "debug"},
}

// RunsAnything reports whether prog (a basename, in any case, with or
// without ".exe" or a version suffix) runs whatever it is handed: a shell,
// an interpreter, a wrapper that runs its arguments. Granting such a
// program is granting everything, so grants for it are refused and never
// applied.
func RunsAnything(prog string) bool {
	return anythingRunners[strings.ToLower(prog)] || anythingRunners[runnerName(prog)]
}

// RunnerSubcommands returns the subcommands of prog that run an arbitrary
// package or command (npm exec, docker run), or nil.
func RunnerSubcommands(prog string) []string { return anythingRunnerSubcommands[prog] }
