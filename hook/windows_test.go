package hook

import (
	"context"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/verdict"
)

// Windows spellings of file tool paths, judged in the slash form (the
// file system is not consulted for these made-up paths: they do not exist
// here, so they resolve lexically).
func TestPathPolicyWindowsPaths(t *testing.T) {
	pp := PathPolicy{Workspace: `C:\Users\dev\proj`, Home: `C:\Users\dev`, Windows: true}
	cwd := `C:\Users\dev\proj\src`
	for _, tc := range []struct {
		op   Op
		name string
		want verdict.Decision
		rule string
	}{
		{OpWrite, `C:\Users\dev\proj\src\main.go`, verdict.Allow, RuleWriteWorkspace},
		{OpWrite, `C:/Users/dev/proj/src/main.go`, verdict.Allow, RuleWriteWorkspace},
		{OpWrite, `/c/Users/dev/proj/src/main.go`, verdict.Allow, RuleWriteWorkspace},
		{OpWrite, `main.go`, verdict.Allow, RuleWriteWorkspace},
		{OpWrite, `..\..\outside.txt`, verdict.Ask, RuleWriteOutside},
		{OpWrite, `C:\Users\dev\proj\.git\config`, verdict.Deny, RuleProtectedWrite},
		{OpWrite, `c:\users\dev\proj\.GIT\hooks\pre-commit`, verdict.Deny, RuleProtectedWrite},
		{OpWrite, `C:\Users\dev\proj\.git.\hooks\pre-commit`, verdict.Deny, RuleProtectedWrite},
		{OpWrite, `C:\Users\dev\proj\.git \config`, verdict.Deny, RuleProtectedWrite},
		{OpWrite, `C:\Users\dev\proj\.git::$INDEX_ALLOCATION\config`, verdict.Deny, RuleBadPath},
		{OpWrite, `C:\Users\dev\proj\GIT~1\config`, verdict.Deny, RuleBadPath},
		{OpWrite, `\\server\share\x`, verdict.Deny, RuleBadPath},
		{OpWrite, `\\?\C:\Users\dev\proj\x`, verdict.Deny, RuleBadPath},
		{OpWrite, `D:x`, verdict.Deny, RuleBadPath},
		{OpWrite, `C:\Users\dev\proj\.claude\settings.json`, verdict.Deny, RuleProtectedWrite},
		{OpWrite, `C:\Users\dev\.bashrc`, verdict.Deny, RuleProtectedWrite},
		{OpWrite, `C:\Windows\System32\drivers\etc\hosts`, verdict.Ask, RuleWriteOutside},
		{OpWrite, `C:\`, verdict.Deny, RuleCriticalWrite},
		{OpWrite, `C:\Windows`, verdict.Deny, RuleCriticalWrite},
		{OpRead, `C:\Users\dev\.ssh\id_rsa`, verdict.Ask, RuleReadSecret},
		{OpRead, `~/.ssh/id_rsa`, verdict.Ask, RuleReadSecret},
		{OpRead, `C:\Users\dev\proj\.env`, verdict.Ask, RuleReadSecret},
		{OpRead, `C:\Users\dev\proj\README.md`, verdict.Allow, RuleRead},
	} {
		v := pp.Check(tc.op, tc.name, cwd)
		if v.Decision != tc.want || len(v.Reasons) == 0 || v.Reasons[0].Rule != tc.rule {
			t.Errorf("%v %s: %v %+v, want %v %s", tc.op, tc.name, v.Decision, v.Reasons, tc.want, tc.rule)
		}
	}
}

// The whole hook on Windows: a Claude Code payload with a drive-letter cwd
// and file path, and a Bash command graded with the slash-form cwd,
// workspace and home.
func TestHookWindowsPayload(t *testing.T) {
	var seen verdict.Request
	cfg := Config{Agent: ClaudeCode, GOOS: "windows", Home: `C:\Users\dev`,
		Getenv: func(k string) string {
			if k == "CLAUDE_PROJECT_DIR" {
				return `C:\Users\dev\proj`
			}
			return ""
		},
		NewGrader: graderOf(func(_ context.Context, r verdict.Request) (verdict.Verdict, error) {
			seen = r
			return verdict.Verdict{Decision: verdict.Allow}, nil
		})}
	out, errs, code := run(t, cfg, strings.NewReader(`{"hook_event_name": "PreToolUse", "cwd": "C:\\Users\\dev\\proj", "tool_name": "Write",
		"tool_input": {"file_path": "C:\\Users\\dev\\proj\\.git\\hooks\\pre-commit", "content": "x"}}`))
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Errorf("write into .git: exit %d, %s %s", code, out, errs)
	}
	out, errs, code = run(t, cfg, strings.NewReader(`{"hook_event_name": "PreToolUse", "cwd": "C:\\Users\\dev\\proj\\src", "tool_name": "Bash",
		"tool_input": {"command": "ls"}}`))
	if code != 0 || !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Errorf("bash: exit %d, %s %s", code, out, errs)
	}
	if seen.Cwd != "/c/Users/dev/proj/src" || seen.Workspace != "/c/Users/dev/proj" || seen.Home != "/c/Users/dev" || seen.Shell != "bash" {
		t.Errorf("graded with %+v, want the slash forms and bash", seen)
	}
	_, errs, code = run(t, cfg, strings.NewReader(`{"cwd": "\\\\server\\share", "tool_name": "Bash", "tool_input": {"command": "ls"}}`))
	if code != 2 || !strings.Contains(errs, `absolute "cwd"`) {
		t.Errorf("UNC cwd: exit %d, %s", code, errs)
	}
}

// Gemini CLI and Codex run PowerShell on Windows: what bash would allow
// asks there, unless --shell names the dialect.
func TestPowerShellNeverAllowed(t *testing.T) {
	allow := verdict.Verdict{Decision: verdict.Allow}
	deny := verdict.Verdict{Decision: verdict.Deny, Reasons: []verdict.Reason{{Rule: "floor.x"}}}
	for _, tc := range []struct {
		agent Agent
		goos  string
		shell string
		in    verdict.Verdict
		want  verdict.Decision
	}{
		{Gemini, "windows", "", allow, verdict.Ask},
		{Codex, "windows", "", allow, verdict.Ask},
		{ClaudeCode, "windows", "", allow, verdict.Allow},
		{Gemini, "windows", "bash", allow, verdict.Allow},
		{Gemini, "darwin", "", allow, verdict.Allow},
		{Codex, "windows", "", deny, verdict.Deny},
	} {
		v := capPowerShell(&Config{Agent: tc.agent, GOOS: tc.goos, Shell: tc.shell}, tc.in)
		if v.Decision != tc.want || (tc.want == verdict.Ask && v.Reasons[0].Rule != RulePowerShell) {
			t.Errorf("%s on %s (--shell %q): %v %+v, want %v", tc.agent, tc.goos, tc.shell, v.Decision, v.Reasons, tc.want)
		}
	}
}

func TestShellDialectFromWindowsShell(t *testing.T) {
	for shell, want := range map[string]string{
		`C:\Program Files\Git\usr\bin\bash.exe`: "bash",
		`/usr/bin/zsh`:                          "zsh",
		`C:\msys64\usr\bin\ZSH.EXE`:             "zsh",
		`/bin/dash`:                             "sh",
		``:                                      "bash",
	} {
		cfg := &Config{Getenv: func(k string) string {
			if k == "SHELL" {
				return shell
			}
			return ""
		}}
		if got := shellDialect(cfg); got != want {
			t.Errorf("SHELL=%q: %s, want %s", shell, got, want)
		}
	}
}

func TestGeminiRunsBash(t *testing.T) {
	cfg := &Config{Agent: Gemini, Getenv: func(string) string { return "/bin/zsh" }}
	if got := shellDialect(cfg); got != "bash" {
		t.Errorf("Gemini with SHELL=zsh: %s, want bash (it runs bash -c)", got)
	}
	cfg.Shell = "zsh"
	if got := shellDialect(cfg); got != "zsh" {
		t.Errorf("Gemini with --shell zsh: %s", got)
	}
	cfg = &Config{Agent: ClaudeCode, Getenv: func(string) string { return "/bin/zsh" }}
	if got := shellDialect(cfg); got != "zsh" {
		t.Errorf("Claude Code with SHELL=zsh: %s, want zsh", got)
	}
}
