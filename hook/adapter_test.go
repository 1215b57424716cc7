package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/internal/applypatch"
	"github.com/rivumi/rivumi/verdict"
)

func graderOf(g Grader) func(context.Context) (Grader, error) {
	return func(context.Context) (Grader, error) { return g, nil }
}

func run(t *testing.T, cfg Config, stdin io.Reader) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), cfg, stdin, &out, &errb)
	return out.String(), errb.String(), code
}

func bash(cmd string) io.Reader {
	return bytes.NewReader(SamplePayload(ClaudeCode, cmd, "/work/proj"))
}

// failCase is a call that goes wrong inside.
type failCase struct {
	name  string
	cfg   Config
	stdin io.Reader
	want  string
}

// hangs: the call is past its deadline until block is closed.
func (c failCase) hangs() bool { return strings.Contains(c.want, "internal deadline") }

// failCases are calls that go wrong; those that hang wait for block.
func failCases(block chan struct{}) []failCase {
	return []failCase{
		{"grader ignores the deadline", Config{NewGrader: graderOf(func(context.Context, verdict.Request) (verdict.Verdict, error) {
			<-block
			return verdict.Verdict{}, nil
		})}, bash("ls"), "internal deadline of 50ms passed"},
		{"stdin never ends", Config{}, blockingReader{block}, "internal deadline of 50ms passed"},
		{"grader panics past the deadline", Config{NewGrader: graderOf(func(context.Context, verdict.Request) (verdict.Verdict, error) {
			<-block
			panic("boom")
		})}, bash("ls"), "internal deadline of 50ms passed"},
		{"grader panics", Config{NewGrader: graderOf(func(context.Context, verdict.Request) (verdict.Verdict, error) {
			panic("boom")
		})}, bash("ls"), "internal error: boom"},
		{"grader fails", Config{NewGrader: graderOf(func(context.Context, verdict.Request) (verdict.Verdict, error) {
			return verdict.Verdict{}, errors.New("no policy")
		})}, bash("ls"), "no policy"},
		{"policy does not load", Config{NewGrader: func(context.Context) (Grader, error) { return nil, errors.New("bad pack") }},
			bash("ls"), "policy: bad pack"},
		{"unknown decision", Config{NewGrader: graderOf(func(context.Context, verdict.Request) (verdict.Verdict, error) {
			return verdict.Verdict{Decision: 7}, nil
		})}, bash("ls"), "decision 7"},
		{"zero verdict", Config{NewGrader: graderOf(func(context.Context, verdict.Request) (verdict.Verdict, error) {
			return verdict.Verdict{}, nil // a socket answering {} (issue 12)
		})}, bash("rm -rf /"), "decision 0, not a decision"},
		{"no grader", Config{}, bash("ls"), "no grader configured"},
		{"empty input", Config{}, strings.NewReader(""), "malformed hook input"},
		{"null tool_input", Config{}, strings.NewReader(`{"cwd": "/", "tool_name": "Bash", "tool_input": null}`), `without "tool_input"`},
		{"tool_input not an object", Config{}, strings.NewReader(`{"cwd": "/", "tool_name": "Bash", "tool_input": "ls"}`), `"tool_input"`},
		// The agent reads the exact key; encoding/json would take the last
		// case variant and grade a Read while the agent runs Bash.
		{"case-variant tool_name", Config{}, strings.NewReader(`{"cwd": "/", "tool_name": "Bash", "Tool_Name": "Read", "tool_input": {"command": "rm -rf /", "file_path": "/x"}}`),
			`key "Tool_Name" at $: keys are case-sensitive`},
		{"duplicate tool_name", Config{}, strings.NewReader(`{"cwd": "/", "tool_name": "Bash", "tool_name": "Read", "tool_input": {"command": "rm -rf /"}}`),
			`key "tool_name" at $: duplicate key`},
		{"duplicate command", Config{}, strings.NewReader(`{"cwd": "/", "tool_name": "Bash", "tool_input": {"command": "rm -rf /", "command": "ls"}}`),
			`key "command" at $.tool_input: duplicate key`},
		{"trailing payload", Config{}, strings.NewReader(`{"cwd": "/", "tool_name": "Read", "tool_input": {"file_path": "/x"}} {"tool_name": "Bash"}`),
			"data after the JSON value"},
		{"relative cwd", Config{}, strings.NewReader(`{"cwd": "proj", "tool_name": "Bash", "tool_input": {"command": "ls"}}`), `absolute "cwd"`},
		{"argv with a number", Config{}, strings.NewReader(`{"cwd": "/", "tool_name": "Bash", "tool_input": {"command": ["ls", 1]}}`), "non-string word"},
		{"relative CLAUDE_PROJECT_DIR", Config{Getenv: func(k string) string {
			if k == "CLAUDE_PROJECT_DIR" {
				return "proj"
			}
			return ""
		}}, bash("ls"), "not an absolute path"},
	}
}

