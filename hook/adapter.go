package hook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/internal/applypatch"
	"github.com/rivumi/rivumi/internal/strictjson"
	"github.com/rivumi/rivumi/internal/winpath"
	"github.com/rivumi/rivumi/programs"
	"github.com/rivumi/rivumi/verdict"
)

// Agent names an agent CLI whose hook protocol rivumi speaks.
type Agent string

// The agents.
const (
	ClaudeCode Agent = "claude-code"
	Gemini     Agent = "gemini"
	Codex      Agent = "codex"
)

// Agents lists the supported agents. The ones after Codex have their
// adapter in a file of their own (qwen.go, …), which registers a [profile].
var Agents = []Agent{ClaudeCode, Gemini, Codex, Qwen, OpenCode, Pi, OhMyPi, Copilot}

// ParseAgent returns the agent named s.
func ParseAgent(s string) (Agent, error) {
	names := make([]string, len(Agents))
	for i, a := range Agents {
		if string(a) == s {
			return a, nil
		}
		names[i] = string(a)
	}
	return "", fmt.Errorf("unknown agent %q (want one of %s)", s, strings.Join(names, ", "))
}

// event is the hook event the agent sends before a tool runs.
func (a Agent) event() string {
	if p, ok := profiles[a]; ok {
		return p.event
	}
	if a == Gemini {
		return "BeforeTool"
	}
	return "PreToolUse"
}

// profile is what an adapter kept in a file of its own tells the shared
// code about its agent (its shell and file tools go into shellTools and
// fileTools, its matcher into Matchers).
type profile struct {
	// event is the payload's hook_event_name.
	event string
	// projectVars name the agent's project directory in the hook's
	// environment, first found wins (see workspaceFor).
	projectVars []string
	// shell is the dialect the agent runs commands in ("": $SHELL's).
	shell string
	// askable reports whether an ask verdict is answered with ask; nil:
	// never (cannotAsk says why, in the deny's reason).
	askable   func(cfg *Config) bool
	cannotAsk string
	// ignoresAsk reports whether the agent runs the tool on an ask in a
	// session of this permission mode (nil: never).
	ignoresAsk func(mode string) bool
	// answer returns the JSON the agent reads on stdout for a reply
	// (allow, ask, deny or "" for no opinion); nil writes nothing.
	answer func(a Answer) any
	// settings returns the file the hook is installed in for a scope
	// (base: the project root or the home directory).
	settings func(scope Scope, base string, getenv func(string) string) string
	// sampleTool is the name of the shell tool in the agent's payloads.
	sampleTool string
	// defaultTimeout is the agent's timeout for a hook that sets none.
	defaultTimeout time.Duration
	// hooksOff finds settings that keep the agent from running the hook
	// (see [HooksOff]); nil: none known.
	hooksOff func(home, root string, getenv func(string) string) []Finding
	// plugin, when set, is the agent's glue of a plugin file rivumi
	// writes instead of a settings entry (plugin.go); its timeout is in
	// milliseconds and it blocks on anything but a clear answer.
	plugin string
	// fixInput, when set, rewrites the tool's input as the agent reads
	// it before rivumi judges it (pi strips a leading @ from paths).
	fixInput func(tool string, in map[string]any)
	// translate, when set, turns the agent's payload into the shape the
	// others send (session_id, cwd, hook_event_name, tool_name,
	// tool_input).
	translate func(payload []byte) ([]byte, error)
	// blocks is [Blocks] for the agent (nil: Claude Code's rules).
	blocks func(stdout, stderr []byte, exit int) (bool, string)
}

// profiles are the registered adapters, by agent.
var profiles = map[Agent]profile{}

// AskAs is what an adapter answers for an ask verdict on agents that
// cannot always ask (Gemini CLI, Codex).
type AskAs string

// The answers for ask.
const (
	// AskAuto asks where the agent can (Gemini CLI in an interactive
	// session) and denies elsewhere (Gemini CLI headless, Codex). The
	// default.
	AskAuto AskAs = ""
	// AskAsk asks on Gemini CLI even when rivumi cannot tell that the
	// session is interactive (a headless `gemini -p` then waits for an
	// answer that never comes). Codex cannot ask: there it denies.
	AskAsk AskAs = "ask"
	// AskDeny blocks, with a reason that says how to grant it.
	AskDeny AskAs = "deny"
	// AskPass answers nothing: the agent's own approval settings decide.
	AskPass AskAs = "pass"
	// AskAllow allows.
	AskAllow AskAs = "allow"
)

// ParseAskAs returns the AskAs named s ("auto" or "" for [AskAuto]).
func ParseAskAs(s string) (AskAs, error) {
	switch a := AskAs(s); a {
	case "auto", AskAuto:
		return AskAuto, nil
	case AskAsk, AskDeny, AskPass, AskAllow:
		return a, nil
	}
	return "", fmt.Errorf("%q: want auto, ask, deny, pass or allow", s)
}

// Grader grades a shell command ([verdict.GraderFunc]): an in-process
// engine's Grade method, a running `rivumi serve`'s client, or a test
// double.
type Grader = verdict.GraderFunc

