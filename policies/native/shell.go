package native

import "strings"

// shellTag is an ask rule whose one body is `tag in input.segment.tags`.
func shellTag(id, tag string) Rule {
	return Rule{ID: id, Layer: Ask, Match: func(s *Seg, _ *Tables) bool { return s.Tag(tag) }}
}

// shellRules mirrors policies/rules/shell.rego, rule by rule.
var shellRules = []Rule{
	// shell.dynamic-program: "dynamic-program" in input.segment.tags.
	shellTag("shell.dynamic-program", "dynamic-program"),
	// shell.changed-shell: "changed-shell" in input.segment.tags.
	shellTag("shell.changed-shell", "changed-shell"),
	// shell.changes-resolution: "changes-resolution" in input.segment.tags.
	shellTag("shell.changes-resolution", "changes-resolution"),
	// shell.dynamic-code: "dynamic-code" in input.segment.tags.
	shellTag("shell.dynamic-code", "dynamic-code"),
	// shell.stdin-code: "stdin-code" in input.segment.tags.
	shellTag("shell.stdin-code", "stdin-code"),
	// shell.script-file: "script-file" in input.segment.tags.
	shellTag("shell.script-file", "script-file"),
	// shell.interactive: "interactive" in input.segment.tags.
	shellTag("shell.interactive", "interactive"),
	// shell.inline, two bodies:
	//   programs.shells[program]; "c" in flags
	//   kinds.inline_code[program]; count(argv) > 1; not argv[1] in {"-p", "-l"}
	{ID: "shell.inline", Layer: Ask, Match: shellInline},
	// shell.interpreter-code: "opaque-code" in input.segment.tags.
	shellTag("shell.interpreter-code", "opaque-code"),
	// shell.code-spawns: "code-spawns" in input.segment.tags.
	shellTag("shell.code-spawns", "code-spawns"),
	// shell.suspect-critical: "code-suspect-critical" in input.segment.tags.
	shellTag("shell.suspect-critical", "code-suspect-critical"),
	// shell.suspect-fetch-run: "code-suspect-fetch" in input.segment.tags.
	shellTag("shell.suspect-fetch-run", "code-suspect-fetch"),
	// shell.suspect-reverse-shell: "code-suspect-revshell" in input.segment.tags.
	shellTag("shell.suspect-reverse-shell", "code-suspect-revshell"),
	// shell.suspect-floor-string: "code-suspect-floor" in input.segment.tags.
	shellTag("shell.suspect-floor-string", "code-suspect-floor"),
	// shell.code-unsafe: "code-unsafe" in input.segment.tags.
	shellTag("shell.code-unsafe", "code-unsafe"),
	// shell.arith-dynamic: "arith-dynamic" in input.segment.tags.
	shellTag("shell.arith-dynamic", "arith-dynamic"),
	// shell.appended-args: "appended-args" in tags; not "listed-args" in tags.
	{ID: "shell.appended-args", Layer: Ask, Match: func(s *Seg, _ *Tables) bool {
		return s.Tag("appended-args") && !s.Tag("listed-args")
	}},
	// shell.name-normalized: "name-normalized" in input.segment.tags.
	shellTag("shell.name-normalized", "name-normalized"),
	// shell.code-env: "assigns" in tags; some a in assigns;
	// code_env(a.name); not harmless_for_program(a.name).
	{ID: "shell.code-env", Layer: Ask, Match: shellCodeEnv},
	// shell.remote: "remote" in input.segment.tags.
	shellTag("shell.remote", "remote"),
	// shell.background: "background" in input.segment.tags.
	shellTag("shell.background", "background"),
}

// shellInline mirrors both bodies of shell.inline.
func shellInline(s *Seg, t *Tables) bool {
	if t.Program("shells", s.Program) && s.Flag("c") {
		return true
	}
	// count(argv) > 1 makes argv[1] defined.
	return t.Kind("inline_code", s.Program) && len(s.Argv) > 1 && s.Argv[1] != "-p" && s.Argv[1] != "-l"
}

// shellCodeEnv mirrors shell.code-env.
func shellCodeEnv(s *Seg, t *Tables) bool {
	if !s.Tag("assigns") {
		return false
	}
	for _, a := range s.Assigns {
		if codeEnv(a.Name) && !harmlessForProgram(s, t, a.Name) {
			return true
		}
	}
	return false
}

// harmlessForProgram: harmless_for_program(name) — IFS= read -r line: IFS
// only shapes read's own splitting.
func harmlessForProgram(s *Seg, t *Tables, name string) bool {
	return name == "IFS" && t.Kind("reads_vars", s.Program)
}

// codeEnv: code_env(n) — a variable that makes programs run other code
// (the literal set, or LD_*, *PAGER, *EDITOR).
func codeEnv(n string) bool {
	switch n {
	case "BASH_ENV", "ENV", "PS4", "PS1", "PROMPT_COMMAND", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXEC_PATH",
		"GIT_ASKPASS", "SSH_ASKPASS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_EXTERNAL_DIFF",
		"PAGER", "MANPAGER", "EDITOR", "VISUAL", "LESSOPEN", "LESSCLOSE", "PYTHONSTARTUP", "PYTHONPATH",
		"PERL5OPT", "PERL5LIB", "RUBYOPT", "NODE_OPTIONS", "BROWSER", "PATH", "IFS", "SHELLOPTS",
		"BASHOPTS", "CDPATH", "GLOBIGNORE", "HOME", "ZDOTDIR", "DYLD_INSERT_LIBRARIES",
		"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "NPM_CONFIG_SCRIPT_SHELL", "npm_config_script_shell",
		"TAR_OPTIONS", "GZIP", "XZ_OPT", "ZSTD_CLEVEL", "SYSTEMD_EDITOR", "SUDO_EDITOR", "FCEDIT",
		"TMPDIR", "RSYNC_RSH", "CVS_RSH", "GIT_PROXY_COMMAND", "MAKEFLAGS", "CC", "CXX":
		return true
	}
	return strings.HasPrefix(n, "LD_") || strings.HasSuffix(n, "PAGER") || strings.HasSuffix(n, "EDITOR")
}
