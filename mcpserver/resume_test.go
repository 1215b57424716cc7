package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/mcpserver"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/bundle"
	"github.com/rivumi/rivumi/workspace/tools"
)

const serverRunEnv = "RIVUMI_TEST_MCP_SERVER_RUN"

// TestServerProcess is the server of TestResumeAfterSIGKILL: this test
// binary re-executed, serving the run directory in $RIVUMI_TEST_MCP_SERVER_RUN
// over stdio as `rivumi mcp -run DIR` does. It is skipped otherwise.
func TestServerProcess(t *testing.T) {
	dir := os.Getenv(serverRunEnv)
	if dir == "" {
		t.Skip("the server process of TestResumeAfterSIGKILL")
	}
	w, err := workspace.OpenNoWait(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	srv, err := mcpserver.New(mcpserver.Config{Tools: tools.Config{
		Workspace: w, Engine: testEngine(t),
		Harness: harness.Config{Sandbox: harness.SandboxNone, ApprovalTimeout: time.Minute},
	}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	err = srv.Run(context.Background(), &mcp.StdioTransport{})
	if cerr := srv.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatal(err)
	}
}

// startServer runs TestServerProcess on runDir and connects a client.
func startServer(t *testing.T, runDir string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerProcess$")
	cmd.Env = append(os.Environ(), serverRunEnv+"="+runDir)
	cmd.Stderr = os.Stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "resume-test", Version: "7"}, &mcp.ClientOptions{ElicitationHandler: elicit})
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, cmd
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// A server killed with SIGKILL mid-session (a read done, an approval
// pending) is resumed by the next one from checkpoint.json: replace_text
// of the file read before needs no fresh read, the pending call is
// recorded as interrupted, and session.json holds both sessions.
func TestResumeAfterSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two server processes")
	}
	f := newFixture(t)
	runDir := f.w.RunDir()
	if err := f.srv.Close(); err != nil {
		t.Fatal(err)
	}
	f.w.Close() // the servers below take the run's lock

	asked := make(chan struct{}, 1)
	cs, cmd := startServer(t, runDir, func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- struct{}{}
		<-ctx.Done() // nobody answers: the server is killed first
		return nil, ctx.Err()
	})
	if res := callTool(t, cs, tools.ToolReadFile, map[string]any{"path": "greeting.txt"}); res.IsError {
		t.Fatalf("read_file: %+v", res.Content)
	}
	go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tools.ToolShell, Arguments: map[string]any{"command": "rm -rf out.txt"}}) //nolint:errcheck // the server dies under it
	select {
	case <-asked:
	case <-time.After(time.Minute):
		t.Fatal("the shell call never asked")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Wait() //nolint:errcheck // killed
	cs.Close()

	w, err := workspace.OpenNoWait(runDir) // the lock died with the process
	if err != nil {
		t.Fatal(err)
	}
	cp, ok, err := w.Bundle().ReadCheckpoint()
	w.Close()
	if err != nil || !ok {
		t.Fatalf("checkpoint after the kill: %v %v", ok, err)
	}
	if cp.Reads["greeting.txt"] == "" || len(cp.PendingApprovals) != 1 || cp.PendingApprovals[0].Command != "rm -rf out.txt" {
		t.Fatalf("checkpoint after the kill = %+v; want the read and the pending approval", cp)
	}

	cs, cmd = startServer(t, runDir, nil)
	res := callTool(t, cs, tools.ToolReplaceText, map[string]any{"path": "greeting.txt", "old": "wrold", "new": "world"})
	if res.IsError {
		t.Fatalf("replace_text after resume: %+v", res.Content[0])
	}
	cs.Close()
	if err := cmd.Wait(); err != nil && !strings.Contains(err.Error(), "Wait was already called") {
		t.Logf("server exit: %v", err)
	}

	b, err := bundle.Open(filepath.Join(runDir, workspace.BundleDir))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(runDir, workspace.CloneDir, "greeting.txt"))
	if string(got) != "Hello, world!\n" {
		t.Errorf("greeting.txt = %q", got)
	}
	ss, err := b.ReadSessions()
	if err != nil {
		t.Fatal(err)
	}
	// The fixture's in-process server, the killed one, the resumed one.
	if n := len(ss.Sessions); n != 3 {
		t.Fatalf("%d sessions, want 3", n)
	}
	killed, resumed := ss.Sessions[1], ss.Sessions[2]
	if !killed.Interrupted || killed.Ended != nil || len(killed.Clients) != 1 || killed.Clients[0].Name != "resume-test" ||
		killed.Kind != tools.SessionMCP || killed.Tools[tools.ToolReadFile] != 1 {
		t.Errorf("killed session = %+v", killed)
	}
	if resumed.ResumedFrom != killed.ID || resumed.Ended == nil || resumed.Tools[tools.ToolReplaceText] != 1 ||
		len(resumed.Approvals) != 1 || resumed.Approvals[0].Answer != "interrupted" || len(resumed.StaleReads) != 0 {
		t.Errorf("resumed session = %+v", resumed)
	}
	evs, _ := b.Events()
	var tl []string
	for _, e := range evs {
		tl = append(tl, e.Tool+":"+e.Approval)
	}
	if want := "read_file: shell:interrupted replace_text:"; strings.Join(tl, " ") != want {
		t.Errorf("events %q, want %q", strings.Join(tl, " "), want)
	}
	raw, _ := json.Marshal(ss)
	t.Logf("session.json: %s", raw)
}