// Config configures [Run].
type Config struct {
	Agent Agent
	// NewGrader returns the grader for shell commands. It is called only
	// when the tool is a shell, so file tools never compile the policy.
	NewGrader func(ctx context.Context) (Grader, error)
	// Workspace is the configured project root, used when the agent does
	// not name one (CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR). Without
	// either, the project root of the payload's cwd (nearest .git) is.
	Workspace string
	// Shell is the dialect commands are parsed in: bash, sh or zsh; ""
	// means the basename of $SHELL (bash when unknown).
	Shell string
	// Home is the user's home directory.
	Home string
	// AskAs is the answer for ask on agents that cannot always ask.
	AskAs AskAs
	// Interactive reports whether a person answers the agent's prompts
	// (used for Gemini CLI's ask; nil: [GeminiInteractive]).
	Interactive func() bool
	// Shadow grades and logs, but answers nothing: the agent behaves as
	// without rivumi. For measuring friction before enforcing.
	Shadow bool
	// Probe marks a call `rivumi hook doctor` makes through the installed
	// entry: graded and answered as any, its audit entry's source is
	// ProbeSource+agent, not the agent's.
	Probe bool
	// Timeout is the internal deadline for the whole call, reading stdin
	// included (default 5 s); keep it below the agent's hook timeout.
	Timeout time.Duration
	// MaxInput caps the payload size in bytes (default 4 MiB).
	MaxInput int64
	// Protected and Secrets are extra path globs (see [PathPolicy]).
	Protected, Secrets []string
	// Early, when set, makes [Run] and [Decide] grade on the caller's
	// goroutine, which a call that hangs (a file system that does not
	// answer, a bug) holds past the deadline: then the blocking answer
	// for the deadline is logged and given to Early at the deadline, from
	// another goroutine, as [Run] would return it (exit code, stdout and
	// stderr), and Run returns the same once the grading it cannot stop
	// returns. Early is called at most once, and only then. For callers
	// that can answer before they return (the server's hook relay).
	Early func(code int, stdout, stderr []byte)
	// MoreProtected, when set, returns more Protected globs: the ones
	// that cost system calls to find. It is called only when a file tool
	// is judged, once per call.
	MoreProtected func() []string
	// Grants returns the grants in force for a workspace (nil: none).
	Grants func(workspace string) ([]verdict.Grant, error)
	// Audit receives one entry per call (nil: none). No answer that lets
	// the tool run goes out without its entry: when Audit fails, the answer
	// is the blocking failure, unless AuditBestEffort (or Shadow, which
	// never blocks).
	Audit audit.Sink
	// AuditBestEffort keeps the answer when its audit entry cannot be
	// written (the error still goes to stderr).
	AuditBestEffort bool
	// Getenv reads the environment (default os.Getenv).
	Getenv func(string) string
	// GateWrap, when set, runs the shell commands the hook lets through
	// under rivumi's exec gate (see [GateWrap]).
	GateWrap *GateWrap
	// GOOS is the operating system the agent runs on (default
	// runtime.GOOS). On "windows" paths are taken in Windows spellings
	// (C:\x, C:/x, /c/x) and graded in the slash form /c/x, and the
	// commands of agents that run PowerShell are never allowed.
	GOOS string
}

// Defaults.
const (
	// DefaultTimeout is the hook's own deadline: the engine's default
	// evaluation timeout (TestDefaultTimeoutMatchesEngine).
	DefaultTimeout  = 5 * time.Second
	DefaultMaxInput = 4 << 20
)

