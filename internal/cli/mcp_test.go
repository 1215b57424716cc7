package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rivumi/rivumi/internal/testenv"
)

// TestMCPDoc runs the walk-through of docs/mcp.md, with `mcp-call`
// driving `rivumi mcp` (a fresh process) through the Go SDK's client:
//
//	mcp-call [-elicit ANSWER] SERVER-ARGS... -- TOOL JSON [TOOL JSON]...
//
// starts `rivumi mcp SERVER-ARGS` over stdio, calls each TOOL with its
// JSON arguments in one session and prints, per call, "TOOL ok" or
// "TOOL error: TEXT", then the structured content as JSON. -elicit makes
// the client answer elicitations with ANSWER (once, always, deny; decline
// and cancel as actions); without it the client has no elicitation
// capability. A call that is a tool error fails the command (use ! to
// expect one).
func TestMCPDoc(t *testing.T) {
	testscript.Run(t, docScriptParams(t, "../../docs/mcp.md",
		map[string]func(ts *testscript.TestScript, neg bool, args []string){"mcp-call": mcpCall}))
}

func mcpCall(ts *testscript.TestScript, neg bool, args []string) {
	elicit := ""
	if len(args) > 1 && args[0] == "-elicit" {
		elicit, args = args[1], args[2:]
	}
	i := 0
	for i < len(args) && args[i] != "--" {
		i++
	}
	if i == len(args) || (len(args)-i-1)%2 != 0 || len(args)-i-1 == 0 {
		ts.Fatalf("usage: mcp-call [-elicit ANSWER] SERVER-ARGS... -- TOOL JSON [TOOL JSON]...")
	}
	server, calls := args[:i], args[i+1:]
	cmd := exec.Command(ts.MkAbs("bin/rivumi"), append([]string{"mcp"}, server...)...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range []string{execEnv, "PATH", "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	opts := &mcp.ClientOptions{}
	if elicit != "" {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Fprintf(ts.Stdout(), "elicitation: %s\n", strings.ReplaceAll(req.Params.Message, "\n", " "))
			switch elicit {
			case "decline", "cancel":
				return &mcp.ElicitResult{Action: elicit}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": elicit}}, nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcp-call", Version: "1"}, opts).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		ts.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	failed := false
	for j := 0; j < len(calls); j += 2 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: calls[j], Arguments: json.RawMessage(calls[j+1])})
		if err != nil {
			cs.Close()
			ts.Fatalf("%s: %v\n%s", calls[j], err, stderr.String())
		}
		if res.IsError {
			failed = true
			text := ""
			if len(res.Content) > 0 {
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			fmt.Fprintf(ts.Stdout(), "%s error: %s\n", calls[j], text)
		} else {
			fmt.Fprintf(ts.Stdout(), "%s ok\n", calls[j])
		}
		if res.StructuredContent != nil {
			b, _ := json.Marshal(res.StructuredContent)
			fmt.Fprintf(ts.Stdout(), "%s\n", b)
		}
	}
	if err := cs.Close(); err != nil {
		ts.Logf("close: %v", err)
	}
	fmt.Fprint(ts.Stderr(), stderr.String())
	if failed != neg {
		if neg {
			ts.Fatalf("no call was a tool error")
		}
		ts.Fatalf("a call was a tool error")
	}
}

// rivumi mcp -unix serves streamable HTTP on the socket until its context
// ends, then exits 0.
func TestMCPUnixSocket(t *testing.T) {
	testenv.NeedUnixSockets(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.Mkdir(src, 0o755)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("a\n"), 0o644)
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e", "-C", src}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "x")
	sockDir, err := os.MkdirTemp("", "rivumi-cli-mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "s")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- Main(ctx, []string{"mcp", "-prepare", "-source", src, "-commit", git("rev-parse", "HEAD"), "-run-root", dir, "-name", "r",
			"-sandbox", "none", "-unix", sock}, Stdio{In: strings.NewReader(""), Out: io.Discard, Err: &stderr})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		select {
		case c := <-code:
			t.Fatalf("rivumi mcp exited %d: %s", c, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no socket: %s", stderr.String())
		}
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "http://localhost/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}})
	if err != nil || res.IsError {
		t.Fatalf("read_file over the socket: %+v, %v", res, err)
	}
	cs.Close()
	cancel()
	if c := <-code; c != 0 {
		t.Errorf("exit %d after cancel: %s", c, stderr.String())
	}
	if !strings.Contains(stderr.String(), "on unix socket "+sock) {
		t.Errorf("stderr = %q", stderr.String())
	}
}

// BenchmarkMCPStdioCall measures one list_files call through the Go SDK's
// client to a real `rivumi mcp` process over its stdin and stdout (the
// process start-up aside).
func BenchmarkMCPStdioCall(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "src")
	os.Mkdir(src, 0o755)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("a\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "x"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e", "-C", src}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	sha, err := exec.Command("git", "-C", src, "rev-parse", "HEAD").Output()
	if err != nil {
		b.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(self, "mcp", "-prepare", "-source", src, "-commit", strings.TrimSpace(string(sha)), "-run-root", dir, "-name", "r", "-sandbox", "none")
	cmd.Env = append(os.Environ(), execEnv+"=1", "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "list_files", Arguments: map[string]any{}}
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
