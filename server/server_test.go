package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/rules"
	"github.com/rivumi/rivumi/server"

	"github.com/rivumi/rivumi/internal/testenv"
)

var (
	engOnce sync.Once
	eng     *engine.Engine
	engErr  error
)

// sharedEngine compiles the embedded packs once for the package's tests.
func sharedEngine(t *testing.T) *engine.Engine {
	t.Helper()
	engOnce.Do(func() { eng, engErr = engine.New(context.Background()) })
	if engErr != nil {
		t.Fatal(engErr)
	}
	return eng
}

func staticLoad(e *engine.Engine) server.LoadFunc {
	return func(context.Context) (*engine.Engine, error) { return e, nil }
}

// requests turns the project's testcases into requests.
func requests(t *testing.T) []server.Request {
	t.Helper()
	tcs, err := rules.LoadTestcases("../testcases")
	if err != nil {
		t.Fatal(err)
	}
	if len(tcs) < 100 {
		t.Fatalf("only %d testcases", len(tcs))
	}
	out := make([]server.Request, len(tcs))
	for i, tc := range tcs {
		r := server.Text(tc.Command)
		r.Cwd, r.Workspace, r.Home, r.Shell = tc.Cwd, tc.Workspace, tc.Home, tc.Shell
		for _, g := range tc.Grants {
			r.Grants = append(r.Grants, engine.Grant{Prefix: g.Prefix, Rules: g.Rules})
		}
		out[i] = r
	}
	return out
}

// inProcess is the verdict the engine gives r directly.
func inProcess(t *testing.T, e *engine.Engine, r server.Request) engine.Verdict {
	t.Helper()
	v, err := e.Grade(context.Background(), r)
	if err != nil {
		t.Fatalf("%q: %v", *r.Command, err)
	}
	return v
}

