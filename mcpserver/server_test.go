package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/mcpserver"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/bundle"
	"github.com/rivumi/rivumi/workspace/tools"
)

var (
	engOnce sync.Once
	eng     *engine.Engine
	engErr  error
)

func testEngine(t testing.TB) *engine.Engine {
	t.Helper()
	engOnce.Do(func() { eng, engErr = engine.New(context.Background()) })
	if engErr != nil {
		t.Fatal(engErr)
	}
	return eng
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// fixture is a prepared workspace served in-process.
type fixture struct {
	w      *workspace.Workspace
	grants *grant.Store
	srv    *mcpserver.Server
}

type fixOpt func(*mcpserver.Config)

func newFixture(t testing.TB, opts ...fixOpt) *fixture {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, s := range map[string]string{"greeting.txt": "Hello, wrold!\n", "expected.txt": "Hello, world!\n", "out.txt": "x\n"} {
		if err := os.WriteFile(filepath.Join(src, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, src, "init", "-q")
	git(t, src, "add", "-A")
	git(t, src, "commit", "-q", "-m", "init")
	sha := git(t, src, "rev-parse", "HEAD")
	w, err := workspace.Prepare(context.Background(), workspace.PrepareOptions{
		Source: src, Commit: sha, RunRoot: t.TempDir(), Name: "run", Task: "fix the typo",
		Config: workspace.Config{
			AllowedPaths: []string{"greeting.txt", "out.txt", "notes/**"},
			Checks: []bundle.Check{
				{Name: "spelling", Argv: []string{"diff", "-u", "expected.txt", "greeting.txt"}},
				{Name: "true", Argv: []string{"true"}},
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	store, err := grant.Load(filepath.Join(t.TempDir(), "grants.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcpserver.Config{Tools: tools.Config{
		Workspace: w, Engine: testEngine(t), Grants: store,
		Harness: harness.Config{Sandbox: harness.SandboxNone, ApprovalTimeout: 5 * time.Second},
	}, Version: "test"}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := mcpserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{w: w, grants: store, srv: srv}
}

// connect runs the server on in-memory transports and returns a client
// session; elicit nil means a client without the elicitation capability.
func (f *fixture) connect(t testing.TB, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- f.srv.Run(ctx, st) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: elicit})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

type callResult struct {
	isError    bool
	text       string
	structured map[string]any
}

func call(t testing.TB, cs *mcp.ClientSession, name string, args any) callResult {
	t.Helper()
	raw, ok := args.(string)
	var params *mcp.CallToolParams
	if ok {
		params = &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(raw)}
	} else {
		params = &mcp.CallToolParams{Name: name, Arguments: args}
	}
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	var r callResult
	r.isError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text + "\n"
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &r.structured); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return r
}

func mustOK(t testing.TB, cs *mcp.ClientSession, name string, args any) map[string]any {
	t.Helper()
	r := call(t, cs, name, args)
	if r.isError || r.structured == nil {
		t.Fatalf("%s(%v) = %+v, want a result with structured content", name, args, r)
	}
	return r.structured
}

func mustRefuse(t testing.TB, cs *mcp.ClientSession, name string, args any, want string) callResult {
	t.Helper()
	r := call(t, cs, name, args)
	if !r.isError || !strings.Contains(r.text, want) {
		t.Errorf("%s(%v) = %+v, want a tool error containing %q", name, args, r, want)
	}
	return r
}

func TestToolSchemas(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		b, _ := json.Marshal(tool.InputSchema)
		var in struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			AdditionalProperties json.RawMessage            `json:"additionalProperties"`
		}
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		if in.Type != "object" || string(in.AdditionalProperties) != `false` && !strings.Contains(string(in.AdditionalProperties), "not") {
			t.Errorf("%s: input schema %s: want an object without additional properties", tool.Name, b)
		}
		for p := range in.Properties {
			if strings.Contains(p, "timeout") {
				t.Errorf("%s: input schema has a timeout parameter %q", tool.Name, p)
			}
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s: no output schema", tool.Name)
		}
		if tool.Name == tools.ToolRunCheck && !strings.Contains(string(in.Properties["name"]), `"enum":["spelling","true"]`) {
			t.Errorf("run_check name schema = %s, want the check names as an enum", in.Properties["name"])
		}
	}
	want := []string{"list_files", "read_file", "search_text", "replace_text", "apply_patch", "run_check", "git_diff", "shell", "finish"}
	slices.Sort(want)
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
}

// validate checks a result's structured content against the tool's
// output schema, as a strict client would.
func validate(t *testing.T, schemas map[string]*jsonschema.Resolved, name string, v map[string]any) {
	t.Helper()
	if err := schemas[name].Validate(v); err != nil {
		t.Errorf("%s: structured content does not match the output schema: %v\n%v", name, err, v)
	}
}

func outputSchemas(t *testing.T, req bundle.Request) map[string]*jsonschema.Resolved {
	defs, err := mcpserver.Tools(req)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, d := range defs {
		s := d.OutputSchema.(*jsonschema.Schema)
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		out[d.Name] = r
	}
	return out
}

func TestEveryTool(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, nil)
	schemas := outputSchemas(t, f.w.Request())
	check := func(name string, args any) map[string]any {
		t.Helper()
		v := mustOK(t, cs, name, args)
		validate(t, schemas, name, v)
		return v
	}
	if v := check("list_files", map[string]any{}); !strings.Contains(jsonString(v), `"path":"greeting.txt"`) {
		t.Errorf("list_files = %v", v)
	}
	if v := check("read_file", map[string]any{"path": "greeting.txt"}); v["content"] != "Hello, wrold!\n" || len(v["sha256"].(string)) != 64 {
		t.Errorf("read_file = %v", v)
	}
	if v := check("search_text", map[string]any{"query": "wrold"}); !strings.Contains(jsonString(v), "greeting.txt") {
		t.Errorf("search_text = %v", v)
	}
	// A failing check is a tool error that still carries its output.
	r := mustRefuse(t, cs, "run_check", map[string]any{"name": "spelling"}, "check spelling failed with exit 1")
	if r.structured == nil || !strings.Contains(r.structured["output"].(string), "+Hello, wrold!") {
		t.Errorf("failing run_check: %+v, want its output", r)
	}
	validate(t, schemas, "run_check", r.structured)
	if v := check("replace_text", map[string]any{"path": "greeting.txt", "old": "wrold", "new": "world"}); v["replacements"] != 1.0 {
		t.Errorf("replace_text = %v", v)
	}
	patch := "--- /dev/null\n+++ b/notes/CHANGES.md\n@@ -0,0 +1 @@\n+Fixed the typo.\n"
	if v := check("apply_patch", map[string]any{"patch": patch}); !strings.Contains(jsonString(v), "notes/CHANGES.md") {
		t.Errorf("apply_patch = %v", v)
	}
	if v := check("git_diff", map[string]any{}); !strings.Contains(v["diff"].(string), "+Hello, world!") {
		t.Errorf("git_diff = %v", v)
	}
	if v := check("shell", map[string]any{"command": "grep -c world greeting.txt"}); v["stdout"] != "1\n" || v["decision"] != "allow" {
		t.Errorf("shell = %v", v)
	}
	if v := check("run_check", map[string]any{"name": "spelling"}); v["passed"] != true {
		t.Errorf("run_check = %v", v)
	}
	if v := check("run_check", map[string]any{"name": "true"}); v["passed"] != true {
		t.Errorf("run_check = %v", v)
	}
	v := check("finish", map[string]any{"reason": "done"})
	if v["status"] != "passed" || v["reason"] != "done" {
		t.Errorf("finish = %v", v)
	}
	b, err := os.ReadFile(f.w.Bundle().File(bundle.PatchFile))
	if err != nil || !strings.Contains(string(b), "+Hello, world!") || !strings.Contains(string(b), "+++ b/notes/CHANGES.md") {
		t.Errorf("changes.patch = %q, %v", b, err)
	}
	// Every call is in events.jsonl, in order.
	evs, err := f.w.Bundle().Events()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.Tool)
	}
	want := []string{"list_files", "read_file", "search_text", "run_check", "replace_text", "apply_patch", "git_diff", "shell", "run_check", "run_check", "finish"}
	if !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestRefusals(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, nil)
	tests := []struct {
		tool string
		args any
		want string
	}{
		{"read_file", `{"path":"greeting.txt","extra":1}`, `key "extra" at $: unknown key`},
		{"read_file", `{"path":5}`, "path"},
		{"read_file", `{"path":"greeting.txt","Path":"x"}`, "Path"},
		{"run_check", `{"name":"spelling","timeout_seconds":3600}`, "timeout_seconds is not accepted: the harness owns the timeout"},
		{"shell", `{"command":"ls","timeout":"1h"}`, "timeout is not accepted"},
		{"read_file", `{"path":"../src/greeting.txt"}`, `".." segment`},
		{"read_file", `{"path":".git/config"}`, `".git" segment`},
		{"read_file", `{"path":"/etc/passwd"}`, "absolute"},
		{"list_files", `{"path":"nope"}`, "nope"},
		{"replace_text", `{"path":"greeting.txt","old":"wrold","new":"world"}`, "has not been read: call read_file first"},
		{"replace_text", `{"path":"expected.txt","old":"a","new":"b"}`, "not in the allowed paths"},
		{"apply_patch", `{"patch":"--- a/expected.txt\n+++ b/expected.txt\n@@ -1 +1 @@\n-Hello, world!\n+x\n"}`, "not in the allowed paths"},
		{"run_check", `{"name":"rm-everything"}`, `unknown check "rm-everything"`},
		{"search_text", `{"query":""}`, "query: empty"},
		{"shell", `{"command":"rm -rf /"}`, "denied by policy: floor."},
		{"shell", `{"command":"echo $(cat greeting.txt)"}`, "is not a command that was graded"},
		{"finish", `{"why":"x"}`, `key "why" at $: unknown key`},
	}
	for _, tt := range tests {
		mustRefuse(t, cs, tt.tool, tt.args, tt.want)
	}
	// An unknown tool is a protocol error, not a call.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "eval", Arguments: map[string]any{}}); err == nil {
		t.Error("unknown tool: no error")
	}
	evs, err := f.w.Bundle().Events()
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(tests)+1 {
		t.Fatalf("%d events for %d refused calls", len(evs), len(tests)+1)
	}
	if last := evs[len(evs)-1]; last.Tool != "eval" || last.OK || !strings.Contains(last.Error, `unknown tool "eval"`) {
		t.Errorf("unknown tool event = %+v", last)
	}
	evs = evs[:len(tests)]
	for i, e := range evs {
		if e.OK || e.Error == "" || e.Tool != tests[i].tool {
			t.Errorf("event %d = %+v, want a refused %s", i, e, tests[i].tool)
		}
	}
}

