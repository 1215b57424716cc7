package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/internal/shquote"
	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/verdict"
	"github.com/rivumi/rivumi/workspace/bundle"
	"github.com/rivumi/rivumi/workspace/pathpolicy"
)

// ShellArgs are shell's arguments.
//
// Command is graded as a whole by the engine (bash dialect, in Dir, within
// the workspace). Deny refuses it; ask goes to the approver (none: a
// deny). It then runs in mvdan.cc/sh's interpreter — never /bin/sh — with
// these handlers:
//
//   - every simple command the interpreter is about to run (builtins and
//     function calls included) must equal, in argv (after its wrappers),
//     wrappers, environment assignments and working directory, a segment
//     of the graded command whose words were all static; anything else
//     halts the run with a refusal. So a word that only expansion could
//     tell (a variable, a substitution feeding an argument, a glob) never
//     runs, nor does a loop's second item when the grading saw only the
//     first, nor does code that eval or source would bring in;
//   - programs are exec'd as argv by the harness (clean environment, new
//     process group, the harness's timeout and sandbox); prefix
//     assignments (X=1 cmd) are not passed and are refused;
//   - the builtins run inside the interpreter are only :, true, false,
//     echo, printf, test, [, cd, pwd, exit, break, continue, and set with
//     only -e, -u and -o pipefail/errexit/nounset (or their + forms); any
//     other builtin (eval, source, exec, read, trap, export, …) and any
//     function call is refused;
//   - background jobs (&, coproc) are refused before anything runs;
//   - redirections open only targets the grading saw as static paths, and
//     through the path policy (writes only to allowed paths, never .git,
//     never through a symlink; /dev/null is allowed); directory reads
//     (globs) are refused; file tests see only the workspace.
type ShellArgs struct {
	Command string `json:"command"`
	// Dir is the working directory, relative to the workspace root
	// (default ".").
	Dir string `json:"dir,omitempty"`
}

// ShellCommand is one program the interpreter ran through the harness.
type ShellCommand struct {
	Argv     []string `json:"argv"`
	Dir      string   `json:"dir"`
	ExitCode int      `json:"exit_code"`
	TimedOut bool     `json:"timed_out,omitempty"`
}

// ShellOutput is shell's output.
type ShellOutput struct {
	// Decision is the grading's ("allow", or "ask" when approved); Rules
	// the ids of the rules that decided it.
	Decision string   `json:"decision"`
	Rules    []string `json:"rules,omitempty"`
	// Sandbox is the OS sandbox the commands ran under.
	Sandbox string `json:"sandbox"`
	// ExitCode is the command's exit status (-1 when it was refused or
	// halted).
	ExitCode int `json:"exit_code"`
	// Stdout and Stderr are the heads and tails of the output, redacted,
	// with a marker where bytes were cut (see agentOutput).
	Stdout   string         `json:"stdout"`
	Stderr   string         `json:"stderr"`
	Commands []ShellCommand `json:"commands"`
}

// internalBuiltins run inside the interpreter; they touch nothing outside
// it but the working directory and the output.
var internalBuiltins = map[string]bool{
	":": true, "true": true, "false": true, "echo": true, "printf": true, "test": true, "[": true,
	"cd": true, "pwd": true, "exit": true, "break": true, "continue": true,
}