// Whatever goes wrong inside, the answer is a block (exit 2), in time
// (Run grading on a goroutine of its own).
func TestFailsClosed(t *testing.T) {
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	for _, c := range failCases(block) {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Agent = ClaudeCode
			c.cfg.Timeout = 50 * time.Millisecond
			if c.cfg.Getenv == nil {
				c.cfg.Getenv = func(string) string { return "" }
			}
			start := time.Now()
			out, errs, code := run(t, c.cfg, c.stdin)
			if code != 2 || out != "" || !strings.Contains(errs, c.want) || !strings.Contains(errs, "fails closed") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errs, c.want)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// With Early set, Run grades on the caller's goroutine: what goes wrong
// inside blocks as on a goroutine of its own; a call that hangs is
// answered through Early at its deadline, once, logged once, and Run
// returns the same answer when the hang ends.
func TestFailsClosedEarly(t *testing.T) {
	block := make(chan struct{})
	cases := failCases(block)
	type outcome struct {
		code     int
		out, err string
	}
	type call struct {
		c       failCase
		log     *recordingSink
		early   chan outcome
		done    chan outcome
		started time.Time
	}
	var calls []call
	for _, c := range cases {
		cl := call{c: c, log: &recordingSink{}, early: make(chan outcome, 2), done: make(chan outcome, 1), started: time.Now()}
		c.cfg.Agent = ClaudeCode
		c.cfg.Timeout = 50 * time.Millisecond
		c.cfg.Audit = cl.log
		if c.cfg.Getenv == nil {
			c.cfg.Getenv = func(string) string { return "" }
		}
		c.cfg.Early = func(code int, stdout, stderr []byte) {
			cl.early <- outcome{code, string(stdout), string(stderr)}
		}
		go func() {
			var out, errb bytes.Buffer
			code := Run(context.Background(), c.cfg, c.stdin, &out, &errb)
			cl.done <- outcome{code, out.String(), errb.String()}
		}()
		calls = append(calls, cl)
	}
	check := func(name string, o outcome, want string) {
		t.Helper()
		if o.code != 2 || o.out != "" || !strings.Contains(o.err, want) || !strings.Contains(o.err, "fails closed") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", name, o.code, o.out, o.err, want)
		}
	}
	var early []outcome
	for _, cl := range calls {
		if !cl.c.hangs() {
			check(cl.c.name, <-cl.done, cl.c.want)
			if len(cl.early) > 0 {
				t.Errorf("%s: answered early, not past its deadline", cl.c.name)
			}
			continue
		}
		select {
		case o := <-cl.early:
			check(cl.c.name+" (early)", o, cl.c.want)
			if d := time.Since(cl.started); d > 2*time.Second {
				t.Errorf("%s: answered after %v", cl.c.name, d)
			}
			early = append(early, o)
		case o := <-cl.done:
			t.Fatalf("%s: returned %+v while it hangs", cl.c.name, o)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no answer past the deadline", cl.c.name)
		}
	}
	close(block) // the hangs end
	for _, cl := range calls {
		if !cl.c.hangs() {
			continue
		}
		o := <-cl.done
		if o != early[0] {
			t.Errorf("%s: returned %+v, answered %+v early", cl.c.name, o, early[0])
		}
		early = early[1:]
		if len(cl.early) > 0 {
			t.Errorf("%s: answered early twice", cl.c.name)
		}
		if n := len(cl.log.get()); n != 1 || !strings.Contains(cl.log.get()[0].Error, "internal deadline") {
			t.Errorf("%s: decision log %+v; want the deadline's entry alone", cl.c.name, cl.log.get())
		}
	}
}

