package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// End-to-end tests of the adapters for Qwen Code, opencode, pi, oh-my-pi
// and GitHub Copilot CLI against the real CLIs (installed from npm by .ci/agents-e2e),
// each driven by a loopback mock of an OpenAI-compatible chat completions
// API that answers with one scripted tool call and then with text.
//
//	RIVUMI_E2E_QWEN, _OPENCODE, _PI, _OMP,  the CLIs' executables
//	_COPILOT
//	RIVUMI_E2E_QWEN_VERSION, …              the versions they must report
//	RIVUMI_E2E_OPENCODE_CACHE               opencode's cache directory, kept
//	                                        between runs (it installs the
//	                                        provider's npm package there)

// moreAgents are the agents of this file, with the suffix of their
// variables.
var moreAgents = []struct{ name, key string }{
	{"qwen", "QWEN"}, {"opencode", "OPENCODE"}, {"pi", "PI"}, {"omp", "OMP"}, {"copilot", "COPILOT"},
}

func TestAgentsE2EMore(t *testing.T) {
	if os.Getenv("RIVUMI_AGENTS_E2E") == "" {
		t.Skip("the end-to-end tests against the real agent CLIs run from .ci/agents-e2e, which installs them from npm (set RIVUMI_AGENTS_E2E=1 and RIVUMI_E2E_* to run them here)")
	}
	for _, ag := range moreAgents {
		t.Run(ag.name, func(t *testing.T) {
			exe := os.Getenv("RIVUMI_E2E_" + ag.key)
			if exe == "" {
				t.Skipf("RIVUMI_E2E_%s is not set", ag.key)
			}
			t.Parallel()
			a, m := newMoreAgent(t, ag.name, ag.key, exe)
			e2eMore(t, a, m)
		})
	}
}