// safeSet reports whether set's arguments only switch errexit, nounset
// and pipefail ("set -euo pipefail", "set +e").
func safeSet(args []string) bool {
	if len(args) == 0 {
		return false // prints every variable
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			return false
		}
		for j, c := range a[1:] {
			switch {
			case c == 'e' || c == 'u':
			case c == 'o' && j == len(a)-2 && i+1 < len(args):
				i++
				switch args[i] {
				case "pipefail", "errexit", "nounset":
				default:
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

func (t *Tools) shell(ctx context.Context, a ShellArgs, n *note) (ShellOutput, error) {
	out := ShellOutput{ExitCode: -1, Commands: []ShellCommand{}, Sandbox: t.sandbox()}
	if t.cfg.Engine == nil {
		return out, refusef("the shell tool is not available: no policy engine configured")
	}
	if strings.TrimSpace(a.Command) == "" {
		return out, refusef("command: empty")
	}
	if a.Dir == "" {
		a.Dir = "."
	}
	pol := t.w.Policy()
	root := pol.Root()
	cleanDir, dir, err := pol.Resolve(a.Dir, pathpolicy.Read)
	if err != nil {
		return out, boundary(err)
	}
	wroot, err := os.OpenRoot(t.w.Dir())
	if err != nil {
		return out, err
	}
	fi, err := wroot.Stat(cleanDir)
	wroot.Close()
	if err != nil || !fi.IsDir() {
		return out, refusef("dir %q is not a directory", a.Dir)
	}
	popts := []parser.Option{parser.Cwd(dir), parser.Workspace(root), parser.Shell("bash"), parser.FollowSymlinks()}
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		popts = append(popts, parser.Home(home))
	}
	popts = append(popts, t.cfg.Engine.ParserOptions()...) // the configuration's team programs
	cmd, perr := parser.Parse(a.Command, popts...)
	var grants []verdict.Grant
	if t.cfg.Grants != nil {
		grants = t.cfg.Grants.List()
	}
	v := t.cfg.Engine.Evaluate(ctx, cmd, engine.Grants(grants))
	if perr == nil && v.Decision == verdict.Allow {
		if rs := writesOutsideAllowed(cmd, pol); len(rs) > 0 {
			v.Decision = verdict.Ask
			v.Reasons = append(v.Reasons, rs...)
		}
	}
	out.Decision = v.Decision.String()
	for _, r := range v.Reasons {
		if r.Rule != "" && !slices.Contains(out.Rules, r.Rule) {
			out.Rules = append(out.Rules, r.Rule)
		}
	}
	n.decision, n.rules = out.Decision, out.Rules
	n.keepOutput = true
	switch {
	case perr != nil:
		return out, refusef("command does not parse: %v", perr)
	case v.Decision == verdict.Deny:
		return out, refusef("denied by policy: %s", describe(v.Reasons))
	case v.Decision == verdict.Ask:
		ans := t.approve(ctx, a.Command, dir, v)
		n.approval = ans
		if ans != "once" && !strings.HasPrefix(ans, "always") {
			return out, refusef("needs approval (%s), answer %s: %s", describe(v.Reasons), ans, describe(v.Reasons))
		}
	case v.Decision != verdict.Allow:
		return out, refusef("unknown decision %v", v.Decision)
	}

	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(a.Command), "")
	if err != nil {
		return out, refusef("command does not parse: %v", err)
	}
	// The interpreter does not wait for background jobs: they would
	// outlive the call (and its record). Refuse them before anything runs.
	var background bool
	syntax.Walk(file, func(node syntax.Node) bool {
		if st, ok := node.(*syntax.Stmt); ok && (st.Background || st.Coprocess) {
			background = true
		}
		return !background
	})
	if background {
		return out, refusef("background jobs (&, coproc) are not run by the workspace shell")
	}
	run := &shellRun{t: t, graded: cmd.Segments, root: root, verdict: v, targets: map[string]bool{}}
	for _, seg := range cmd.Segments {
		for _, rd := range seg.Redirects {
			if !rd.Target.Dynamic && filepath.IsAbs(rd.Target.Path) {
				run.targets[filepath.Clean(rd.Target.Path)] = true
			}
		}
	}
	stdout := &headTail{max: t.lim.MaxOutputBytes}
	stderr := &headTail{max: t.lim.MaxOutputBytes}
	var runner *interp.Runner
	runner, err = interp.New(
		interp.Env(expand.ListEnviron("TMPDIR="+t.w.TmpDir())),
		interp.Dir(dir),
		interp.StdIO(nil, stdout, stderr),
		interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
			return run.call(ctx, runner, args)
		}),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return run.exec }),
		interp.OpenHandler(run.open),
		interp.ReadDirHandler2(run.readDir),
		interp.StatHandler(run.stat),
		interp.AccessHandler(run.access),
	)
	if err != nil {
		return out, fmt.Errorf("tools: shell: %w", err)
	}
	rctx, cancel := context.WithTimeout(ctx, t.lim.ShellTimeout)
	defer cancel()
	err = runner.Run(rctx, file)
	out.Stdout, out.Stderr = stdout.String(), stderr.String()
	out.Commands = append(out.Commands, run.ran...)
	n.summary = fmt.Sprintf("%d command(s) ran", len(run.ran))
	if g := run.globRefusal(); g != nil {
		// A glob the interpreter could not expand halts the run, where the
		// interpreter alone would go on (with `&&` too).
		return out, g
	}
	var status interp.ExitStatus
	if errors.As(err, &status) {
		out.ExitCode = int(status)
		n.summary += fmt.Sprintf(", exit %d", status)
		return out, nil
	}
	var ref *Refusal
	switch {
	case err == nil:
		out.ExitCode = 0
		n.summary += ", exit 0"
		return out, nil
	case errors.As(err, &ref):
		return out, ref
	case rctx.Err() != nil:
		return out, refusef("stopped after %v (the harness owns the timeout)", t.lim.ShellTimeout)
	}
	return out, fmt.Errorf("tools: shell: %w", err)
}

