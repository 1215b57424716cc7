# Shells, interpreters and code that cannot be known.
package rivumi.rules

# METADATA
# title: Program name not known statically
# custom:
#   id: shell.dynamic-program
#   scope: shape
#   justification: The program comes from a variable, substitution or glob, so nothing can say what runs.
ask contains {"id": "shell.dynamic-program"} if {
	"dynamic-program" in input.segment.tags
}

# METADATA
# title: Runs after the shell was changed
# custom:
#   id: shell.changed-shell
#   scope: shape
#   justification: >-
#     An earlier alias, function, PATH/IFS assignment, shopt, set, trap or source changed what later
#     words mean, so they cannot be read as written.
ask contains {"id": "shell.changed-shell"} if {
	"changed-shell" in input.segment.tags
}

# METADATA
# title: Changes how later commands resolve
# custom:
#   id: shell.changes-resolution
#   scope: shape
#   justification: alias, functions, PATH/IFS/BASH_ENV assignments, shopt, set, hash -p and exec redirections change what later commands do.
ask contains {"id": "shell.changes-resolution"} if {
	"changes-resolution" in input.segment.tags
}

# METADATA
# title: Code that cannot be known
# custom:
#   id: shell.dynamic-code
#   scope: shape
#   justification: Code is built at run time (a variable, a substitution, a stdin placeholder), so nobody can read it first.
ask contains {"id": "shell.dynamic-code"} if {
	"dynamic-code" in input.segment.tags
}

# METADATA
# title: Shell reading code from a pipe or file
# custom:
#   id: shell.stdin-code
#   scope: shape
#   justification: A shell or interpreter runs whatever arrives on its input; read the code first.
ask contains {"id": "shell.stdin-code"} if {
	"stdin-code" in input.segment.tags
}

# METADATA
# title: Running a script file
# custom:
#   id: shell.script-file
#   grantable: true
#   justification: A shell or interpreter runs a script file, code from the workspace or elsewhere.
ask contains {"id": "shell.script-file"} if {
	"script-file" in input.segment.tags
}

# METADATA
# title: Interactive shell or interpreter
# custom:
#   id: shell.interactive
#   grantable: true
#   justification: A shell or interpreter without code waits for input; nothing can be graded.
ask contains {"id": "shell.interactive"} if {
	"interactive" in input.segment.tags
}

# METADATA
# title: Inline shell script
# custom:
#   id: shell.inline
#   grantable: true
#   justification: A shell runs an inline script; its commands are graded too, and the shell itself needs consent.
ask contains {"id": "shell.inline"} if {
	data.rivumi.tables.programs.shells[input.segment.program]
	"c" in input.segment.flags
}

ask contains {"id": "shell.inline"} if {
	data.rivumi.tables.kinds.inline_code[input.segment.program]
	count(input.segment.argv) > 1
	not input.segment.argv[1] in {"-p", "-l"}
}

# METADATA
# title: Interpreter code
# custom:
#   id: shell.interpreter-code
#   grantable: true
#   justification: >-
#     python -c, node -e, perl -e, ruby -e and heredocs into interpreters run code rivumi cannot
#     parse; it can never be allowed without consent.
ask contains {"id": "shell.interpreter-code"} if {
	"opaque-code" in input.segment.tags
}

# METADATA
# title: Code that can run programs
# custom:
#   id: shell.code-spawns
#   grantable: true
#   justification: The script calls system(), exec, popen, a pager escape or similar, so it runs other programs.
ask contains {"id": "shell.code-spawns"} if {
	"code-spawns" in input.segment.tags
}

# METADATA
# title: Code that may destroy a critical path
# custom:
#   id: shell.suspect-critical
#   justification: >-
#     The code deletes or overwrites something and names /, home, a system directory or a credential
#     file, but no delete is proven to get that path (os.chdir('/') then shutil.rmtree(tmpdir)). Read
#     which path it deletes before approving.
ask contains {"id": "shell.suspect-critical"} if {
	"code-suspect-critical" in input.segment.tags
}

# METADATA
# title: Code that may run something fetched
# custom:
#   id: shell.suspect-fetch-run
#   justification: >-
#     The code uses the network and evaluates code (importlib, eval, exec), but the evaluated code is not
#     proven to be what it fetched. Check what it evaluates before approving.
ask contains {"id": "shell.suspect-fetch-run"} if {
	"code-suspect-fetch" in input.segment.tags
}

# METADATA
# title: Code that opens connections and runs programs
# custom:
#   id: shell.suspect-reverse-shell
#   justification: >-
#     The code opens network connections and runs programs, but does not wire a socket to a shell or run
#     what it receives as far as rivumi can tell. Check what it runs before approving.
ask contains {"id": "shell.suspect-reverse-shell"} if {
	"code-suspect-revshell" in input.segment.tags
}