// serve starts s on ln and stops it when the test ends.
func serve(t *testing.T, s *server.Server, ln net.Listener) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// shortTemp is a temporary directory with a path short enough for a
// unix socket (t.TempDir can exceed the 108-byte limit).
func shortTemp(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "rv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// The testcases get the in-process verdicts over HTTP on loopback (one by
// one), the unix socket (as one batch) and stdio (one per line, and a
// batch line).
func TestTestcasesOverEveryTransport(t *testing.T) {
	testenv.NeedUnixSockets(t)
	e := sharedEngine(t)
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(logPath, audit.WithoutSync())
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	s, err := server.New(context.Background(), staticLoad(e), server.WithAudit(log))
	if err != nil {
		t.Fatal(err)
	}
	reqs := requests(t)
	want := make([]engine.Verdict, len(reqs))
	for i, r := range reqs {
		want[i] = inProcess(t, e, r)
	}

	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, s, tcp)
	sock := filepath.Join(shortTemp(t), "s.sock")
	uln, err := server.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, s, uln)
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode: %v %v", fi.Mode(), err)
	}
	if err := server.TrustedSocket(sock); err != nil {
		t.Errorf("TrustedSocket: %v", err)
	}

	ctx := context.Background()
	hc := server.NewClient("http://" + tcp.Addr().String())
	for i, r := range reqs {
		got, err := hc.Verdict(ctx, r)
		if err != nil {
			t.Fatalf("HTTP %q: %v", *r.Command, err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("HTTP %q:\n got %v\nwant %v", *r.Command, got, want[i])
		}
	}

	uc := server.NewUnixClient(sock)
	var resps []server.Response
	for i := 0; i < len(reqs); i += server.DefaultMaxBatch {
		rs, err := uc.Verdicts(ctx, reqs[i:min(i+server.DefaultMaxBatch, len(reqs))])
		if err != nil {
			t.Fatal(err)
		}
		resps = append(resps, rs...)
	}
	for i, resp := range resps {
		if resp.Command != *reqs[i].Command || !reflect.DeepEqual(resp.Verdict, want[i]) {
			t.Errorf("socket batch %q:\n got %v\nwant %v", *reqs[i].Command, resp.Verdict, want[i])
		}
	}
	if h, err := uc.Health(ctx); err != nil || h.Status != "ok" || h.Policy != e.PolicyHash() {
		t.Errorf("healthz: %+v %v", h, err)
	}

	var in bytes.Buffer
	for _, r := range reqs {
		b, _ := json.Marshal(r)
		in.Write(append(b, '\n'))
	}
	in.WriteString("\n") // blank lines are skipped
	b, _ := json.Marshal(reqs[:3])
	in.Write(append(b, '\n'))
	var out bytes.Buffer
	if err := s.ServeStdio(ctx, &in, &out); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for i := 0; i < len(reqs); i++ {
		if !sc.Scan() {
			t.Fatalf("stdio: %d lines for %d requests", i, len(reqs))
		}
		var resp server.Response
		if err := json.Unmarshal(sc.Bytes(), &resp); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(resp.Verdict, want[i]) {
			t.Errorf("stdio %q:\n got %v\nwant %v", *reqs[i].Command, resp.Verdict, want[i])
		}
	}
	if !sc.Scan() {
		t.Fatal("stdio: no batch line")
	}
	var batch []server.Response
	if err := json.Unmarshal(sc.Bytes(), &batch); err != nil || len(batch) != 3 || !reflect.DeepEqual(batch[2].Verdict, want[2]) {
		t.Errorf("stdio batch: %v %v", batch, err)
	}
	if sc.Scan() {
		t.Errorf("stdio: extra line %q", sc.Text())
	}

	// Every verdict is in the decision log.
	es, err := audit.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := 3*len(reqs) + 3; len(es) != n {
		t.Errorf("decision log has %d entries, want %d", len(es), n)
	}
	if es[0].Source != "serve" || es[0].Kind != audit.KindGrade || es[0].Verdict != want[0].Decision.String() || es[0].Policy != e.PolicyHash() {
		t.Errorf("first decision log entry: %+v", es[0])
	}

	// Metrics count the verdicts by decision and transport.
	resp, err := http.Get("http://" + tcp.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`rivumi_verdicts_total{decision="deny",transport="http"}`,
		`rivumi_verdicts_total{decision="allow",transport="stdio"}`,
		`rivumi_verdict_duration_seconds_bucket{decision="ask",le="0.001"}`,
		`rivumi_policy_info{policy="` + e.PolicyHash() + `"} 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestBadRequests(t *testing.T) {
	e := sharedEngine(t)
	s, err := server.New(context.Background(), staticLoad(e), server.WithLimits(4096, 3, 0))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, s, ln)
	base := "http://" + ln.Addr().String()
	for _, c := range []struct {
		path, body string
		code       int
		errText    string
	}{
		{"/v1/verdict", `{"command": "ls"`, 400, "bad JSON"},
		{"/v1/verdict", `{"command": "ls", "argv": ["ls"]}`, 400, "not both"},
		{"/v1/verdict", `{}`, 400, `missing "command" or "argv"`},
		{"/v1/verdict", `{"argv": []}`, 400, `empty "argv"`},
		{"/v1/verdict", `{"command": "ls", "cwd": "rel"}`, 400, "absolute path"},
		{"/v1/verdict", `{"command": "ls", "shell": "fish"}`, 400, "bash, sh or zsh"},
		{"/v1/verdict", `{"command": "ls", "extra": 1}`, 400, `key "extra" at $: unknown key`},
		{"/v1/verdict", `{"command": "ls"} {"command": "ls"}`, 400, "data after the JSON value"},
		// Keys are exact: a case variant or a second copy would be read
		// differently by other JSON readers.
		{"/v1/verdict", `{"command": "rm -rf /", "Command": "ls"}`, 400, `key "Command" at $: keys are case-sensitive`},
		{"/v1/verdict", `{"command": "rm -rf /", "command": "ls"}`, 400, `key "command" at $: duplicate key`},
		{"/v1/verdict", `{"argv": ["ls"], "grants": [{"prefix": ["ls"], "rules": ["x"], "Rules": []}]}`, 400, `key "Rules" at $.grants[0]`},
		{"/v1/verdicts", `[{"command": "ls"}, {"command": "ls"}] [{"command": "rm -rf /"}]`, 400, "data after the JSON value"},
		{"/v1/verdict", `{"command": "` + strings.Repeat("x", 5000) + `"}`, 413, "over 4096 bytes"},
		{"/v1/verdicts", `[{"command": "ls"}, {"command": "ls"}, {"command": "ls"}, {"command": "ls"}]`, 413, "over the limit of 3"},
		{"/v1/verdicts", `{"command": "ls"}`, 400, "bad JSON"},
	} {
		resp, err := http.Post(base+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		var r server.Response
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil || resp.StatusCode != c.code || r.Decision != engine.Deny || !strings.Contains(r.Error, c.errText) ||
			len(r.Reasons) != 1 || r.Reasons[0].Rule != server.RuleBadInput {
			t.Errorf("%s %.60s: %d %+v %v; want %d deny %q", c.path, c.body, resp.StatusCode, r, err, c.code, c.errText)
		}
	}
	// A bad item in a batch is a deny item; the others are graded.
	resp, err := http.Post(base+"/v1/verdicts", "application/json", strings.NewReader(`[{"command": "ls"}, {"cmd": "ls"}, {"argv": ["rm", "-rf", "/"]}]`))
	if err != nil {
		t.Fatal(err)
	}
	var batch []server.Response
	json.NewDecoder(resp.Body).Decode(&batch)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(batch) != 3 || batch[0].Decision != engine.Allow || batch[1].Decision != engine.Deny ||
		batch[1].Error == "" || batch[2].Decision != engine.Deny || batch[2].Reasons[0].Rule != "floor.rm-critical" {
		t.Errorf("batch: %d %+v", resp.StatusCode, batch)
	}
	// Wrong method.
	resp, err = http.Get(base + "/v1/verdict")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/verdict: %d", resp.StatusCode)
	}
	// stdio: an overlong line and a bad line are deny lines; the next is graded.
	in := strings.NewReader(`{"command": "` + strings.Repeat("y", 5000) + "\"}\nnot json\n{\"command\": \"ls\"}\n" +
		`{"command": "rm -rf /", "Command": "ls"}` + "\n" + `{"command": "ls"} {"command": "rm -rf /"}` + "\n")
	var out bytes.Buffer
	if err := s.ServeStdio(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], "line 1: over 4096 bytes") || !strings.Contains(lines[1], `"line 2: bad JSON`) ||
		!strings.Contains(lines[2], `"decision":"allow"`) || !strings.Contains(lines[3], `line 4: bad JSON: key \"Command\"`) ||
		!strings.Contains(lines[4], `line 5: bad JSON: at $: data after`) {
		t.Errorf("stdio:\n%s", out.String())
	}
}

// Reload swaps a policy that compiles and keeps the old one when the new
// one does not.
func TestReloadKeepsOldPolicyOnError(t *testing.T) {
	dir := t.TempDir()
	good := "package rivumi.user\n\n# METADATA\n# title: No cowsay\n# custom:\n#   id: team.no-cowsay\n#   justification: Not at work.\ndeny contains {\"id\": \"team.no-cowsay\"} if input.segment.program == \"cowsay\"\n"
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "team.rego"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(good)
	load := func(ctx context.Context) (*engine.Engine, error) { return engine.New(ctx, engine.UserDir(dir)) }
	s, err := server.New(context.Background(), load)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	grade := func() server.Response { return s.Grade(ctx, ptr(server.Text("cowsay hi")), "test") }
	first := s.Engine().PolicyHash()
	if r := grade(); r.Decision != engine.Deny || r.Reasons[0].Rule != "team.no-cowsay" {
		t.Fatalf("before: %+v", r)
	}
	write("package rivumi.user\n\ndeny contains {\"id\": \"x\"} if {\n") // does not parse
	if err := s.Reload(ctx); err == nil {
		t.Fatal("Reload of a broken policy succeeded")
	}
	if s.Engine().PolicyHash() != first {
		t.Error("the broken policy replaced the old one")
	}
	if r := grade(); r.Decision != engine.Deny || r.Reasons[0].Rule != "team.no-cowsay" {
		t.Errorf("after a failed reload: %+v", r)
	}
	write(strings.ReplaceAll(good, `program == "cowsay"`, `program == "fortune"`))
	if err := s.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Engine().PolicyHash() == first {
		t.Error("the fixed policy was not swapped in")
	}
	if r := grade(); r.Decision == engine.Deny {
		t.Errorf("after reload: %+v", r)
	}
}

// Shutdown waits for requests in flight and returns nil.
func TestGracefulShutdown(t *testing.T) {
	e := sharedEngine(t)
	s, err := server.New(context.Background(), staticLoad(e))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	c := server.NewClient("http://" + ln.Addr().String())
	if _, err := c.Verdict(context.Background(), server.Text("ls")); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	if _, err := c.Verdict(context.Background(), server.Text("ls")); err == nil {
		t.Error("server still answers after shutdown")
	}
}

func TestListenUnixRefusesLiveSocket(t *testing.T) {
	testenv.NeedUnixSockets(t)
	sock := filepath.Join(shortTemp(t), "s.sock")
	ln, err := server.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if _, err := server.ListenUnix(sock); err == nil || !strings.Contains(err.Error(), "already listening") {
		t.Errorf("second listener: %v", err)
	}
	// A file that is not a socket is not replaced.
	notSock := filepath.Join(filepath.Dir(sock), "f")
	os.WriteFile(notSock, nil, 0o600)
	if _, err := server.ListenUnix(notSock); err == nil {
		t.Error("replaced a regular file")
	}
	if err := server.TrustedSocket(notSock); err == nil {
		t.Error("a regular file is a trusted socket")
	}
	if err := server.TrustedSocket(filepath.Join(filepath.Dir(sock), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing socket: %v", err)
	}
	// A directory others may write to is refused, for listening and for trusting.
	open := filepath.Join(filepath.Dir(sock), "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	if _, err := server.ListenUnix(filepath.Join(open, "s.sock")); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("listen in a world-writable directory: %v", err)
	}
	os.Chmod(open, 0o700)
	ln2, err := server.ListenUnix(filepath.Join(open, "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln2.Close()
	os.Chmod(open, 0o777)
	if err := server.TrustedSocket(filepath.Join(open, "s.sock")); err == nil {
		t.Error("trusted a socket in a world-writable directory")
	}
}

// serve's evaluation deadline is the engine's: a slow team rule denies with
// engine.timeout, as eval, run and the hooks do.
func TestGradeDeadline(t *testing.T) {
	slow := `package rivumi.user

# METADATA
# title: Slow
# custom:
#   id: team.slow
#   justification: A rule that computes far too much.
deny contains {"id": "team.slow"} if {
	count([x | some x in numbers.range(1, 20000000); x < 0]) > 0
}
`
	e, err := engine.New(context.Background(), engine.UserModule("slow.rego", slow), engine.CacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(context.Background(), staticLoad(e), server.WithLimits(0, 0, 100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	resp := s.Grade(context.Background(), &server.Request{Command: ptr("ls")}, "test")
	if resp.Decision != engine.Deny || len(resp.Reasons) == 0 || resp.Reasons[0].Rule != engine.RuleTimeout {
		t.Fatalf("got %s %+v, want deny by %s", resp.Decision, resp.Reasons, engine.RuleTimeout)
	}
	if server.DefaultEvalTimeout != engine.DefaultEvalTimeout {
		t.Errorf("serve's default deadline %v differs from the engine's %v", server.DefaultEvalTimeout, engine.DefaultEvalTimeout)
	}
}

func ptr[T any](v T) *T { return &v }