func describe(rs []verdict.Reason) string {
	var parts []string
	for _, r := range rs {
		s := r.Rule
		if r.Justification != "" {
			s += " (" + r.Justification + ")"
		}
		if !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "no reason given"
	}
	return strings.Join(parts, "; ")
}

// approve asks the approver about a shell command and returns the answer
// as recorded ("once", "always", "deny", "timeout", "error: …"). An
// "always" records the offered grants in the grant store; one that cannot
// be recorded is reported in the answer ("always (grant not recorded: …)")
// and the command runs once.
func (t *Tools) approve(ctx context.Context, text, dir string, v verdict.Verdict) string {
	if t.cfg.Approver == nil {
		return "deny (no approver)"
	}
	timeout := t.cfg.Harness.ApprovalTimeout
	if timeout <= 0 {
		timeout = harness.DefaultApprovalTimeout
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := actx.Deadline()
	var offered []verdict.Grant
	if t.cfg.Grants != nil {
		offered = grant.For(v)
	}
	pending := bundle.PendingApproval{Tool: ToolShell, Command: text, Dir: dir, Asked: time.Now().UTC()}
	for _, r := range v.Reasons {
		if r.Decision == verdict.Ask && r.Rule != "" && !slices.Contains(pending.Rules, r.Rule) {
			pending.Rules = append(pending.Rules, r.Rule)
		}
	}
	// The checkpoint says a question is out before it is put: a process
	// killed while it waits leaves it there, and the next one records the
	// call as interrupted.
	if err := t.askStarted(pending); err != nil {
		return "error: " + err.Error()
	}
	answer, granted := t.ask(actx, text, dir, v, offered, deadline)
	if err := t.askEnded(pending, answer, granted); err != nil {
		return "error: " + err.Error()
	}
	return answer
}

// ask puts the question and returns the answer as recorded, with the
// grants an "always" recorded.
func (t *Tools) ask(actx context.Context, text, dir string, v verdict.Verdict, offered []verdict.Grant, deadline time.Time) (string, []verdict.Grant) {
	ans, err := t.cfg.Approver.Approve(actx, harness.ApprovalRequest{Argv: []string{text}, Dir: dir, Verdict: v, Grants: offered, Deadline: deadline})
	switch {
	case actx.Err() != nil:
		return "timeout", nil
	case err != nil:
		return "error: " + err.Error(), nil
	case ans == harness.AnswerAlways && len(offered) == 0:
		return "once", nil
	case ans == harness.AnswerAlways:
		var errs []error
		for _, g := range offered {
			errs = append(errs, t.cfg.Grants.Add(g))
		}
		if err := errors.Join(errs...); err != nil {
			return "always (grant not recorded: " + err.Error() + ")", nil
		}
		return ans.String(), offered
	}
	return ans.String(), nil
}

// shellRun is the state of one shell call.
type shellRun struct {
	t       *Tools
	graded  []*parser.Segment
	root    string
	verdict verdict.Verdict

	// targets are the static redirect targets of the graded segments.
	targets map[string]bool

	mu      sync.Mutex
	pending [][]string // argv cleared by call, awaiting exec
	ran     []ShellCommand
	glob    error // the first refused glob: nothing runs after it
}

// readDir is the interpreter's ReadDirHandler2: globs are never expanded.
// The interpreter reports the error and would go on, so the refusal is
// kept: the next command (the call handler) and the run's end refuse.
func (r *shellRun) readDir(context.Context, string) ([]fs.DirEntry, error) {
	err := &Refusal{Reason: "directory reads (globs) are not run by the workspace shell"}
	r.mu.Lock()
	if r.glob == nil {
		r.glob = err
	}
	r.mu.Unlock()
	return nil, err
}

func (r *shellRun) globRefusal() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.glob
}

