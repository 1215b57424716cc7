package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/internal/strictjson"
	"github.com/rivumi/rivumi/verdict"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/bundle"
)

// Limits bound what one call reads or returns. Zero fields take the
// defaults ([DefaultLimits]).
type Limits struct {
	// MaxFileBytes is the largest file read_file returns and replace_text
	// edits (default 1 MiB).
	MaxFileBytes int64
	// MaxEntries bounds list_files (default 2000).
	MaxEntries int
	// MaxMatches bounds search_text (default 200); files above
	// MaxFileBytes are skipped and lines cut at MaxLineBytes (default 400).
	MaxMatches   int
	MaxLineBytes int
	// MaxSearchBytes bounds the bytes one search_text reads in all
	// (default 64 MiB).
	MaxSearchBytes int64
	// MaxOutputBytes bounds the output of run_check, shell and git_diff
	// returned to the caller (default 64 KiB; the tail is kept).
	MaxOutputBytes int
	// ShellTimeout bounds a whole shell call (default 5m); each command in
	// it has the harness's timeout.
	ShellTimeout time.Duration
}

// DefaultLimits are the limits of a zero [Limits].
var DefaultLimits = Limits{
	MaxFileBytes: 1 << 20, MaxEntries: 2000, MaxMatches: 200, MaxLineBytes: 400, MaxSearchBytes: 64 << 20,
	MaxOutputBytes: 64 << 10, ShellTimeout: 5 * time.Minute,
}

// Config configures [New].
type Config struct {
	// Workspace is the prepared workspace the tools work in. Required.
	Workspace *workspace.Workspace
	// Engine grades shell commands. Nil: the shell tool refuses every
	// command.
	Engine *engine.Engine
	// Approver decides shell commands the engine grades ask (for a shell
	// command, ApprovalRequest.Argv holds the command text as its only
	// element). Nil: an ask is a deny.
	Approver harness.Approver
	// Grants are the project's grants: the shell tool's grading honours
	// them, and an "always" answer records there the grants
	// ([grant.For]) the approver was offered. Nil: nothing is
	// offered, and "always" counts as "once".
	Grants *grant.Store
	// Harness is the template of the harness commands run through
	// (sandbox, network, audit, timeouts, output bounds). Its Grader,
	// Approver, Workspace and RunRoot are set by the tools.
	Harness harness.Config
	Limits  Limits
	// SessionKind names what serves the tools in session.json:
	// [SessionMCP], [SessionCLI] or (empty) [SessionAPI].
	SessionKind string
}

// Tools is the tool set of one workspace. Calls are serialised: it is
// safe for concurrent use, one call at a time.
type Tools struct {
	cfg     Config
	w       *workspace.Workspace
	h       *harness.Harness
	lim     Limits
	mu      sync.Mutex
	version map[string]string // path → SHA-256 of the bytes last read or written by a tool
	sess    session
}

// New returns the tools of cfg.Workspace and starts a session of them in
// the bundle's session.json. It resumes from the bundle's checkpoint.json
// (and the events recorded after it), so a process that reopens a
// workspace — after a crash too — continues where the last one stopped:
// the read versions whose files are unchanged on disk are kept (the
// others dropped: those files must be read again), and an approval left
// pending is recorded as an interrupted call. A corrupt checkpoint, or one
// of another run, is an error (a [*bundle.CheckpointError]): New never
// resumes from a checkpoint it cannot trust. Close the tools to end the
// session.
func New(cfg Config) (*Tools, error) {
	if cfg.Workspace == nil {
		return nil, errors.New("tools: no workspace")
	}
	lim := cfg.Limits
	d := DefaultLimits
	setDef(&lim.MaxFileBytes, d.MaxFileBytes)
	setDef(&lim.MaxEntries, d.MaxEntries)
	setDef(&lim.MaxMatches, d.MaxMatches)
	setDef(&lim.MaxLineBytes, d.MaxLineBytes)
	setDef(&lim.MaxSearchBytes, d.MaxSearchBytes)
	setDef(&lim.MaxOutputBytes, d.MaxOutputBytes)
	setDef(&lim.ShellTimeout, d.ShellTimeout)
	t := &Tools{cfg: cfg, w: cfg.Workspace, lim: lim, version: map[string]string{}}

	hc := cfg.Harness
	hc.Grader = verdict.GraderFunc(clearedGrader)
	hc.Approver = harness.Headless{}
	hc.Workspace = t.w.Dir()
	hc.RunRoot = t.w.TmpDir()
	// The clone's git directory, outside the workspace: commands may read
	// it (git status in a check) but never write it.
	if gd := t.w.GitDir(); !strings.HasPrefix(gd, t.w.Dir()+string(filepath.Separator)) {
		hc.ReadOnly = append(hc.ReadOnly, gd)
	}
	if hc.AuditSource == "" {
		hc.AuditSource = "workspace"
	}
	// A check's own timeout (set by whoever configured the checks, not by
	// the agent) must not be denied as above the maximum.
	if hc.MaxTimeout <= 0 {
		hc.MaxTimeout = harness.DefaultMaxTimeout
	}
	for _, c := range t.w.Request().Checks {
		hc.MaxTimeout = max(hc.MaxTimeout, time.Duration(c.Timeout))
	}
	h, err := newHarness(hc, cfg.Engine)
	if err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	t.h = h

	if err := t.resume(); err != nil {
		return nil, err
	}
	return t, nil
}