// TestEarlyPanickingLog: a decision log that panics when the deadline's
// entry is written blocks the call (through Early), and leaves the
// process standing.
func TestEarlyPanickingLog(t *testing.T) {
	block := make(chan struct{})
	early := make(chan string, 2)
	cfg := Config{
		Agent: ClaudeCode, Timeout: 50 * time.Millisecond, Getenv: func(string) string { return "" },
		Audit: panickingSink{},
		NewGrader: graderOf(func(context.Context, verdict.Request) (verdict.Verdict, error) {
			<-block
			return verdict.Verdict{Decision: verdict.Allow}, nil
		}),
		Early: func(code int, stdout, stderr []byte) { early <- fmt.Sprintf("%d %s %s", code, stdout, stderr) },
	}
	done := make(chan string, 1)
	go func() {
		var out, errb bytes.Buffer
		code := Run(context.Background(), cfg, bash("ls"), &out, &errb)
		done <- fmt.Sprintf("%d %s %s", code, out.String(), errb.String())
	}()
	var got string
	select {
	case got = <-early:
	case <-time.After(5 * time.Second):
		t.Fatal("no answer past the deadline")
	}
	if !strings.HasPrefix(got, "2  ") || !strings.Contains(got, "internal error: log on fire") || !strings.Contains(got, "fails closed") {
		t.Errorf("early answer %q; want a block for the panic", got)
	}
	close(block)
	if last := <-done; last != got {
		t.Errorf("returned %q, answered %q", last, got)
	}
}

type panickingSink struct{}

func (panickingSink) Log(context.Context, audit.Entry) error { panic("log on fire") }

// recordingSink keeps the entries logged.
type recordingSink struct {
	mu sync.Mutex
	es []audit.Entry
}

func (r *recordingSink) Log(_ context.Context, e audit.Entry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.es = append(r.es, e)
	return nil
}

func (r *recordingSink) get() []audit.Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]audit.Entry(nil), r.es...)
}

type blockingReader struct{ c chan struct{} }

func (b blockingReader) Read([]byte) (int, error) { <-b.c; return 0, io.EOF }

// The grader gets the cwd, workspace, home, dialect and grants.
func TestShellRequest(t *testing.T) {
	var got verdict.Request
	cfg := Config{
		Agent: ClaudeCode, Home: "/home/me",
		Getenv: func(k string) string {
			return map[string]string{"CLAUDE_PROJECT_DIR": "/work/proj", "SHELL": "/usr/local/bin/zsh"}[k]
		},
		Grants: func(ws string) ([]verdict.Grant, error) {
			return []verdict.Grant{{Prefix: []string{"make"}, Rules: []string{"exec.workspace-code"}}}, nil
		},
		NewGrader: graderOf(func(_ context.Context, r verdict.Request) (verdict.Verdict, error) {
			got = r
			return verdict.Verdict{Decision: verdict.Allow}, nil
		}),
	}
	payload := `{"cwd": "/work/proj/sub", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "make"}}`
	out, _, code := run(t, cfg, strings.NewReader(payload))
	if code != 0 || !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("exit %d: %s", code, out)
	}
	if *got.Command != "make" || got.Cwd != "/work/proj/sub" || got.Workspace != "/work/proj" || got.Home != "/home/me" ||
		got.Shell != "zsh" || len(got.Grants) != 1 {
		t.Errorf("request: %+v", got)
	}
}

func TestShellDialect(t *testing.T) {
	for shell, want := range map[string]string{
		"": "bash", "/bin/bash": "bash", "/bin/zsh": "zsh", "/opt/homebrew/bin/zsh": "zsh", "/bin/sh": "sh",
		"/usr/bin/dash": "sh", "/usr/bin/fish": "bash", "ksh": "sh",
	} {
		cfg := Config{Getenv: func(string) string { return shell }}
		if got := shellDialect(&cfg); got != want {
			t.Errorf("SHELL=%q: %s, want %s", shell, got, want)
		}
	}
	cfg := Config{Shell: "sh", Getenv: func(string) string { return "/bin/zsh" }}
	if got := shellDialect(&cfg); got != "sh" {
		t.Errorf("--shell sh with SHELL=zsh: %s", got)
	}
}