// call is the interpreter's CallHandler: it runs before every simple
// command.
func (r *shellRun) call(ctx context.Context, runner *interp.Runner, args []string) ([]string, error) {
	if err := r.globRefusal(); err != nil {
		return nil, err
	}
	hc := interp.HandlerCtx(ctx)
	name := args[0]
	if _, ok := runner.Funcs[name]; ok {
		return nil, refusef("function %s: function calls are not run by the workspace shell", name)
	}
	if interp.IsBuiltin(name) && !internalBuiltins[name] && !(name == "set" && safeSet(args[1:])) {
		return nil, refusef("builtin %s is not run by the workspace shell", name)
	}
	if !r.graded1(args, hc.Dir) {
		return nil, refusef("%s (in %s) is not a command that was graded: the interpreter computed it at run time", shquote.Display(args), r.rel(hc.Dir))
	}
	if !interp.IsBuiltin(name) {
		r.mu.Lock()
		r.pending = append(r.pending, slices.Clone(args))
		r.mu.Unlock()
	}
	return args, nil
}

// graded1 reports whether args run in dir equal a graded segment.
func (r *shellRun) graded1(args []string, dir string) bool {
	got, err := parser.FromArgv(args, parser.Cwd(dir), parser.Workspace(r.root))
	if err != nil || len(got.Segments) == 0 {
		return false
	}
	g := got.Segments[0]
	for _, s := range r.graded {
		if !s.CwdKnown || slices.Contains(s.Dynamic, true) {
			continue
		}
		if slices.Equal(s.Argv, g.Argv) && s.Path == g.Path && s.Cwd == g.Cwd &&
			slices.EqualFunc(s.Wrappers, g.Wrappers, func(a, b parser.Wrapper) bool {
				return a.Name == b.Name && slices.Equal(a.Args, b.Args)
			}) &&
			slices.EqualFunc(s.Assigns, g.Assigns, func(a, b parser.Assign) bool {
				return a.Name == b.Name && a.Value == b.Value && !a.Dynamic
			}) {
			return true
		}
	}
	return false
}

// exec is the interpreter's ExecHandler: a program runs through the
// harness, which lets through exactly the argv the call handler cleared.
func (r *shellRun) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	r.mu.Lock()
	i := slices.IndexFunc(r.pending, func(p []string) bool { return slices.Equal(p, args) })
	if i >= 0 {
		r.pending = slices.Delete(r.pending, i, i+1)
	}
	r.mu.Unlock()
	if i < 0 {
		return refusef("%s was not cleared before it was executed", shquote.Display(args))
	}
	dir := hc.Dir
	cl := &clearance{
		allow:   func(argv []string, d string) bool { return slices.Equal(argv, args) && d == dir },
		verdict: r.verdict,
	}
	cl.verdict.Decision = verdict.Allow // graded allow, or approved
	var stdin io.Reader
	if f, ok := hc.Stdin.(*os.File); ok && f != nil {
		stdin = f
	} else if !ok && hc.Stdin != nil {
		stdin = hc.Stdin
	}
	// Under bwrap the workspace paths outside allowed_paths are mounted
	// read-only over the writable workspace, as they stand now.
	ro, refused := r.t.readOnlyPaths()
	if refused != "" {
		return refusef("%s did not run: %s", shquote.Display(args), refused)
	}
	res, err := r.t.h.Run(context.WithValue(ctx, clearanceKey{}, cl), harness.Request{
		Argv: args, Dir: dir, Stdin: stdin, Stdout: hc.Stdout, Stderr: hc.Stderr, ReadOnly: ro,
	})
	if err != nil {
		if !res.Ran {
			return refusef("%s: %v", shquote.Display(args), err)
		}
		return fmt.Errorf("tools: shell: %w", err)
	}
	if !res.Ran {
		return refusef("%s did not run: %s", shquote.Display(args), res.Refusal)
	}
	code := res.ExitCode
	switch {
	case res.TimedOut:
		code = 124
	case res.Signal != 0:
		code = 128 + int(res.Signal)
	case code < 0:
		code = 128 + int(syscall.SIGKILL)
	}
	r.mu.Lock()
	r.ran = append(r.ran, ShellCommand{Argv: slices.Clone(args), Dir: r.rel(dir), ExitCode: code, TimedOut: res.TimedOut})
	r.mu.Unlock()
	if code == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(min(code, 255)))
}

func (r *shellRun) rel(abs string) string {
	if rel, err := r.t.w.Policy().Rel(abs); err == nil {
		return rel
	}
	return abs
}