func setDef[T int | int64 | time.Duration](p *T, v T) {
	if *p <= 0 {
		*p = v
	}
}

// Tool names.
const (
	ToolListFiles   = "list_files"
	ToolReadFile    = "read_file"
	ToolSearchText  = "search_text"
	ToolReplaceText = "replace_text"
	ToolApplyPatch  = "apply_patch"
	ToolRunCheck    = "run_check"
	ToolGitDiff     = "git_diff"
	ToolShell       = "shell"
)

// Spec describes one tool: its name, what it does, and zero values of its
// argument and output types (for JSON schemas).
type Spec struct {
	Name    string
	Summary string
	Args    any
	Output  any
}

// Specs lists every tool, in a stable order.
func Specs() []Spec {
	return []Spec{
		{ToolListFiles, "list the files under a directory of the workspace (symlinks not followed, .git hidden)", ListFilesArgs{}, ListFilesOutput{}},
		{ToolReadFile, "read a text file; the result's sha256 is the read version replace_text needs", ReadFileArgs{}, ReadFileOutput{}},
		{ToolSearchText, "find lines containing a fixed string", SearchTextArgs{}, SearchTextOutput{}},
		{ToolReplaceText, "replace text in a git-tracked file read before and unchanged since", ReplaceTextArgs{}, ReplaceTextOutput{}},
		{ToolApplyPatch, "apply a unified diff (new files are added with git add --intent-to-add)", ApplyPatchArgs{}, ApplyPatchOutput{}},
		{ToolRunCheck, "run a configured verification command by name", RunCheckArgs{}, RunCheckOutput{}},
		{ToolGitDiff, "show the change against the pinned commit", GitDiffArgs{}, GitDiffOutput{}},
		{ToolShell, "run a command string, graded by the policy and run without a shell", ShellArgs{}, ShellOutput{}},
	}
}