func TestPatchPaths(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: src/b.go\n*** Move to: src/c.go\n@@\n*** Delete File: old.txt\n*** End Patch\n"
	got := strings.Join(applypatch.Paths(patch), " ")
	if got != "a.txt src/b.go src/c.go old.txt" {
		t.Errorf("patchPaths: %s", got)
	}
}

func TestIsRivumiHook(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/local/bin/rivumi hook claude-code":                true,
		"'/Users/me/my tools/rivumi' hook claude-code --shadow": true,
		"rivumi hook claude-code":                               true,
		"/usr/local/bin/rivumi hook gemini":                     false,
		"other-tool hook claude-code":                           false,
		"rivumi":                                                false,
	} {
		if got := IsRivumiHook(cmd, ClaudeCode); got != want {
			t.Errorf("IsRivumiHook(%q) = %v", cmd, got)
		}
	}
	if p := CommandPath("'/a b/rivumi' hook codex"); p != "/a b/rivumi" {
		t.Errorf("CommandPath: %q", p)
	}
	if c := HookCommand("/a b/rivumi", Codex, "--ask-as", "pass"); c != "'/a b/rivumi' hook codex --ask-as pass" {
		t.Errorf("HookCommand: %q", c)
	}
}

func TestApplyPatchInvocation(t *testing.T) {
	const p = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch"
	for _, c := range []struct {
		cmd     any
		dir     string
		ok      bool
		comment string
	}{
		{"apply_patch <<'EOF'\n" + p + "\nEOF", "", true, "the heredoc"},
		{"apply_patch <<'EOF'\n" + p + "\nEOF\n", "", true, "a trailing newline"},
		{"applypatch <<\"PATCH\"\n" + p + "\nPATCH", "", true, "the other name, double quotes"},
		{"cd src && apply_patch <<'EOF'\n" + p + "\nEOF", "src", true, "after cd"},
		{"cd 'my dir' && apply_patch <<'EOF'\n" + p + "\nEOF", "my dir", true, "a quoted cd"},
		{[]any{"apply_patch", p}, "", true, "argv"},
		{"apply_patch <<EOF\n" + p + "\nEOF", "", false, "unquoted: a shell would expand it"},
		{"apply_patch <<'EOF'\n" + p + "\nEOF\nrm -rf /", "", false, "more after the heredoc"},
		{"apply_patch <<'EOF'\n" + p + "\nEOF\necho\nEOF", "", false, "the delimiter twice"},
		{"cd $(x) && apply_patch <<'EOF'\n" + p + "\nEOF", "", false, "a computed cd"},
		{"cd ~/x && apply_patch <<'EOF'\n" + p + "\nEOF", "", false, "a tilde"},
		{"cd a; apply_patch <<'EOF'\n" + p + "\nEOF", "", false, "cd then ;"},
		{"apply_patch <<'EOF' > out\n" + p + "\nEOF", "", false, "a redirection"},
		{"apply_patch <<'E-F'\n" + p + "\nE-F", "", false, "an odd delimiter"},
		{"apply_patch <<'EOF'\nhello\nEOF", "", false, "no patch"},
		{"sudo apply_patch <<'EOF'\n" + p + "\nEOF", "", false, "a wrapper"},
		{[]any{"apply_patch", p, "x"}, "", false, "argv with more"},
		{[]any{"bash", "-lc", "apply_patch"}, "", false, "other argv"},
		{7, "", false, "not a command"},
	} {
		dir, patch, ok := applypatch.Invocation(c.cmd)
		if ok != c.ok || ok && (dir != c.dir || patch != p) {
			t.Errorf("%s: got (%q, %q, %v), want ok %v dir %q", c.comment, dir, patch, ok, c.ok, c.dir)
		}
	}
}
