package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/server"

	"github.com/rivumi/rivumi/internal/testenv"
)

func TestServeScripts(t *testing.T) {
	testscript.Run(t, hookScriptParams(t, "testdata/script/serve_*.txtar"))
}

const teamPolicy = `package rivumi.user

# METADATA
# title: No cowsay
# custom:
#   id: team.no-cowsay
#   justification: Not at work.
deny contains {"id": "team.no-cowsay"} if input.segment.program == "cowsay"
`

// serveProc is a `rivumi serve` child process.
type serveProc struct {
	cmd   *exec.Cmd
	lines chan string // its stderr, line by line
}

func startServe(t *testing.T, env []string, args ...string) *serveProc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), append(env, execEnv+"=1")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProc{cmd: cmd, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return p
}

// waitFor returns the first stderr line containing s.
func (p *serveProc) waitFor(t *testing.T, s string) string {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("serve exited before saying %q", s)
			}
			if strings.Contains(l, s) {
				return l
			}
		case <-timeout:
			t.Fatalf("serve did not say %q", s)
		}
	}
}

// runHook runs `rivumi hook claude-code` as a fresh process.
func runHook(t *testing.T, env []string, payload []byte, args ...string) (string, string, int) {
	t.Helper()
	self, _ := os.Executable()
	cmd := exec.Command(self, append([]string{"hook", "claude-code"}, args...)...)
	cmd.Env = append(os.Environ(), append(env, execEnv+"=1")...)
	cmd.Stdin = bytes.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// A real `rivumi serve` process: SIGHUP with a broken policy keeps the old
// one serving, SIGHUP with a good one swaps it in, the hook adapter uses
// the socket while it is there and compiles in-process when it is gone,
// and SIGTERM shuts down cleanly, removing the socket.
func TestServeProcess(t *testing.T) {
	testenv.NeedUnixSockets(t)
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy")
	os.MkdirAll(pol, 0o755)
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(pol, "team.rego"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(teamPolicy)
	tmp, err := os.MkdirTemp("", "rv")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	sock := filepath.Join(tmp, "rivumi.sock")
	env := []string{"HOME=" + dir, "XDG_STATE_HOME=" + dir + "/state", "XDG_CONFIG_HOME=" + dir + "/config", "RIVUMI_SOCKET=" + sock, "CLAUDE_PROJECT_DIR="}
	p := startServe(t, env, "--addr", "127.0.0.1:0", "--socket="+sock, "--policy", pol, "--audit", filepath.Join(dir, "serve.jsonl"))
	line := p.waitFor(t, "listening on http://")
	addr := strings.Fields(strings.TrimPrefix(line[strings.Index(line, "http://"):], "http://"))[0]
	p.waitFor(t, "listening on unix:"+sock)
	c := server.NewClient("http://" + addr)
	ctx := context.Background()
	h1, err := c.Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cowsay := func() engine.Verdict {
		t.Helper()
		v, err := c.Verdict(ctx, server.Text("cowsay hi"))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := cowsay(); v.Decision != engine.Deny || v.Reasons[0].Rule != "team.no-cowsay" {
		t.Fatalf("cowsay: %v", v)
	}

	// The hook uses the socket: the team rule only the server has denies.
	payload := []byte(`{"cwd": "` + dir + `", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "cowsay hi"}}`)
	out, errs, code := runHook(t, env, payload, "--audit", "off")
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "team.no-cowsay") {
		t.Errorf("hook via socket: exit %d, %s %s", code, out, errs)
	}

	write("package rivumi.user\n\ndeny contains {\"id\": \"x\"} if {\n")
	p.cmd.Process.Signal(syscall.SIGHUP)
	p.waitFor(t, "reload failed, still serving policy "+h1.Policy)
	if h, _ := c.Health(ctx); h.Policy != h1.Policy {
		t.Errorf("policy after a failed reload: %s, want %s", h.Policy, h1.Policy)
	}
	if v := cowsay(); v.Decision != engine.Deny {
		t.Errorf("cowsay after a failed reload: %v", v)
	}

	write(strings.ReplaceAll(teamPolicy, `program == "cowsay"`, `program == "fortune"`))
	p.cmd.Process.Signal(syscall.SIGHUP)
	p.waitFor(t, "reloaded policy")
	if h, _ := c.Health(ctx); h.Policy == h1.Policy {
		t.Error("policy unchanged after a good reload")
	}
	if v := cowsay(); v.Decision == engine.Deny {
		t.Errorf("cowsay after reload: %v", v)
	}

	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "serve.jsonl"))
	if !bytes.Contains(b, []byte(`"source":"serve"`)) || !bytes.Contains(b, []byte(`"command":"cowsay hi"`)) {
		t.Errorf("decision log:\n%s", b)
	}

	// No server: the hook compiles in-process (without the team rule).
	out, errs, code = runHook(t, env, payload, "--audit", "off")
	if code != 0 || strings.Contains(out, "team.no-cowsay") || !strings.Contains(out, `"permissionDecision":"ask"`) {
		t.Errorf("hook without a server: exit %d, %s %s", code, out, errs)
	}
	// A stale socket (a server that died) is the same.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	out, errs, code = runHook(t, env, payload, "--audit", "off")
	if code != 0 || !strings.Contains(out, `"permissionDecision":"ask"`) {
		t.Errorf("hook with a stale socket: exit %d, %s %s", code, out, errs)
	}
}