func TestNewRefusesWithoutWorkspace(t *testing.T) {
	if _, err := mcpserver.New(mcpserver.Config{}); err == nil {
		t.Error("New without a workspace: no error")
	}
}

// A call whose event cannot be recorded is a JSON-RPC error, not a
// result: nothing comes back that the bundle does not hold.
func TestUnrecordedCallIsProtocolError(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, nil)
	events := f.w.Bundle().File(bundle.EventsFile)
	os.Remove(events)
	if err := os.Mkdir(events, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"read_file", "finish"} {
		args := map[string]any{"path": "greeting.txt"}
		if name == "finish" {
			args = map[string]any{}
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err == nil {
			t.Errorf("%s with an unwritable events.jsonl: %+v, want a protocol error", name, res)
		}
	}
}

// Clients are told which tools change or destroy files: apply_patch and
// the shell are destructive, the readers read-only.
func TestToolAnnotations(t *testing.T) {
	ts, err := mcpserver.Tools(bundle.Request{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"apply_patch": true, "shell": true, "replace_text": false}
	for _, tl := range ts {
		d, ok := want[tl.Name]
		if !ok {
			continue
		}
		if tl.Annotations.DestructiveHint == nil || *tl.Annotations.DestructiveHint != d {
			t.Errorf("%s: destructive hint %v, want %v", tl.Name, tl.Annotations.DestructiveHint, d)
		}
	}
	for _, name := range []string{"read_file", "list_files", "search_text"} {
		for _, tl := range ts {
			if tl.Name == name && !tl.Annotations.ReadOnlyHint {
				t.Errorf("%s is not read-only", name)
			}
		}
	}
}