// Result is the answer of [Tools.Call]. OK false means the call was
// refused or failed at the tool boundary; Error says why, for the agent.
// Output is the tool's output struct (set when OK, and for run_check and
// shell also when the command ran but failed).
type Result struct {
	Tool  string `json:"tool"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// Output is the tool's output struct as redacted JSON.
	Output json.RawMessage `json:"output,omitempty"`
}

// Refusal is a failure at the tool boundary: [Tools.Call] turns it into an
// observation (a Result with OK false), never a Go error.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

func refusef(format string, args ...any) error { return &Refusal{Reason: fmt.Sprintf(format, args...)} }

// note is what a tool adds to its event besides the defaults.
type note struct {
	summary  string
	decision string
	rules    []string
	approval string
	path     string
	sha      string
	findings []audit.Finding
	// keepOutput returns the output with a refusal too (run_check, shell).
	keepOutput bool
}

// Call decodes args for the named tool, runs it, records the event and
// returns the redacted result. See the package documentation for which
// failures are observations and which are errors.
func (t *Tools) Call(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess.closed {
		return Result{Tool: name}, errors.New("tools: closed")
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	if err := t.begin(name, args); err != nil {
		return Result{Tool: name}, err
	}
	defer func() { t.sess.inFlight = nil }()
	var (
		out any
		n   note
		err error
	)
	switch name {
	case ToolListFiles:
		out, n, err = call(ctx, args, t.listFiles)
	case ToolReadFile:
		out, n, err = call(ctx, args, t.readFile)
	case ToolSearchText:
		out, n, err = call(ctx, args, t.searchText)
	case ToolReplaceText:
		out, n, err = call(ctx, args, t.replaceText)
	case ToolApplyPatch:
		out, n, err = call(ctx, args, t.applyPatch)
	case ToolRunCheck:
		out, n, err = call(ctx, args, t.runCheck)
	case ToolGitDiff:
		out, n, err = call(ctx, args, t.gitDiff)
	case ToolShell:
		out, n, err = call(ctx, args, t.shell)
	default:
		names := make([]string, 0, 8)
		for _, s := range Specs() {
			names = append(names, s.Name)
		}
		err = refusef("unknown tool %q (tools: %s)", name, strings.Join(names, ", "))
	}
	t.sess.inFlight = nil // the call is over: its event and checkpoint follow
	res := Result{Tool: name, OK: err == nil}
	var ref *Refusal
	switch {
	case err == nil:
	case errors.As(err, &ref):
		res.Error = audit.Redact(ref.Reason)
	default:
		t.record(name, args, res, n, err.Error()) //nolint:errcheck // the call's own error wins
		t.called(name)                            //nolint:errcheck // the call's own error wins
		return res, err
	}
	if !res.OK && !n.keepOutput {
		out = nil
	}
	redacted, err := redactResult(res, out)
	if err != nil {
		return res, err
	}
	if err := t.record(name, args, redacted, n, res.Error); err != nil {
		return redacted, err
	}
	if err := t.called(name); err != nil {
		return redacted, err
	}
	return redacted, nil
}

// call decodes args strictly into A and runs f.
func call[A, O any](ctx context.Context, raw json.RawMessage, f func(context.Context, A, *note) (O, error)) (any, note, error) {
	var n note
	var a A
	if err := decodeArgs(raw, &a); err != nil {
		return nil, n, err
	}
	o, err := f(ctx, a, &n)
	return o, n, err
}

// decodeArgs refuses timeout fields, then decodes strictly
// ([strictjson.Decode]: unknown, duplicate and case-variant keys and
// trailing data are refused).
func decodeArgs(raw json.RawMessage, v any) error {
	var probe map[string]json.RawMessage
	if err := strictjson.Decode(raw, &probe); err != nil || probe == nil {
		if err == nil {
			err = errors.New("null")
		}
		return refusef("arguments: not a JSON object: %v", err)
	}
	for _, k := range []string{"timeout_seconds", "timeout", "timeout_ms"} {
		if _, ok := probe[k]; ok {
			return refusef("arguments: %s is not accepted: the harness owns the timeout", k)
		}
	}
	if err := strictjson.Decode(raw, v); err != nil {
		return refusef("arguments: %v", err)
	}
	return nil
}

// redactResult encodes out as the result's output with every string
// passed through the redactor ([audit.RedactJSON]).
func redactResult(r Result, out any) (Result, error) {
	r.Error = audit.Redact(r.Error)
	if out == nil {
		return r, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return r, fmt.Errorf("tools: encode %s output: %w", r.Tool, err)
	}
	if r.Output, err = audit.RedactJSON(b); err != nil {
		return r, err
	}
	return r, nil
}

// record appends the call's event to the bundle.
func (t *Tools) record(name string, args json.RawMessage, res Result, n note, errText string) error {
	outBytes := len(res.Output) + len(res.Error)
	ev := bundle.Event{
		Tool: name, Args: compactArgs(args), Decision: n.decision, Rules: n.rules, Approval: n.approval,
		OK: res.OK && errText == "", Summary: n.summary, Error: errText,
		BytesIn: len(args), BytesOut: outBytes, Path: n.path, SHA256: n.sha, Findings: n.findings,
	}
	if !res.OK && ev.Error == "" {
		ev.Error = res.Error
	}
	if name == ToolShell || name == ToolRunCheck {
		ev.Sandbox = t.sandbox()
	}
	_, err := t.w.Bundle().Append(ev)
	return err
}

// compactArgs returns args as compact JSON (the original when it is not
// valid JSON, as a JSON string).
func compactArgs(args json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, args); err != nil {
		b, _ := json.Marshal(string(args))
		return b
	}
	return buf.Bytes()
}

// newHarness makes the tools' harness. With the engine and a sandbox of
// auto or landlock, the exec gate is on by default where the kernel has it
// (harness.GateDeny: every program a check or the shell starts is graded
// at its exec, and what the policy denies is refused there); where it
// cannot run, the harness is made as configured, without it.
func newHarness(hc harness.Config, e *engine.Engine) (*harness.Harness, error) {
	if hc.Gate != harness.GateOff || e == nil || (hc.Sandbox != harness.SandboxAuto && hc.Sandbox != harness.SandboxLandlock) {
		return harness.New(hc)
	}
	gated := hc
	gated.Gate = harness.GateDeny
	gated.GateGrader = e // the engine grades each exec where its paths point
	if h, err := harness.New(gated); err == nil {
		return h, nil
	}
	return harness.New(hc)
}

// sandbox names the OS sandbox the tools' commands run under.
// With the exec gate it says so: "landlock+gate:deny".
func (t *Tools) sandbox() string {
	b, _ := t.h.Sandbox()
	if g := t.h.Gate(); g != harness.GateOff {
		return string(b) + "+gate:" + string(g)
	}
	return string(b)
}

// versionOf returns the read version recorded for path.
func (t *Tools) versionOf(path string) (string, bool) {
	v, ok := t.version[path]
	return v, ok
}

// keepHead returns the first max bytes of s (up to the last line that
// fits), marking the cut.
func keepHead(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	head := s[:max]
	if i := strings.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	return head + "[… " + fmt.Sprint(len(s)-len(head)) + " bytes cut …]\n", true
}