# METADATA
# title: Code holding a string with a critical shape
# custom:
#   id: shell.suspect-floor-string
#   justification: >-
#     The code runs programs, and one of its strings (or all of them joined) reads like a command the floor
#     forbids (rm -rf /, curl | sh), though no call is proven to run it. Check that it is only data.
ask contains {"id": "shell.suspect-floor-string"} if {
	"code-suspect-floor" in input.segment.tags
}

# METADATA
# title: awk, sed or jq script outside the safe subset
# custom:
#   id: shell.code-unsafe
#   grantable: true
#   justification: >-
#     The awk or sed script runs commands or writes files (system, getline, pipes, e, w), or the jq
#     filter reads the environment, modules or other files, or cannot be parsed.
ask contains {"id": "shell.code-unsafe"} if {
	"code-unsafe" in input.segment.tags
}

# METADATA
# title: Arithmetic on a variable
# custom:
#   id: shell.arith-dynamic
#   scope: shape
#   justification: Bash evaluates a variable's contents in arithmetic, which can run a command substitution.
ask contains {"id": "shell.arith-dynamic"} if {
	"arith-dynamic" in input.segment.tags
}

# METADATA
# title: Arguments appended at run time
# custom:
#   id: shell.appended-args
#   scope: wrapper
#   justification: >-
#     xargs, parallel and find -exec … + add arguments that are only known at run time (unless they are paths a
#     listing printed: listed-args, graded by allow.listed-readonly).
ask contains {"id": "shell.appended-args"} if {
	"appended-args" in input.segment.tags
	not "listed-args" in input.segment.tags
}

# METADATA
# title: Program spelled in another case or with .exe
# custom:
#   id: shell.name-normalized
#   scope: shape
#   justification: The program was written in mixed case or with .exe, a spelling used to slip past guards.
ask contains {"id": "shell.name-normalized"} if {
	"name-normalized" in input.segment.tags
}

# METADATA
# title: Environment that carries code
# custom:
#   id: shell.code-env
#   scope: assignment
#   justification: >-
#     BASH_ENV, ENV, PS4, PROMPT_COMMAND, LD_*, GIT_SSH_COMMAND, pagers, editors and similar variables
#     make programs run other code.
ask contains {"id": "shell.code-env"} if {
	"assigns" in input.segment.tags
	some a in input.segment.assigns
	code_env(a.name)
	not harmless_for_program(a.name)
}

# IFS= read -r line: IFS only shapes read's own splitting.
harmless_for_program(name) if {
	name == "IFS"
	data.rivumi.tables.kinds.reads_vars[input.segment.program]
}

code_env(n) if n in {
	"BASH_ENV", "ENV", "PS4", "PS1", "PROMPT_COMMAND", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXEC_PATH",
	"GIT_ASKPASS", "SSH_ASKPASS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_EXTERNAL_DIFF",
	"PAGER", "MANPAGER", "EDITOR", "VISUAL", "LESSOPEN", "LESSCLOSE", "PYTHONSTARTUP", "PYTHONPATH",
	"PERL5OPT", "PERL5LIB", "RUBYOPT", "NODE_OPTIONS", "BROWSER", "PATH", "IFS", "SHELLOPTS",
	"BASHOPTS", "CDPATH", "GLOBIGNORE", "HOME", "ZDOTDIR", "DYLD_INSERT_LIBRARIES",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "NPM_CONFIG_SCRIPT_SHELL", "npm_config_script_shell",
	"TAR_OPTIONS", "GZIP", "XZ_OPT", "ZSTD_CLEVEL", "SYSTEMD_EDITOR", "SUDO_EDITOR", "FCEDIT",
	"TMPDIR", "RSYNC_RSH", "CVS_RSH", "GIT_PROXY_COMMAND", "MAKEFLAGS", "CC", "CXX",
}

code_env(n) if startswith(n, "LD_")

code_env(n) if endswith(n, "PAGER")

code_env(n) if endswith(n, "EDITOR")

# METADATA
# title: Runs on a remote host
# custom:
#   id: shell.remote
#   grantable: true
#   justification: The command runs on another machine over ssh; confirm the host and the command.
ask contains {"id": "shell.remote"} if {
	"remote" in input.segment.tags
}

# METADATA
# title: Background job
# custom:
#   id: shell.background
#   scope: shape
#   justification: A job left running in the background outlives the command and its timeout.
ask contains {"id": "shell.background"} if {
	"background" in input.segment.tags
}