// open is the interpreter's OpenHandler: redirections go through the path
// policy.
func (r *shellRun) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	if path == os.DevNull {
		return os.OpenFile(os.DevNull, flag, perm)
	}
	hc := interp.HandlerCtx(ctx)
	if !filepath.IsAbs(path) {
		path = filepath.Join(hc.Dir, path)
	}
	path = filepath.Clean(path)
	if !r.targets[path] {
		return nil, refusef("redirect: %s is not a target that was graded", r.rel(path))
	}
	pol := r.t.w.Policy()
	rel, err := pol.Rel(path)
	if err != nil {
		return nil, &Refusal{Reason: "redirect: " + err.Error()}
	}
	access := pathpolicy.Read
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC) != 0 {
		access = pathpolicy.Write
	}
	clean, _, err := pol.Resolve(rel, access)
	if err != nil {
		return nil, &Refusal{Reason: "redirect: " + err.Error()}
	}
	// Through a root handle, never by name: a component swapped for a
	// symlink, a hard link to an outside file, a FIFO or a device is
	// refused, and rivumi never blocks on one.
	f, err := openBeneath(r.t.w.Dir(), clean, flag, perm, access == pathpolicy.Write)
	if err != nil {
		var ref *Refusal
		if errors.As(err, &ref) {
			return nil, &Refusal{Reason: "redirect: " + ref.Reason}
		}
		return nil, &Refusal{Reason: "redirect: " + stripRoot(err)}
	}
	return f, nil
}

// stat is the interpreter's StatHandler: only the workspace is visible,
// through the root handle (a component swapped for a symlink that leads
// out is not followed).
func (r *shellRun) stat(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	root, rel, err := r.inside(ctx, name)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if follow {
		return root.Stat(rel)
	}
	return root.Lstat(rel)
}

// access is the interpreter's AccessHandler (test -r/-w/-x): the file is
// looked up through the root handle and its mode bits are judged, never
// access(2) on a name.
func (r *shellRun) access(ctx context.Context, name string, mode interp.AccessMode) error {
	root, rel, err := r.inside(ctx, name)
	if err != nil {
		return err
	}
	defer root.Close()
	fi, err := root.Stat(rel)
	if err != nil {
		return err
	}
	if !accessAllowed(fi, uint32(mode)) {
		return &fs.PathError{Op: "access", Path: name, Err: fs.ErrPermission}
	}
	return nil
}

// inside returns the workspace's root handle and name relative to it, or a
// not-exist error for a name outside the workspace or refused by the
// policy.
func (r *shellRun) inside(ctx context.Context, name string) (*os.Root, string, error) {
	if !filepath.IsAbs(name) {
		name = filepath.Join(interp.HandlerCtx(ctx).Dir, name)
	}
	pol := r.t.w.Policy()
	rel, err := pol.Rel(name)
	if err != nil {
		return nil, "", &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	clean, err := pathpolicy.Clean(rel)
	if err != nil {
		return nil, "", &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	root, err := os.OpenRoot(r.t.w.Dir())
	if err != nil {
		return nil, "", err
	}
	return root, clean, nil
}

// writesOutsideAllowed returns an ask reason for each path a command
// writes (a redirect target, or an operand the parser knows a program
// writes: cp/mv targets, sed -i, tee, touch, rm, sort -o …) that lies in
// the workspace but outside allowed_paths, or that cannot be known while
// allowed_paths binds. Paths outside the workspace are the engine's.
func writesOutsideAllowed(cmd *parser.Command, pol *pathpolicy.Policy) []verdict.Reason {
	if cmd == nil || len(pol.Patterns()) == 0 {
		return nil
	}
	var out []verdict.Reason
	add := func(i int, seg *parser.Segment, why string) {
		out = append(out, verdict.Reason{
			Rule: "workspace.write_outside_allowed_paths", Layer: verdict.LayerAsk, Decision: verdict.Ask,
			Segment: i, Title: "writes a workspace path outside allowed_paths", Justification: why,
			Text: strings.Join(seg.Argv, " "),
		})
	}
	for i, seg := range cmd.Segments {
		for _, w := range seg.Writes {
			switch {
			case w.Class == parser.ClassNull:
			case w.Dynamic || w.Path == "" || !filepath.IsAbs(w.Path):
				add(i, seg, fmt.Sprintf("%s cannot be known before it runs", w.Text))
			default:
				rel, err := pol.Rel(w.Path)
				if err != nil {
					continue // outside the workspace: the engine's rules judge it
				}
				if clean, err := pathpolicy.Clean(rel); err == nil && !pol.Writable(clean) {
					add(i, seg, clean+" is not in allowed_paths")
				}
			}
		}
	}
	return out
}