// --stdio answers until stdin ends.
func TestServeStdioProcess(t *testing.T) {
	self, _ := os.Executable()
	cmd := exec.Command(self, "serve", "--stdio", "--audit", "off")
	cmd.Env = append(os.Environ(), execEnv+"=1")
	cmd.Stdin = strings.NewReader(`{"command": "ls"}` + "\n" + `[{"argv": ["rm", "-rf", "/"]}, {"command": "npm install", "cwd": "/w", "workspace": "/w"}]` + "\n")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = io.Discard
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("output:\n%s", out.String())
	}
	var one server.Response
	var batch []server.Response
	if json.Unmarshal([]byte(lines[0]), &one) != nil || one.Decision != engine.Allow {
		t.Errorf("line 1: %s", lines[0])
	}
	if json.Unmarshal([]byte(lines[1]), &batch) != nil || len(batch) != 2 || batch[0].Decision != engine.Deny || batch[1].Decision != engine.Ask {
		t.Errorf("line 2: %s", lines[1])
	}
}

func TestBuildScripts(t *testing.T) {
	testscript.Run(t, hookScriptParams(t, "testdata/script/build_*.txtar"))
}

// One `rivumi serve --socket`, two projects: each request is graded with
// the configuration found from its own cwd, and edits, `rivumi trust` and
// its revocation count from the next request, without SIGHUP (issue 13).
func TestServeTwoProjects(t *testing.T) {
	testenv.NeedUnixSockets(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a + "/.git", b + "/.git", a + "/sub"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeCfg := func(s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(a, ".rivumi.yaml"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeCfg("rules:\n  - id: team.no-cowsay\n    pattern: [cowsay]\n    decision: deny\n    justification: No cows.\n    match: [cowsay hi]\n")
	tmp, err := os.MkdirTemp("", "rv")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	sock := filepath.Join(tmp, "rivumi.sock")
	env := []string{"HOME=" + dir, "XDG_STATE_HOME=" + dir + "/state", "XDG_CONFIG_HOME=" + dir + "/config", "RIVUMI_SOCKET=" + sock, "CLAUDE_PROJECT_DIR="}
	p := startServe(t, env, "--socket="+sock, "--audit", "off")
	p.waitFor(t, "listening on unix:"+sock)
	c := server.NewUnixClient(sock)
	ctx := context.Background()
	grade := func(cwd, cmd string) engine.Verdict {
		t.Helper()
		r := server.Text(cmd)
		r.Cwd, r.Workspace = cwd, cwd
		v, err := c.Verdict(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := grade(a+"/sub", "cowsay hi"); v.Decision != engine.Deny || v.Reasons[0].Rule != "team.no-cowsay" {
		t.Fatalf("project a: %v", v)
	}
	if v := grade(b, "cowsay hi"); v.Decision != engine.Ask {
		t.Fatalf("project b: %v", v)
	}
	// The hook, through the socket, answers the same for project a.
	payload := []byte(`{"cwd": "` + a + `", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "cowsay hi"}}`)
	if out, errs, _ := runHook(t, env, payload, "--audit", "off"); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Errorf("hook in project a: %s %s", out, errs)
	}

	// An edit counts from the next request.
	writeCfg("rules:\n  - id: team.allow-cowsay\n    pattern: [cowsay]\n    decision: allow\n    justification: Cows are fine.\n    match: [cowsay hi]\n")
	if v := grade(a, "cowsay hi"); v.Decision != engine.Ask {
		t.Fatalf("untrusted allow rule: %v", v)
	}
	trust := func(args ...string) {
		t.Helper()
		self, _ := os.Executable()
		cmd := exec.Command(self, append([]string{"trust"}, args...)...)
		cmd.Dir, cmd.Env = a, append(os.Environ(), append(env, execEnv+"=1")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("trust %v: %v\n%s", args, err, out)
		}
	}
	trust()
	if v := grade(a, "cowsay hi"); v.Decision != engine.Allow {
		t.Fatalf("after rivumi trust: %v", v)
	}
	if v := grade(b, "cowsay hi"); v.Decision != engine.Ask {
		t.Fatalf("project b after trusting a: %v", v)
	}
	trust("--revoke")
	if v := grade(a, "cowsay hi"); v.Decision != engine.Ask {
		t.Fatalf("after rivumi trust --revoke: %v", v)
	}
	// A request without a cwd has the user's configuration alone.
	if v, err := c.Verdict(ctx, server.Text("cowsay hi")); err != nil || v.Decision != engine.Ask {
		t.Fatalf("no cwd: %v %v", v, err)
	}
}