// payload is the part of the agents' hook input rivumi reads.
type payload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath *string         `json:"transcript_path"`
	PermissionMode string          `json:"permission_mode"`
	Cwd            *string         `json:"cwd"`
	HookEventName  *string         `json:"hook_event_name"`
	ToolName       *string         `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
}

// Answer is the outcome of one hook call.
type Answer struct {
	// Verdict is the policy's (or the path policy's) verdict; zero for
	// tools rivumi has no opinion on and for failures.
	Verdict verdict.Verdict
	// Graded is false for tools rivumi does not judge.
	Graded bool
	// Reply is what the agent is told: allow, ask, deny, or "" (no
	// opinion: the agent proceeds as without the hook).
	Reply string
	// Reason is the text given with the reply.
	Reason string
	// Failure is set when the call failed closed (bad input, internal
	// error, deadline); the reply is then deny.
	Failure string
	// AuditError is set when the audit entry could not be written; Write
	// reports it on stderr. Unless the log is best effort (or Shadow), an
	// answer that would let the tool run became a Failure.
	AuditError error

	tool, command, cwd, workspace string
	paths                         []string
	// permissionMode is the payload's permission_mode (Claude Code).
	permissionMode string
	// UpdatedInput, when set, replaces the tool's input (GateWrap).
	UpdatedInput map[string]any
}

// Run handles one hook call: it reads the payload from stdin, grades it,
// writes the agent's answer to stdout (and stderr) and returns the exit
// code for the process. It never fails open: bad input, an internal error
// or a missed deadline answer with the protocol's blocking form (exit 2
// with the reason on stderr).
func Run(ctx context.Context, cfg Config, stdin io.Reader, stdout, stderr io.Writer) int {
	a := Decide(ctx, cfg, stdin)
	return Write(cfg, a, stdout, stderr)
}

// Decide reads and grades one hook call, within cfg.Timeout, and logs it.
// With cfg.Early set, it grades on the caller's goroutine and the answer
// past the deadline is given through Early (see [Config]); without, on a
// goroutine of its own, and Decide returns by the deadline.
func Decide(ctx context.Context, cfg Config, stdin io.Reader) Answer {
	cfg = withDefaults(cfg)
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if cfg.Early != nil {
		return decideInline(ctx, &cfg, stdin)
	}
	done := make(chan Answer, 1)
	go func() { done <- decideSafely(ctx, &cfg, stdin) }()
	var a Answer
	select {
	case a = <-done:
		if ctx.Err() != nil && a.Failure == "" {
			a = pastDeadline(&cfg)
		}
	case <-ctx.Done():
		a = pastDeadline(&cfg)
	}
	return logged(&cfg, a)
}

// decideInline decides on this goroutine, and answers through cfg.Early
// from a goroutine of the deadline's should the deadline pass first: on a
// warm server the hand-off to and from a goroutine of its own costs a call
// about a tenth of its time (two more threads woken), and a deadline
// passes only in a call that hangs. The answer is logged once: by the
// deadline's goroutine, or, when the call is decided first, here.
func decideInline(ctx context.Context, cfg *Config, stdin io.Reader) Answer {
	const deciding, decided, expired = 0, 1, 2
	var state atomic.Int32
	late := make(chan Answer, 1)
	stop := context.AfterFunc(ctx, func() {
		if !state.CompareAndSwap(deciding, expired) {
			return
		}
		f, sent := pastDeadline(cfg), false
		defer func() {
			// A panic here (the decision log's sink) would take the
			// whole server down: it is this call's failure instead.
			if p := recover(); p != nil {
				f = failed(fmt.Sprintf("internal error: %v", p))
				if !sent {
					cfg.Early(2, nil, []byte(f.Reason+"\n"))
				}
			}
			late <- f
		}()
		f = logged(cfg, f)
		var out, errb bytes.Buffer
		code := Write(*cfg, f, &out, &errb)
		sent = true
		cfg.Early(code, out.Bytes(), errb.Bytes())
	})
	a := decideSafely(ctx, cfg, stdin)
	if !state.CompareAndSwap(deciding, decided) {
		return <-late // answered and logged by the deadline's goroutine
	}
	stop()
	if ctx.Err() != nil && a.Failure == "" {
		a = pastDeadline(cfg)
	}
	return logged(cfg, a)
}

// decideSafely is decide with a panic turned into a failure.
func decideSafely(ctx context.Context, cfg *Config, stdin io.Reader) (a Answer) {
	defer func() {
		if p := recover(); p != nil {
			a = failed(fmt.Sprintf("internal error: %v", p))
		}
	}()
	return decide(ctx, cfg, stdin)
}

func pastDeadline(cfg *Config) Answer {
	return failed(fmt.Sprintf("internal deadline of %v passed", cfg.Timeout))
}

// logged writes a's decision log entry and returns a, or, when the entry
// cannot be written and a would not block, the blocking failure.
func logged(cfg *Config, a Answer) Answer {
	a.AuditError = logAnswer(cfg, a)
	if a.AuditError != nil && a.Reply != "deny" && !cfg.AuditBestEffort && !cfg.Shadow {
		f := failed("the decision log cannot be written (" + a.AuditError.Error() + "); no answer is given without its record")
		f.tool, f.command, f.cwd, f.workspace, f.paths = a.tool, a.command, a.cwd, a.workspace, a.paths
		f.Verdict, f.Graded, f.AuditError = a.Verdict, a.Graded, a.AuditError
		a = f
	}
	return a
}

func withDefaults(cfg Config) Config {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxInput <= 0 {
		cfg.MaxInput = DefaultMaxInput
	}
	if cfg.Interactive == nil {
		cfg.Interactive = GeminiInteractive
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.GOOS == "" {
		cfg.GOOS = runtime.GOOS
	}
	if cfg.Home == "" {
		if h, err := os.UserHomeDir(); err == nil && h != "/" {
			cfg.Home = h
		}
	}
	return cfg
}

func failed(why string) Answer {
	return Answer{Reply: "deny", Failure: why, Reason: "rivumi blocked this tool call: " + why + " (rivumi fails closed)"}
}

func decide(ctx context.Context, cfg *Config, stdin io.Reader) Answer {
	b, err := io.ReadAll(io.LimitReader(stdin, cfg.MaxInput+1))
	if err != nil {
		return failed("cannot read the hook input: " + err.Error())
	}
	if int64(len(b)) > cfg.MaxInput {
		return failed(fmt.Sprintf("hook input over %d bytes", cfg.MaxInput))
	}
	if err := ctx.Err(); err != nil {
		return failed(fmt.Sprintf("internal deadline of %v passed", cfg.Timeout))
	}
	if tr := profiles[cfg.Agent].translate; tr != nil {
		if b, err = tr(b); err != nil {
			return failed("malformed hook input: " + err.Error())
		}
	}
	// Agents add payload fields over time, so unknown keys pass; a case
	// variant or a second copy of a key would be read differently by the
	// agent and is refused.
	var p payload
	if err := strictjson.Decode(b, &p, strictjson.AllowUnknown()); err != nil {
		return failed("malformed hook input: " + err.Error())
	}
	switch {
	case p.ToolName == nil || *p.ToolName == "":
		return failed(`hook input without "tool_name"`)
	case len(p.ToolInput) == 0 || bytes.Equal(p.ToolInput, []byte("null")):
		return failed(`hook input without "tool_input"`)
	case p.Cwd == nil || !isAbs(cfg.slash(*p.Cwd)):
		return failed(`hook input without an absolute "cwd"`)
	case p.HookEventName != nil && *p.HookEventName != cfg.Agent.event():
		return failed(fmt.Sprintf("hook event %q: rivumi hook %s answers %s only", *p.HookEventName, cfg.Agent, cfg.Agent.event()))
	}
	var input map[string]any
	if err := strictjson.Decode(p.ToolInput, &input); err != nil {
		return failed(`"tool_input": ` + err.Error())
	}
	if input == nil {
		return failed(`"tool_input" is not an object`)
	}
	a := Answer{tool: *p.ToolName, cwd: path.Clean(cfg.slash(*p.Cwd)), permissionMode: p.PermissionMode}
	var wsUnknown bool
	if cfg.Agent == Codex {
		a.workspace, wsUnknown, err = codexWorkspace(cfg, p.TranscriptPath, a.cwd)
	} else {
		a.workspace, err = workspaceFor(cfg, a.cwd)
	}
	if err != nil {
		return failed(err.Error())
	}
	if fix := profiles[cfg.Agent].fixInput; fix != nil {
		fix(a.tool, input)
	}
	call, ok, err := toolCall(cfg, a.tool, input, a.cwd, a.workspace, p.SessionID)
	if err != nil {
		return failed(err.Error())
	}
	if !ok {
		return a // no opinion
	}
	a.Graded = true
	if call.skill != nil {
		a.command = call.skill.describe()
		v, err := gradeSkill(ctx, cfg, call, a.workspace)
		if err != nil {
			f := failed(err.Error())
			f.tool, f.command, f.cwd, f.workspace = a.tool, a.command, a.cwd, a.workspace
			return f
		}
		a.Verdict = v
	} else if call.shell {
		a.command = call.command
		if call.argv != nil {
			a.command = strings.Join(call.argv, " ")
		}
		v, err := gradeShell(ctx, cfg, call, a.workspace)
		if err != nil {
			f := failed(err.Error())
			f.tool, f.command, f.cwd, f.workspace = a.tool, a.command, a.cwd, a.workspace
			return f
		}
		a.Verdict = capPowerShell(cfg, v)
	} else {
		a.paths = call.paths
		protected := cfg.Protected
		if cfg.MoreProtected != nil {
			protected = append(slices.Clip(protected), cfg.MoreProtected()...)
		}
		pp := PathPolicy{Workspace: a.workspace, Home: cfg.Home, Protected: protected, Secrets: cfg.Secrets,
			Scratch: agentScratch[cfg.Agent], Windows: cfg.GOOS == "windows"}
		a.Verdict = verdict.Verdict{Decision: verdict.Allow, Policy: PolicyID}
		var reasons []verdict.Reason
		for _, path := range call.paths {
			v := pp.Check(call.op, path, call.cwd)
			a.Verdict.Decision = verdict.Max(a.Verdict.Decision, v.Decision)
			reasons = append(reasons, v.Reasons...)
		}
		for _, r := range call.problems {
			a.Verdict.Decision = verdict.Max(a.Verdict.Decision, r.Decision)
			reasons = append(reasons, r)
		}
		for _, r := range reasons {
			if r.Decision == a.Verdict.Decision {
				a.Verdict.Reasons = append(a.Verdict.Reasons, r)
			}
		}
	}
	if wsUnknown && a.Verdict.Decision == verdict.Allow {
		a.Verdict.Decision = verdict.Ask
		a.Verdict.Reasons = append(a.Verdict.Reasons, verdict.Reason{Rule: RuleWorkspaceUnknown, Decision: verdict.Ask, Segment: -1,
			Text: "the agent's project is not known (no session record, no repository above " + a.cwd + "): the directory the model chose is not taken as the workspace"})
	}
	if err := ctx.Err(); err != nil {
		return failed(fmt.Sprintf("internal deadline of %v passed", cfg.Timeout))
	}
	reply(cfg, &a)
	if cfg.GateWrap != nil && call.shell && call.argv == nil && (a.Reply == "allow" || a.Reply == "ask") {
		in, err := gateInput(cfg.GateWrap, input, call.command, gateDialect(cfg, call))
		if err != nil {
			f := failed(err.Error())
			f.tool, f.command, f.cwd, f.workspace = a.tool, a.command, a.cwd, a.workspace
			return f
		}
		a.UpdatedInput = in
		a.Reason += " (it runs under rivumi's exec gate)"
	}
	return a
}

// gateDialect is the shell a gated command runs in: the one it was graded
// in (the strictest of several is not a shell to run: the configured one).
func gateDialect(cfg *Config, c call) string {
	if len(c.shells) == 1 {
		return c.shells[0]
	}
	return shellDialect(cfg)
}

// RuleWorkspaceUnknown is the ask the hook adds when it cannot tell the
// agent's project (Codex, no session record and no repository above the
// directory the model chose): an allow becomes ask.
const RuleWorkspaceUnknown = "hook.workspace-unknown"

// codexWorkspace returns the workspace of a Codex call. Codex's payload
// "cwd" is the model's exec_command workdir, so it alone never decides:
// the configured workspace (--workspace) wins; else the project root of
// the session's own cwd, read from the session record the payload's
// transcript_path names (its first line, session_meta); else the project
// root of cwd when a repository holds it. With none of them, unknown is
// true and the caller never allows: a workdir of $HOME must not make
// $HOME the workspace.
func codexWorkspace(cfg *Config, transcript *string, cwd string) (ws string, unknown bool, err error) {
	if cfg.Workspace != "" {
		ws, err = workspaceFor(cfg, cwd)
		return ws, false, err
	}
	if transcript != nil && *transcript != "" {
		if sc := codexSessionCwd(cfg, *transcript); sc != "" {
			ws, err = workspaceFor(cfg, sc)
			return ws, false, err
		}
	}
	ws, err = workspaceFor(cfg, cwd)
	if err != nil {
		return "", false, err
	}
	if cfg.GOOS == "windows" {
		return ws, false, nil // the session record is read the same way; no marker check here
	}
	if _, err := os.Lstat(filepath.Join(filepath.FromSlash(ws), ".git")); err != nil {
		return ws, true, nil
	}
	return ws, false, nil
}

// codexSessionCwd returns the cwd recorded in the first line of a Codex
// session record (`{"type":"session_meta","payload":{"cwd":…}}`), or ""
// when the file cannot be read or says no absolute cwd. At most 1 MiB is
// read.
func codexSessionCwd(cfg *Config, transcript string) string {
	f, err := os.Open(filepath.FromSlash(transcript))
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64<<10).ReadSlice('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	var meta struct {
		Type    string `json:"type"`
		Payload struct {
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &meta) != nil || meta.Type != "session_meta" {
		return ""
	}
	c := cfg.slash(meta.Payload.Cwd)
	if !isAbs(c) {
		return ""
	}
	return path.Clean(c)
}

// workspaceFor picks the project root: the agent's project directory
// variable, else the configured one, else the project root of cwd.
func workspaceFor(cfg *Config, cwd string) (string, error) {
	vars := profiles[cfg.Agent].projectVars
	switch cfg.Agent {
	case ClaudeCode:
		vars = []string{"CLAUDE_PROJECT_DIR"}
	case Gemini:
		vars = []string{"GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"}
	}
	for _, v := range vars {
		if d := cfg.slash(cfg.Getenv(v)); d != "" {
			if !isAbs(d) {
				return "", fmt.Errorf("%s=%q is not an absolute path", v, d)
			}
			return path.Clean(d), nil
		}
	}
	if ws := cfg.slash(cfg.Workspace); ws != "" {
		if !isAbs(ws) {
			return "", fmt.Errorf("workspace %q is not an absolute path", cfg.Workspace)
		}
		return path.Clean(ws), nil
	}
	if cfg.GOOS == "windows" {
		root, err := grant.ProjectRoot(winpath.Native(cwd))
		if err != nil {
			return "", err
		}
		return winpath.ToSlash(root)
	}
	return grant.ProjectRoot(cwd)
}

// call is a tool call rivumi judges.
type call struct {
	shell bool
	// shells are the dialects the command is graded in, the strictest
	// verdict winning (nil: the configured one, shellDialect);
	// shellUnknown says the agent named a shell rivumi cannot parse.
	shells       []string
	shellUnknown string
	command      string
	argv         []string
	cwd          string
	op           Op
	paths        []string
	// problems are reasons to ask whatever the paths say (a search over
	// a tree too large to look at).
	problems []verdict.Reason
	// skill is a Claude Code skill: its commands are graded as shell
	// commands, the strictest verdict winning (hook/claudeskill.go).
	skill *skill
}

// Shell tools, per agent.
var shellTools = map[Agent]map[string]bool{
	ClaudeCode: {"Bash": true},
	Gemini:     {"run_shell_command": true},
	Codex:      {"Bash": true, "shell": true, "local_shell": true},
}

// agentScratch are, per agent, the agent's own scratch directories under
// its configuration (PathPolicy.Scratch): Gemini CLI writes its plans to
// ~/.gemini/tmp/<project>/plans/.
var agentScratch = map[Agent][]string{
	Gemini: {"~/.gemini/tmp/*/plans/"},
}

// fileTool says which input fields of a file tool hold paths.
type fileTool struct {
	op     Op
	fields []string // string fields naming a path; all present ones are judged
	list   []string // fields holding lists of paths (or path globs); all are read
	dir    []string // a directory searched (default: the cwd); all present are read
	glob   string   // a file-name glob inside dir
	patch  bool     // Codex apply_patch: paths inside the patch text
	opt    bool     // the path is optional (defaults to the cwd)
}

var fileTools = map[Agent]map[string]fileTool{
	ClaudeCode: {
		"Read":         {op: OpRead, fields: []string{"file_path"}},
		"Write":        {op: OpWrite, fields: []string{"file_path"}},
		"Edit":         {op: OpWrite, fields: []string{"file_path"}},
		"MultiEdit":    {op: OpWrite, fields: []string{"file_path"}},
		"NotebookEdit": {op: OpWrite, fields: []string{"notebook_path"}},
		"NotebookRead": {op: OpRead, fields: []string{"notebook_path"}},
		"Grep":         {op: OpRead, dir: []string{"path"}, glob: "glob"},
	},
	Gemini: {
		"read_file":           {op: OpRead, fields: []string{"absolute_path", "file_path", "path"}},
		"read_many_files":     {op: OpRead, list: []string{"include", "paths"}},
		"write_file":          {op: OpWrite, fields: []string{"file_path", "absolute_path", "path"}},
		"replace":             {op: OpWrite, fields: []string{"file_path", "absolute_path", "path"}},
		"edit":                {op: OpWrite, fields: []string{"file_path", "absolute_path", "path"}},
		"grep_search":         {op: OpRead, dir: []string{"dir_path", "path"}, glob: "include_pattern"},
		"search_file_content": {op: OpRead, dir: []string{"dir_path", "path"}, glob: "include_pattern"},
	},
	Codex: {
		// The native tool (hooked with --apply-patch); Write and Edit are
		// the names Codex also matches it by.
		"apply_patch": {op: OpWrite, patch: true},
		"Write":       {op: OpWrite, patch: true},
		"Edit":        {op: OpWrite, patch: true},
	},
}

// toolCall extracts what to judge from a tool's input; ok is false for
// tools rivumi has no opinion on.
func toolCall(cfg *Config, tool string, in map[string]any, cwd, workspace, sessionID string) (call, bool, error) {
	agent := cfg.Agent
	if agent == ClaudeCode {
		switch tool {
		case "Skill":
			s, ok, err := skillCall(cfg, in, cwd, workspace, sessionID)
			return call{skill: s, cwd: cwd}, ok, err
		case "CronCreate":
			return cronCall(in, cwd, workspace)
		}
	}
	if shellTools[agent][tool] {
		if agent == Codex {
			// Codex applies `apply_patch <<'EOF' … EOF` itself, without a
			// shell: the patch's files are what it writes.
			if dir, patch, ok := applypatch.Invocation(in["command"]); ok {
				c := call{op: OpWrite, cwd: cwd, paths: applypatch.Paths(patch)}
				if dir != "" {
					c.cwd = joinCwd(cwd, cfg.slash(dir))
				}
				if len(c.paths) == 0 {
					return c, false, errors.New("apply_patch names no file")
				}
				return c, true, nil
			}
		}
		c := call{shell: true, cwd: cwd}
		if agent == Codex {
			var err error
			if c.shells, c.shellUnknown, err = codexShells(in); err != nil {
				return c, false, err
			}
		}
		switch cmd := in["command"].(type) {
		case string:
			c.command = cmd
		case []any:
			for _, w := range cmd {
				s, ok := w.(string)
				if !ok {
					return c, false, errors.New(`"tool_input.command" holds a non-string word`)
				}
				c.argv = append(c.argv, s)
			}
			if len(c.argv) == 0 {
				return c, false, errors.New(`empty "tool_input.command"`)
			}
		default:
			return c, false, errors.New(`shell tool input without a "command" string`)
		}
		// Gemini runs the command in "dir_path" (0.61; "directory" before),
		// relative to the project; opencode in "workdir", oh-my-pi in
		// "cwd". All are read:
		// either one moves the cwd, and two that disagree are refused.
		d, err := dirParam(tool, in, "dir_path", "directory", "workdir", "cwd")
		if err != nil {
			return c, false, err
		}
		if d != "" {
			c.cwd = joinCwd(cwd, cfg.slash(d))
		}
		return c, true, nil
	}
	ft, ok := fileTools[agent][tool]
	if !ok {
		return call{}, false, nil
	}
	c := call{op: ft.op, cwd: cwd}
	switch {
	case ft.patch:
		for _, v := range in {
			if s, ok := v.(string); ok {
				c.paths = append(c.paths, applypatch.Paths(s)...)
			}
		}
		if len(c.paths) == 0 {
			return c, false, fmt.Errorf("%s input names no file", tool)
		}
	case ft.list != nil:
		for _, f := range ft.list {
			switch list := in[f].(type) {
			case nil:
			case string: // a single pattern
				c.paths = append(c.paths, list)
			case []any:
				for _, x := range list {
					s, ok := x.(string)
					if !ok {
						return c, false, fmt.Errorf("%s: %q holds a non-string", tool, f)
					}
					c.paths = append(c.paths, s)
				}
			default:
				return c, false, fmt.Errorf("%s: %q is not a list of paths", tool, f)
			}
		}
		if len(c.paths) == 0 {
			return c, false, fmt.Errorf("%s input without %q", tool, ft.list[0])
		}
	case ft.dir != nil:
		// A search reads every file below its directory (the cwd by
		// default) that the glob selects.
		dirs := []string{cwd}
		for _, f := range ft.dir {
			switch d := in[f].(type) {
			case nil:
			case string:
				if d != "" {
					dirs = append(dirs, joinCwd(cwd, d))
				}
			case []any: // several directories (Copilot CLI's grep)
				for _, x := range d {
					s, ok := x.(string)
					if !ok {
						return c, false, fmt.Errorf("%s: %q holds a non-string", tool, f)
					}
					if s != "" {
						dirs = append(dirs, joinCwd(cwd, s))
					}
				}
			default:
				return c, false, fmt.Errorf("%s: %q is not a string", tool, f)
			}
		}
		if len(dirs) > 1 {
			dirs = dirs[1:]
		}
		c.paths = dirs
		g, ok := in[ft.glob].(string)
		if !ok && in[ft.glob] != nil {
			return c, false, fmt.Errorf("%s: %q is not a string", tool, ft.glob)
		}
		if g != "" {
			// The glob as paths, each brace alternative: a pattern that
			// names a secret (*.env) is a secret read even before any
			// such file exists.
			alts, ok := expandBraces(g)
			if !ok {
				alts = []string{g}
			}
			for _, d := range dirs {
				for _, a := range alts {
					c.paths = append(c.paths, path.Join(d, a))
				}
			}
		}
		c.problems = searchSecrets(cfg, &c, dirs, g, workspace)
	default:
		// Every field that names a path is judged: the agent may read
		// another one than rivumi would pick (Gemini's read_file takes
		// file_path; older versions absolute_path).
		for _, f := range ft.fields {
			switch v := in[f].(type) {
			case nil:
			case string:
				if v != "" {
					c.paths = append(c.paths, v)
				}
			default:
				return c, false, fmt.Errorf("%s: %q is not a string", tool, f)
			}
		}
		if len(c.paths) == 0 {
			if !ft.opt {
				return c, false, fmt.Errorf("%s input without %q", tool, ft.fields[0])
			}
			c.paths = []string{cwd}
		}
	}
	return c, true, nil
}

// dirParam returns the directory a tool names in any of fields ("" for
// none); two different ones are an error, since the agent uses only one.
func dirParam(tool string, in map[string]any, fields ...string) (string, error) {
	var dir, from string
	for _, f := range fields {
		switch d := in[f].(type) {
		case nil:
		case string:
			if d == "" {
				continue
			}
			if dir != "" && path.Clean(d) != path.Clean(dir) {
				return "", fmt.Errorf("%s: %q and %q name different directories", tool, from, f)
			}
			dir, from = d, f
		default:
			return "", fmt.Errorf("%s: %q is not a string", tool, f)
		}
	}
	return dir, nil
}

// joinCwd resolves a directory argument against the cwd.
func joinCwd(cwd, d string) string {
	if isAbs(d) {
		return path.Clean(d)
	}
	return path.Join(cwd, d)
}

// AllShells are the dialects a command is graded in when the agent's shell
// cannot be known: the strictest verdict wins.
var AllShells = []string{"bash", "zsh", "sh"}

// RuleShellUnknown is the ask the hook adds when the agent names a shell
// rivumi cannot parse (fish, PowerShell, …): no grading of the text in
// bash, zsh or sh says what that shell runs.
const RuleShellUnknown = "hook.shell-unknown"

// codexShells returns the dialects a Codex shell call is graded in.
// Codex's exec_command takes a "shell" from the model, and 0.171 does not
// pass it to the hook: without the field, the command may run in any shell
// (the user's, or the model's choice), so it is graded in every one of
// AllShells. A field naming bash, zsh or sh (by path or name) is that
// dialect alone; any other name is all of them and unknown (capped at ask).
func codexShells(in map[string]any) (shells []string, unknown string, err error) {
	switch sh := in["shell"].(type) {
	case nil:
		return AllShells, "", nil
	case string:
		name := strings.TrimSuffix(strings.ToLower(sh[strings.LastIndexAny(sh, `/\`)+1:]), ".exe")
		if name == "bash" || name == "rbash" {
			return []string{"bash"}, "", nil
		}
		if p := programs.Lookup(name); p != nil {
			for _, d := range AllShells {
				if slices.Contains(p.Dialects[d], name) {
					return []string{d}, "", nil
				}
			}
		}
		if name == "" {
			return AllShells, "", nil
		}
		return AllShells, sh, nil
	default:
		return nil, "", errors.New(`"tool_input.shell" is not a string`)
	}
}

// gradeShell grades c's command in each of its dialects (or the configured
// one) and returns the strictest verdict: the first graded with the
// highest decision, its reasons kept.
func gradeShell(ctx context.Context, cfg *Config, c call, workspace string) (verdict.Verdict, error) {
	shells := c.shells
	if len(shells) == 0 || c.argv != nil { // an argv runs without a shell
		shells = []string{shellDialect(cfg)}
	}
	var out verdict.Verdict
	won, differ := "", false
	for i, sh := range shells {
		v, err := gradeShellIn(ctx, cfg, c, workspace, sh)
		if err != nil {
			return v, err
		}
		differ = differ || (i > 0 && v.Decision != out.Decision)
		if i == 0 || v.Decision > out.Decision {
			out, won = v, sh
		}
	}
	if differ { // say which shell decided
		out.Reasons = append(slices.Clip(out.Reasons), verdict.Reason{Rule: "hook.shell-" + won, Decision: out.Decision, Segment: -1,
			Text: fmt.Sprintf("graded as %s, the strictest of %s (the agent's shell is not known)", won, strings.Join(shells, ", "))})
	}
	if c.shellUnknown != "" && c.argv == nil && out.Decision < verdict.Ask {
		out.Decision = verdict.Ask
		out.Reasons = append(out.Reasons, verdict.Reason{Rule: RuleShellUnknown, Decision: verdict.Ask, Segment: -1,
			Text: fmt.Sprintf("the command runs in %q, a shell rivumi does not parse", c.shellUnknown)})
	}
	return out, nil
}

func gradeShellIn(ctx context.Context, cfg *Config, c call, workspace, dialect string) (verdict.Verdict, error) {
	if cfg.NewGrader == nil {
		return verdict.Verdict{}, errors.New("no grader configured")
	}
	g, err := cfg.NewGrader(ctx)
	if err != nil {
		return verdict.Verdict{}, fmt.Errorf("policy: %v", err)
	}
	// The agent runs the command on this machine: paths are graded where
	// they point (a cloned repo's notes.md → ~/.bashrc).
	r := verdict.Request{Cwd: c.cwd, Workspace: workspace, Home: cfg.slash(cfg.Home), Shell: dialect, FollowSymlinks: true}
	if c.argv != nil {
		r.Argv = c.argv
	} else {
		r.Command = &c.command
	}
	if cfg.Grants != nil {
		gs, err := cfg.Grants(workspace)
		if err != nil {
			return verdict.Verdict{}, fmt.Errorf("grants: %v", err)
		}
		r.Grants = gs
	}
	v, err := g(ctx, r)
	if err != nil {
		return verdict.Verdict{}, err
	}
	if !v.Decision.Valid() {
		return verdict.Verdict{Decision: verdict.Deny}, fmt.Errorf("grader returned decision %d, not a decision", int(v.Decision))
	}
	return v, nil
}

// shellDialect is the configured shell, else bash for Gemini CLI, else
// $SHELL's basename, mapped to bash, sh or zsh.
func shellDialect(cfg *Config) string {
	s := cfg.Shell
	if s == "" && profiles[cfg.Agent].shell != "" {
		return profiles[cfg.Agent].shell
	}
	if s == "" && cfg.Agent == Gemini {
		// Gemini CLI runs `bash -c` on Linux and macOS whatever $SHELL is
		// (and PowerShell on Windows: see capPowerShell).
		return "bash"
	}
	if s == "" {
		s = cfg.Getenv("SHELL")
	}
	// The basename with either separator ($SHELL may be a Windows path),
	// without .exe.
	s = s[strings.LastIndexAny(s, `/\`)+1:]
	s = strings.TrimSuffix(strings.ToLower(s), ".exe")
	return programs.Dialect(s)
}

// reply sets the answer for a graded call.
func reply(cfg *Config, a *Answer) {
	v := a.Verdict
	if cfg.Shadow {
		a.Reply, a.Reason = "", "shadow mode: rivumi would "+v.Decision.String()+": "+reasonText(v)
		return
	}
	switch v.Decision {
	case verdict.Allow:
		a.Reply, a.Reason = "allow", "rivumi allows: "+reasonText(v)
	case verdict.Deny:
		a.Reply, a.Reason = "deny", "rivumi denies: "+reasonText(v)
	case verdict.Ask:
		if ignoresAsk(cfg, a) && cfg.AskAs != AskPass && cfg.AskAs != AskAllow {
			// Claude Code 2.1.332 runs the tool on a hook's ask in
			// bypassPermissions (2.1.197 honoured it).
			a.Reply = "deny"
			a.Reason = fmt.Sprintf("rivumi needs a human to confirm this, and this session's permission mode (%s) ignores a hook's ask, so it is denied: %s%s",
				a.permissionMode, sentence(reasonText(v)), grantHint(v, a.workspace))
			return
		}
		if askable(cfg) {
			a.Reply, a.Reason = "ask", "rivumi asks: "+sentence(reasonText(v))+grantHint(v, a.workspace)
			return
		}
		switch cfg.AskAs {
		case AskPass:
			a.Reply, a.Reason = "", "rivumi would ask: "+reasonText(v)
		case AskAllow:
			a.Reply, a.Reason = "allow", "rivumi would ask (allowed by --ask-as allow): "+reasonText(v)
		default:
			why := "Codex hooks cannot ask"
			if p, ok := profiles[cfg.Agent]; ok {
				why = p.cannotAsk
			}
			if cfg.Agent == Gemini {
				why = "this Gemini CLI session cannot ask (it is not interactive)"
			}
			a.Reply = "deny"
			a.Reason = fmt.Sprintf("rivumi needs a human to confirm this, and %s, so it is denied: %s%s",
				why, sentence(reasonText(v)), grantHint(v, a.workspace))
		}
	default:
		// Not a decision (a zero Verdict): fail closed.
		a.Reply, a.Reason = "deny", "rivumi denies: no decision was reached"
	}
}

// ignoresAsk reports whether the session's permission mode makes the agent
// run the tool on an ask answer: Claude Code's bypassPermissions.
func ignoresAsk(cfg *Config, a *Answer) bool {
	if p, ok := profiles[cfg.Agent]; ok {
		return p.ignoresAsk != nil && p.ignoresAsk(a.permissionMode)
	}
	return cfg.Agent == ClaudeCode && a.permissionMode == "bypassPermissions"
}

// askable reports whether an ask verdict is answered with ask: always on
// Claude Code; on Gemini CLI when the session is interactive (or
// --ask-as ask says so); never on Codex, which runs the tool when a hook
// answers ask.
func askable(cfg *Config) bool {
	if p, ok := profiles[cfg.Agent]; ok {
		return p.askable != nil && p.askable(cfg)
	}
	switch cfg.Agent {
	case ClaudeCode:
		return true
	case Gemini:
		return cfg.AskAs == AskAsk || cfg.AskAs == AskAuto && cfg.Interactive()
	}
	return false
}

// reasonText names each deciding rule with its title and justification.
func reasonText(v verdict.Verdict) string {
	var parts []string
	seen := map[string]bool{}
	for _, r := range v.Reasons {
		if seen[r.Rule] {
			continue
		}
		seen[r.Rule] = true
		s := r.Rule
		if r.Layer == verdict.LayerGrant {
			s = "a grant for " + r.Rule
		}
		if r.Title != "" {
			s += " (" + r.Title + ")"
		}
		if r.Justification != "" {
			s += ": " + r.Justification
		}
		if r.Text != "" && r.Segment >= 0 {
			s += " [in: " + abridge(r.Text, 120) + "]"
		} else if r.Text != "" && r.Segment < 0 && v.Policy == PolicyID {
			s += " [" + abridge(r.Text, 200) + "]"
		}
		parts = append(parts, s)
		if len(parts) == 4 && len(v.Reasons) > 4 {
			parts = append(parts, fmt.Sprintf("and %d more", len(v.Reasons)-4))
			break
		}
	}
	if len(parts) == 0 {
		return "no reason given"
	}
	return strings.Join(parts, "; ")
}

// sentence ends s with a single period.
func sentence(s string) string { return strings.TrimRight(s, ". ") + "." }

func abridge(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// grantHint tells the user how to make an ask go away for good, when a
// grant can.
func grantHint(v verdict.Verdict, workspace string) string { return grant.Hint(v, workspace) }

// Write writes a's answer in cfg.Agent's protocol and returns the exit
// code. Failures exit 2 with the reason on stderr, which every supported
// agent takes as a block.
func Write(cfg Config, a Answer, stdout, stderr io.Writer) int {
	if a.AuditError != nil {
		fmt.Fprintf(stderr, "rivumi: audit: %v\n", a.AuditError)
	}
	if a.Failure != "" {
		fmt.Fprintln(stderr, a.Reason)
		return 2
	}
	var out any
	switch cfg.Agent {
	case ClaudeCode:
		if a.Reply != "" {
			out = hookOutput(a.Reply, a.Reason)
		}
		if a.UpdatedInput != nil && (a.Reply == "allow" || a.Reply == "ask") {
			out = struct {
				HookSpecificOutput hookSpecificInput `json:"hookSpecificOutput"`
			}{hookSpecificInput{hookSpecific{"PreToolUse", a.Reply, a.Reason}, a.UpdatedInput}}
		}
	case Codex:
		// Codex honours deny only: ask, and allow without updatedInput,
		// count as a failed hook and the tool runs. So allow and no
		// opinion are silence, and ask never reaches here (see askable).
		if a.Reply == "deny" || a.Reply == "ask" {
			out = hookOutput("deny", a.Reason)
		}
	case Gemini:
		switch a.Reply {
		case "allow", "deny":
			out = map[string]string{"decision": a.Reply, "reason": a.Reason}
		case "ask":
			// Gemini's confirmation shows the systemMessage.
			out = map[string]string{"decision": "ask", "reason": a.Reason, "systemMessage": a.Reason}
		default:
			out = map[string]string{}
		}
	default:
		p, ok := profiles[cfg.Agent]
		if !ok {
			fmt.Fprintf(stderr, "rivumi: unknown agent %q\n", cfg.Agent)
			return 2
		}
		if p.answer != nil {
			out = p.answer(a)
		}
	}
	if out == nil {
		return 0
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(stderr, "rivumi blocked this tool call: cannot encode the answer")
		return 2
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		fmt.Fprintln(stderr, "rivumi blocked this tool call: cannot write the answer")
		return 2
	}
	return 0
}

type hookSpecific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// hookSpecificInput is Claude Code's answer that also replaces the tool's
// input.
type hookSpecificInput struct {
	hookSpecific
	UpdatedInput map[string]any `json:"updatedInput"`
}

func hookOutput(decision, reason string) any {
	return struct {
		HookSpecificOutput hookSpecific `json:"hookSpecificOutput"`
	}{hookSpecific{"PreToolUse", decision, reason}}
}

// ProbeSource prefixes the audit source of a call `rivumi hook doctor`
// made (Config.Probe): "doctor/claude-code". Reports leave such entries
// out: they are no agent's calls.
const ProbeSource = "doctor/"

// logAnswer writes the audit entry of one call.
func logAnswer(cfg *Config, a Answer) error {
	if cfg.Audit == nil {
		return nil
	}
	source := "hook/" + string(cfg.Agent)
	if cfg.Probe {
		source = ProbeSource + string(cfg.Agent)
	}
	e := audit.Entry{
		Kind: audit.KindGrade, Source: source, Cwd: a.cwd, Workspace: a.workspace,
		Command: a.command, Approver: "hook", Error: a.Failure,
	}
	if a.Graded {
		e.Verdict = a.Verdict.Decision.String()
		e.Policy = a.Verdict.Policy
		for _, r := range a.Verdict.Reasons {
			e.Rules = append(e.Rules, r.Rule)
		}
	}
	e.Decision = a.Reply
	e.Answer = a.Reply
	if e.Answer == "" || cfg.Agent == Codex && a.Reply == "allow" && a.Failure == "" {
		e.Answer = "none" // what the agent was sent: Codex gets silence for allow
	}
	notes := []string{}
	if a.tool != "" {
		notes = append(notes, "tool "+a.tool)
	}
	if len(a.paths) > 0 {
		notes = append(notes, "paths "+strings.Join(a.paths, " "))
	}
	if cfg.Shadow {
		notes = append(notes, "shadow")
	}
	if !a.Graded && a.Failure == "" {
		notes = append(notes, "not judged")
	}
	e.Note = strings.Join(notes, "; ")
	return cfg.Audit.Log(context.Background(), e)
}

// slash returns p in the form paths are graded in: on Windows the slash
// form of [winpath.ToSlash] (a path it refuses becomes "", which no check
// takes as absolute); elsewhere p itself.
func (cfg *Config) slash(p string) string {
	if cfg.GOOS != "windows" || p == "" {
		return p
	}
	s, err := winpath.ToSlash(p)
	if err != nil {
		return ""
	}
	return s
}

// isAbs reports whether a slash-form path is absolute.
func isAbs(p string) bool { return strings.HasPrefix(p, "/") }

// RulePowerShell is the ask the hook adds on Windows for agents whose shell
// tool runs PowerShell (Gemini CLI, Codex), which rivumi cannot parse.
const RulePowerShell = "hook.powershell-unparsed"

// capPowerShell turns an allow into an ask for agents that run their
// commands in PowerShell on Windows, unless --shell names the dialect: the
// text was graded as bash, and what bash reads as data PowerShell may run
// (a parenthesized expression, for one). Floor, deny and ask stand.
func capPowerShell(cfg *Config, v verdict.Verdict) verdict.Verdict {
	if cfg.GOOS != "windows" || cfg.Shell != "" || (cfg.Agent != Gemini && cfg.Agent != Codex) || v.Decision != verdict.Allow {
		return v
	}
	v.Decision = verdict.Ask
	v.Reasons = []verdict.Reason{{Rule: RulePowerShell, Layer: verdict.LayerAsk, Decision: verdict.Ask, Segment: -1,
		Title: "PowerShell is not graded",
		Justification: string(cfg.Agent) + " runs shell commands in PowerShell on Windows, which rivumi cannot parse, so it never allows them. " +
			"If it runs Git Bash instead, pass --shell bash to the hook."}}
	return v
}