// newMoreAgent prepares a throwaway home and project for one agent, its
// provider pointed at a new chat completions mock.
func newMoreAgent(t *testing.T, name, key, exe string) (*e2eAgent, *chatMock) {
	version := exec.Command(exe, "--version")
	// oh-my-pi's launcher runs bun, which npm installs beside it.
	version.Env = append(os.Environ(), "PATH="+filepath.Dir(exe)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := version.CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", exe, err, out)
	}
	if v := os.Getenv("RIVUMI_E2E_" + key + "_VERSION"); v != "" && !strings.Contains(string(out), v) {
		t.Fatalf("%s --version says %q, want %s", exe, strings.TrimSpace(string(out)), v)
	}
	t.Logf("%s: %s", name, strings.TrimSpace(string(out)))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(os.Getenv("RIVUMI_E2E_WORK"), "e2e-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			os.RemoveAll(dir)
		} else {
			t.Logf("kept %s", dir)
		}
	})
	a := &e2eAgent{t: t, name: name, exe: exe, dir: dir, home: filepath.Join(dir, "home"), proj: filepath.Join(dir, "proj"),
		rivumi: filepath.Join(dir, "bin", "rivumi"), audit: filepath.Join(dir, "log", "audit.jsonl")}
	for _, d := range []string{a.home, a.proj, filepath.Dir(a.rivumi), filepath.Dir(a.audit)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wrapper := "#!/bin/sh\n" + execEnv + "=1 exec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(a.rivumi, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	buildThin(t, filepath.Dir(a.rivumi))
	if out, err := exec.Command("git", "init", "-q", a.proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	cache := filepath.Join(a.home, ".cache")
	if c := os.Getenv("RIVUMI_E2E_OPENCODE_CACHE"); c != "" && name == "opencode" {
		cache = c
	}
	// The executable's directory first: oh-my-pi's launcher runs bun from there.
	a.env = []string{
		"PATH=" + filepath.Dir(exe) + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + a.home, "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1",
		"XDG_CONFIG_HOME=" + filepath.Join(a.home, ".config"), "XDG_STATE_HOME=" + filepath.Join(a.home, ".local", "state"),
		"XDG_DATA_HOME=" + filepath.Join(a.home, ".local", "share"), "XDG_CACHE_HOME=" + cache, "SHELL=/bin/bash",
		"QWEN_CODE_SUPPRESS_YOLO_WARNING=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "PI_SKIP_VERSION_CHECK=1",
	}
	m := startChatMock(t)
	// Each CLI's provider: an OpenAI-compatible one at the mock.
	write := func(rel, content string) {
		p := filepath.Join(a.home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	switch name {
	case "opencode":
		write(".config/opencode/opencode.json", fmt.Sprintf(`{"$schema": "https://opencode.ai/config.json",
  "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock", "options": {"baseURL": %q, "apiKey": "sk-x"},
    "models": {"mock-model": {"name": "Mock", "tool_call": true}, "gpt-5": {"name": "Mock GPT", "tool_call": true}}}},
  "model": "mock/mock-model", "autoupdate": false, "share": "disabled"}`, m.url+"/v1"))
	case "pi":
		write(".pi/agent/models.json", fmt.Sprintf(`{"providers": {"mock": {"baseUrl": %q, "api": "openai-completions", "apiKey": "sk-x",
  "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false}, "models": [{"id": "mock-model"}]}}}`, m.url+"/v1"))
	case "omp":
		write(".omp/agent/models.yml", fmt.Sprintf("providers:\n  mock:\n    baseUrl: %s/v1\n    api: openai-completions\n    apiKey: sk-x\n"+
			"    compat:\n      supportsDeveloperRole: false\n      supportsReasoningEffort: false\n    models:\n      - id: mock-model\n", m.url))
	}
	return a, m
}

// moreRun runs the agent once, the mock answering with a call of tool.
func moreRun(a *e2eAgent, m *chatMock, tool string, args any) string {
	a.t.Helper()
	m.set(tool, args)
	switch a.name {
	case "qwen":
		return a.run(nil, "--auth-type", "openai", "--openai-base-url", m.url+"/v1", "--openai-api-key", "sk-x", "-m", "mock-model",
			"--approval-mode", "yolo", "-o", "stream-json", "do it")
	case "opencode":
		return a.run(nil, "run", "--format", "json", "do it")
	case "copilot":
		return a.run([]string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + m.url + "/v1", "COPILOT_PROVIDER_API_KEY=sk-x",
			"COPILOT_MODEL=mock-model", "COPILOT_AUTO_UPDATE=false"}, "-p", "do it", "--allow-all-tools", "--output-format", "json")
	default: // pi, omp
		return a.run(nil, "--provider", "mock", "--model", "mock-model", "--mode", "json", "-p", "do it")
	}
}

// The tool names and arguments of each agent.
var moreTools = map[string]struct {
	shell, write, read string
	path, content      string // the path argument of write and read, the content of write
	shellArgs          func(cmd string) map[string]any
}{
	"qwen":     {"run_shell_command", "write_file", "read_file", "file_path", "content", func(c string) map[string]any { return map[string]any{"command": c, "is_background": false} }},
	"opencode": {"bash", "write", "read", "filePath", "content", func(c string) map[string]any { return map[string]any{"command": c, "description": "probe"} }},
	"pi":       {"bash", "write", "read", "path", "content", func(c string) map[string]any { return map[string]any{"command": c} }},
	"omp":      {"bash", "write", "read", "path", "content", func(c string) map[string]any { return map[string]any{"command": c} }},
	"copilot":  {"bash", "create", "view", "path", "file_text", func(c string) map[string]any { return map[string]any{"command": c, "description": "probe"} }},
}

// The edit tool of each agent (oh-my-pi's edits are hashline patches;
// its write tool is tested).
var moreEdits = map[string]struct {
	tool string
	args func(path string) map[string]any
}{
	"qwen": {"edit", func(p string) map[string]any {
		return map[string]any{"file_path": p, "old_string": "push", "new_string": "pull_request"}
	}},
	"opencode": {"edit", func(p string) map[string]any {
		return map[string]any{"filePath": p, "oldString": "push", "newString": "pull_request"}
	}},
	"pi": {"edit", func(p string) map[string]any {
		return map[string]any{"path": p, "edits": []any{map[string]any{"oldText": "push", "newText": "pull_request"}}}
	}},
	"copilot": {"edit", func(p string) map[string]any {
		return map[string]any{"path": p, "old_str": "push", "new_str": "pull_request"}
	}},
}

func e2eMore(t *testing.T, a *e2eAgent, m *chatMock) {
	tools := moreTools[a.name]
	a.install()
	if out, code := a.doctor(); code != 0 {
		t.Errorf("doctor: exit %d\n%s", code, out)
	}
	// The floor probe never runs.
	n := a.calls()
	moreRun(a, m, tools.shell, tools.shellArgs(floorProbe))
	a.expect("floor probe", "FLOOR-RAN", false, "deny", n)
	if !m.called(tools.shell) {
		t.Fatalf("the mock never offered a call of %s: %v\n%s", tools.shell, m.summary(), tail(a.lastOut, 3000))
	}

	n = a.calls()
	moreRun(a, m, tools.shell, tools.shellArgs(allowProbe))
	a.expect("allowed command", "ALLOW-RAN", true, "allow", n)

	// An allowed read runs: its content reaches the model.
	if err := os.WriteFile(filepath.Join(a.proj, "notes.txt"), []byte("READ-CONTENT-7f3a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n = a.calls()
	moreRun(a, m, tools.read, map[string]any{tools.path: filepath.Join(a.proj, "notes.txt")})
	a.expect("allowed read", "notes.txt", true, "allow", n)
	if !m.sawResult("READ-CONTENT-7f3a") {
		t.Errorf("allowed read: the file's content did not reach the model\n%s", tail(a.lastOut, 3000))
	}

	// An ask: Qwen Code and Copilot CLI ask (and deny headless); the
	// plugins cannot ask headless, so rivumi denies.
	n = a.calls()
	moreRun(a, m, tools.shell, tools.shellArgs(askProbe))
	want := "deny"
	if a.name == "qwen" || a.name == "copilot" {
		want = "ask"
	}
	a.expect("ask", "ASK-RAN", false, want, n)

	// Interactive, the ask reaches the user with rivumi's reason: Qwen
	// Code's confirmation (in yolo mode too), pi's ui.confirm. Declined,
	// the command does not run.
	if a.name == "qwen" || a.name == "pi" {
		moreInteractiveAsk(t, a, m, tools.shell, tools.shellArgs(askProbe))
	}

	// A protected file through the write tool.
	n = a.calls()
	moreRun(a, m, tools.write, map[string]any{tools.path: filepath.Join(a.proj, ".github", "workflows", "WRITE-RAN.yml"), tools.content: "on: push\n"})
	a.expect("protected write", ".github/workflows/WRITE-RAN.yml", false, "deny", n)

	// A protected file through the edit tool: unchanged.
	ci := filepath.Join(a.proj, ".github", "workflows", "ci.yml")
	if err := os.MkdirAll(filepath.Dir(ci), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ci, []byte("on: push\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if edit := moreEdits[a.name]; edit.tool != "" {
		n = a.calls()
		moreRun(a, m, edit.tool, edit.args(ci))
		if b, _ := os.ReadFile(ci); string(b) != "on: push\n" {
			t.Errorf("protected edit: the file changed to %q\n%s", b, tail(a.lastOut, 3000))
		}
		if calls := a.auditAnswers(); len(calls) <= n || calls[len(calls)-1]["answer"] != "deny" {
			t.Errorf("protected edit: rivumi's answers %v, want deny", calls[n:])
		}
		t.Logf("protected edit (%s): %v", edit.tool, a.lastWall.Round(10*time.Millisecond))
	}

	// opencode offers GPT models apply_patch instead of edit and write:
	// a patch that adds ~/.bashrc is denied, and the file absent.
	if a.name == "opencode" {
		n = a.calls()
		m.set("apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: " + filepath.Join(a.home, ".bashrc") + "\n+touch PATCH-RAN\n*** End Patch"})
		a.run(nil, "run", "--format", "json", "--model", "mock/gpt-5", "do it")
		if !m.called("apply_patch") {
			t.Errorf("apply_patch: opencode did not offer it to a GPT model: %v", m.summary())
		}
		if _, err := os.Stat(filepath.Join(a.home, ".bashrc")); err == nil {
			t.Errorf("apply_patch: ~/.bashrc was written")
		}
		if calls := a.auditAnswers(); len(calls) <= n || calls[len(calls)-1]["answer"] != "deny" {
			t.Errorf("apply_patch: rivumi's answers %v, want deny", calls[n:])
		}
		t.Logf("apply_patch of ~/.bashrc: %v", a.lastWall.Round(10*time.Millisecond))
	}

	// The thin client gone: rivumi's plugins run the full binary beside
	// it instead, and the floor probe is still denied.
	if a.name == "opencode" || a.name == "pi" || a.name == "omp" {
		if err := os.Rename(a.hook, a.hook+".gone"); err != nil {
			t.Fatal(err)
		}
		n := a.calls()
		moreRun(a, m, tools.shell, tools.shellArgs(floorProbe))
		a.expect("floor probe, the plugin's fallback", "FLOOR-RAN", false, "deny", n)
		if err := os.Rename(a.hook+".gone", a.hook); err != nil {
			t.Fatal(err)
		}
	}
	// The binaries gone: Qwen Code runs the tool (a hook that cannot start
	// does not block, as in Claude Code); Copilot CLI and rivumi's
	// plugins block it.
	if err := os.Rename(a.hook, a.hook+".gone"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(a.rivumi, a.rivumi+".gone"); err != nil {
		t.Fatal(err)
	}
	moreRun(a, m, tools.shell, tools.shellArgs("touch GONE-RAN"))
	_, err := os.Stat(filepath.Join(a.proj, "GONE-RAN"))
	if ran := err == nil; ran != (a.name == "qwen") {
		t.Errorf("binary gone: the tool ran = %v, want %v\n%s", ran, a.name == "qwen", tail(a.lastOut, 3000))
	}
	t.Logf("binary gone: the tool ran = %v", err == nil)
	// doctor fails, saying what the agent does (it runs through the
	// wrapper: call the test binary directly).
	self, _ := os.Executable()
	doctor := exec.Command(self, "hook", "doctor", a.name, "--user")
	doctor.Dir, doctor.Env = a.proj, append(append([]string(nil), a.env...), execEnv+"=1")
	out, err := doctor.CombinedOutput()
	wantSays := "every matched tool is blocked"
	if a.name == "qwen" {
		wantSays = "runs every tool unguarded"
	}
	if err == nil || !strings.Contains(string(out), wantSays) {
		t.Errorf("doctor with the binary gone: %v, want a failure saying %q\n%s", err, wantSays, out)
	}
	if err := os.Rename(a.rivumi+".gone", a.rivumi); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(a.hook+".gone", a.hook); err != nil {
		t.Fatal(err)
	}
	for _, ag := range moreAgents {
		if ag.name == a.name {
			failModes(t, a, os.Getenv("RIVUMI_E2E_"+ag.key+"_VERSION"), func(cmd string) {
				moreRun(a, m, tools.shell, tools.shellArgs(cmd))
			})
		}
	}
	// A plugin edited after install: doctor fails.
	if plugin := map[string]string{"opencode": ".config/opencode/plugin/rivumi.js", "pi": ".pi/agent/extensions/rivumi.js",
		"omp": ".omp/agent/extensions/rivumi.js"}[a.name]; plugin != "" {
		f := filepath.Join(a.home, plugin)
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, append(b, []byte("\n// edited\n")...), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, code := a.doctor(); code == 0 || !strings.Contains(out, "was changed since rivumi wrote it") {
			t.Errorf("doctor with an edited plugin: exit %d\n%s", code, out)
		}
	}
}

var moreTmuxRuns atomic.Int32 // one tmux server per session

// moreInteractiveAsk runs an interactive session under tmux whose model
// calls tool with args (an ask), waits for the agent's confirmation with
// rivumi's reason, declines it, and checks that the command did not run.
func moreInteractiveAsk(t *testing.T, a *e2eAgent, m *chatMock, tool string, args any) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Logf("interactive ask: skipped, no tmux")
		return
	}
	m.set(tool, args)
	argv := []string{a.exe, "--provider", "mock", "--model", "mock-model", "do it"}
	if a.name == "qwen" {
		argv = []string{a.exe, "--auth-type", "openai", "--openai-base-url", m.url + "/v1", "--openai-api-key", "sk-x", "-m", "mock-model",
			"--approval-mode", "yolo", "-i", "do it"}
	}
	g := &tmuxSession{t: t, sock: fmt.Sprintf("rivumi-e2e-more-%d-%d", os.Getpid(), moreTmuxRuns.Add(1))}
	defer g.close()
	var line strings.Builder
	line.WriteString("env -i")
	for _, e := range append(append([]string(nil), a.env...), "TERM=xterm-256color") {
		if e != "TERM=dumb" {
			line.WriteString(" " + shellQuoteTest(e))
		}
	}
	for _, w := range argv {
		line.WriteString(" " + shellQuoteTest(w))
	}
	if out := g.tmux("new-session", "-d", "-s", "g", "-x", "200", "-y", "50", "-c", a.proj, line.String()+"; sleep 60"); out != "" {
		t.Fatalf("tmux new-session: %s", out)
	}
	n := a.calls()
	g.wait("confirmation with rivumi's reason", func(s string) bool { return strings.Contains(s, "rivumi asks") })
	if a.name == "qwen" {
		g.send("Escape")
	} else {
		g.send("Down")
		time.Sleep(300 * time.Millisecond)
		g.send("Enter")
	}
	g.wait("the declined call", func(s string) bool {
		return strings.Contains(s, "the user did not confirm") || strings.Contains(s, "Type your message")
	})
	if _, err := os.Stat(filepath.Join(a.proj, "ASK-RAN")); err == nil {
		t.Errorf("interactive ask: declined, but the command ran")
	}
	if calls := a.auditAnswers(); len(calls) <= n || calls[len(calls)-1]["answer"] != "ask" {
		t.Errorf("interactive ask: rivumi's answers %v, want ask", calls[n:])
	}
	t.Logf("interactive ask: confirmation shown, declined, not run")
}

// ---- the mock of an OpenAI-compatible chat completions API ----

// chatMock answers POST …/chat/completions: when the request offers the
// tool that was set and its last message is not a tool result, with a
// call of it; else with the text "done". Streaming and not.
type chatMock struct {
	url string
	mu  sync.Mutex
	// tool and args of the call to make
	tool    string
	args    map[string]any
	offered map[string]bool // tools the agent offered, by name, since set
	results []string        // the tool results the agent sent back
	seen    []string
}

func startChatMock(t *testing.T) *chatMock {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &chatMock{url: "http://" + ln.Addr().String(), offered: map[string]bool{}}
	srv := &http.Server{Handler: m}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return m
}

func (m *chatMock) set(tool string, args any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, _ := json.Marshal(args)
	m.args = nil
	_ = json.Unmarshal(b, &m.args)
	m.tool = tool
	m.offered = map[string]bool{}
	m.results = nil
}

// called reports whether the agent offered tool since the last set.
func (m *chatMock) called(tool string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.offered[tool]
}

// sawResult reports whether a tool result since the last set holds s.
func (m *chatMock) sawResult(s string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.results {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

func (m *chatMock) summary() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.seen...)
}

func (m *chatMock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.seen = append(m.seen, r.Method+" "+r.URL.Path)
	tool, args := m.tool, m.args
	m.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"mock-model","object":"model","created":1,"owned_by":"mock"}]}`)
		return
	case r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions"):
		http.NotFound(w, r)
		return
	}
	var req struct {
		Stream   bool             `json:"stream"`
		Messages []map[string]any `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	offered := false
	m.mu.Lock()
	for _, t := range req.Tools {
		m.offered[t.Function.Name] = true
		offered = offered || t.Function.Name == tool
	}
	last := ""
	for i, msg := range req.Messages {
		role, _ := msg["role"].(string)
		if role == "tool" {
			c, _ := json.Marshal(msg["content"])
			m.results = append(m.results, string(c))
		}
		if i == len(req.Messages)-1 {
			last = role
		}
	}
	m.mu.Unlock()
	useTool := offered && last != "tool"
	a, _ := json.Marshal(args)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		msg, finish := `{"role":"assistant","content":"done"}`, "stop"
		if useTool {
			msg = fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":%q,"arguments":%q}}]}`, tool, a)
			finish = "tool_calls"
		}
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"mock-model","choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`, msg, finish)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(s string) { fmt.Fprintf(w, "data: %s\n\n", s) }
	const head = `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"mock-model","choices":[`
	if useTool {
		ev(head + fmt.Sprintf(`{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":%q,"arguments":%q}}]},"finish_reason":null}]}`, tool, a))
		ev(head + `{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
	} else {
		ev(head + `{"index":0,"delta":{"role":"assistant","content":"done"},"finish_reason":null}]}`)
		ev(head + `{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	}
	ev(head + `],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	ev("[DONE]")
}
