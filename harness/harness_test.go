//go:build unix

package harness_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/harness/harnesstest"
	"github.com/rivumi/rivumi/verdict"
)

// fakeGrader answers with fixed verdicts per program name, and honours
// grants the way the engine does: a covering grant cancels the asks it
// names.
type fakeGrader struct {
	calls atomic.Int32
	// decide maps argv[0]'s base name to a decision; missing: allow.
	decide map[string]verdict.Decision
	err    error
	seen   []verdict.Request
	mu     sync.Mutex
}

const askRule = "packages.install-scripts"

func (g *fakeGrader) Grade(ctx context.Context, r verdict.Request) (verdict.Verdict, error) {
	argv := r.Argv
	g.calls.Add(1)
	g.mu.Lock()
	g.seen = append(g.seen, r)
	g.mu.Unlock()
	if g.err != nil {
		return verdict.Verdict{}, g.err
	}
	d, ok := g.decide[filepath.Base(argv[0])]
	if !ok {
		d = verdict.Allow
	}
	v := verdict.Verdict{Decision: d, Policy: "sha256:test"}
	switch d {
	case verdict.Ask:
		for _, gr := range r.Grants {
			if grant.Covers(gr, argv) && slices.Contains(gr.Rules, askRule) {
				return verdict.Verdict{Decision: verdict.Allow, Policy: v.Policy, Grants: []verdict.Grant{gr},
					Reasons: []verdict.Reason{{Rule: askRule, Layer: verdict.LayerGrant, Decision: verdict.Allow}}}, nil
			}
		}
		v.Reasons = []verdict.Reason{{Rule: askRule, Layer: verdict.LayerAsk, Decision: verdict.Ask, Title: "Runs install scripts",
			Justification: "package installs run code from every dependency", Prefix: argv[:min(2, len(argv))], Grantable: true}}
	case verdict.Deny:
		v.Reasons = []verdict.Reason{{Rule: "fs.rm-root", Layer: verdict.LayerFloor, Decision: verdict.Deny, Justification: "never"}}
	}
	return v, nil
}

// fakeBin makes a directory of executables named names (copies of
// /bin/true) and returns it.
func fakeBin(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(truePath(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), src, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func truePath(t *testing.T) string {
	for _, p := range []string{"/usr/bin/true", "/bin/true"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("no true(1)")
	return ""
}

// newHarness returns a harness over a fresh workspace with fast timings.
func newHarness(t *testing.T, cfg harness.Config) (*harness.Harness, string) {
	t.Helper()
	if cfg.Workspace == "" {
		cfg.Workspace = t.TempDir()
	}
	if cfg.KillGrace == 0 {
		cfg.KillGrace = 300 * time.Millisecond
	}
	if cfg.Grader == nil {
		cfg.Grader = &fakeGrader{}
	}
	h, err := harness.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h, cfg.Workspace
}

// runWithin fails the test if Run takes longer than limit (a hang).
func runWithin(t *testing.T, limit time.Duration, h *harness.Harness, ctx context.Context, req harness.Request) (harness.Result, error) {
	t.Helper()
	type rr struct {
		res harness.Result
		err error
	}
	ch := make(chan rr, 1)
	go func() {
		res, err := h.Run(ctx, req)
		ch <- rr{res, err}
	}()
	select {
	case r := <-ch:
		return r.res, r.err
	case <-time.After(limit):
		t.Fatalf("Run did not return within %v", limit)
	}
	return harness.Result{}, nil
}

func TestTimeoutKillsWholeGroup(t *testing.T) {
	h, ws := newHarness(t, harness.Config{})
	pidfile := filepath.Join(ws, "pids")
	token := "tok-" + strconv.Itoa(os.Getpid()) + "-timeout"
	start := time.Now()
	res, err := runWithin(t, 15*time.Second, h, context.Background(), harness.Request{
		Argv: helper(t, "ignore-term", pidfile, "3", token), Timeout: 700 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Run returned after %v", time.Since(start))
	if !res.Ran || !res.TimedOut || !res.KilledAfterGrace || res.Signal != syscall.SIGKILL {
		t.Errorf("ran %v timedOut %v killedAfterGrace %v signal %v; want a timeout ending in SIGKILL", res.Ran, res.TimedOut, res.KilledAfterGrace, res.Signal)
	}
	if !strings.Contains(res.Stdout.String(), "started") {
		t.Errorf("stdout %q: the helper did not start its grandchildren", res.Stdout.String())
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pids := strings.Fields(string(b))
	if len(pids) != 4 {
		t.Fatalf("pidfile %q", b)
	}
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		if !gone(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("pid %d still running after Run returned", pid)
		}
	}
	if live := liveWithToken(token); len(live) > 0 {
		t.Errorf("processes still running: %v", live)
	}
}

func TestEscapedProcessCannotHangRun(t *testing.T) {
	h, ws := newHarness(t, harness.Config{})
	pidfile := filepath.Join(ws, "pid")
	token := "tok-" + strconv.Itoa(os.Getpid()) + "-escape"
	t.Cleanup(func() {
		for _, pid := range liveWithToken(token) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	res, err := runWithin(t, 10*time.Second, h, context.Background(), harness.Request{Argv: helper(t, "escape", pidfile, token)})
	if err != nil {
		t.Fatal(err)
	}
	// The grandchild dropped the run's marker, so the harness cannot find
	// it: the pipes it holds are closed after the grace period.
	if res.ExitCode != 0 || !res.OutputIncomplete || len(res.Escaped) != 0 {
		t.Errorf("exit %d, outputIncomplete %v, escaped %v; want 0, true and none found (a setsid grandchild without the marker held stdout)",
			res.ExitCode, res.OutputIncomplete, res.Escaped)
	}
}

func TestCancelStopsCommand(t *testing.T) {
	h, _ := newHarness(t, harness.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res, err := runWithin(t, 10*time.Second, h, ctx, harness.Request{Argv: helper(t, "sleep", "20s")})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || res.TimedOut || res.KilledAfterGrace || res.Signal != syscall.SIGTERM {
		t.Errorf("cancelled %v timedOut %v killed %v signal %v; want cancelled by SIGTERM", res.Cancelled, res.TimedOut, res.KilledAfterGrace, res.Signal)
	}
}

func TestExitCodeAndStragglers(t *testing.T) {
	h, _ := newHarness(t, harness.Config{})
	res, err := h.Run(context.Background(), harness.Request{Argv: helper(t, "exit", "7")})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 7 || res.Signal != 0 || res.Stragglers || res.Decision != verdict.Allow {
		t.Errorf("result %+v", res)
	}
}

// rss returns the process's resident set size in bytes.
func rss(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm")
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

func TestOneGiBOutputBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("1 GiB of output")
	}
	const n = 1 << 30
	const head, tail = 64 << 10, 64 << 10
	h, _ := newHarness(t, harness.Config{OutputHead: head, OutputTail: tail})
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap0, rss0 := ms.HeapInuse, rss(t)
	var peakHeap uint64
	var peakRSS int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peakHeap = max(peakHeap, m.HeapInuse)
			peakRSS = max(peakRSS, rss(t))
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	res, err := h.Run(context.Background(), harness.Request{Argv: helper(t, "out", strconv.Itoa(n)), Timeout: time.Minute})
	close(stop)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1 GiB drained in %v; heap in use %d → peak %d KiB (+%d KiB); RSS %d → peak %d KiB (+%d KiB)",
		time.Since(start), heap0>>10, peakHeap>>10, (int64(peakHeap)-int64(heap0))>>10, rss0>>10, peakRSS>>10, (peakRSS-rss0)>>10)
	const limit = 64 << 20
	if g := int64(peakHeap) - int64(heap0); g > limit {
		t.Errorf("heap grew by %d MiB", g>>20)
	}
	if g := peakRSS - rss0; g > limit {
		t.Errorf("RSS grew by %d MiB", g>>20)
	}
	o := res.Stdout
	if res.ExitCode != 0 || o.Total != n || o.Dropped != n-head-tail || len(o.Head) != head || len(o.Tail) != tail {
		t.Fatalf("exit %d total %d dropped %d head %d tail %d", res.ExitCode, o.Total, o.Dropped, len(o.Head), len(o.Tail))
	}
	for i, b := range o.Head {
		if b != pattern(int64(i)) {
			t.Fatalf("head byte %d = %q, want %q", i, b, pattern(int64(i)))
		}
	}
	for i, b := range o.Tail {
		if off := int64(n - tail + i); b != pattern(off) {
			t.Fatalf("tail byte %d (offset %d) = %q, want %q", i, off, b, pattern(off))
		}
	}
}

func TestNoSecretReachesChild(t *testing.T) {
	secrets := map[string]string{
		"GITHUB_TOKEN":          "ghp_secretvalue1",
		"OPENAI_API_KEY":        "secretvalue2",
		"AWS_SECRET_ACCESS_KEY": "secretvalue3",
		"MY_PASSWORD":           "secretvalue4",
		"npm_token":             "secretvalue5",
		"SSH_AUTH_SOCK":         "/tmp/secretvalue6",
		"Db_Credentials":        "secretvalue7",
		"LD_PRELOAD":            "/tmp/secretvalue8.so",
		"GIT_CONFIG_COUNT":      "secretvalue9",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("LC_ALL", "C.UTF-8")
	t.Setenv("RIVUMI_NOT_ALLOWED", "plain")
	// Even an allowlist naming them does not let them through.
	allow := append(slices.Clone(harness.DefaultEnvAllow), "GITHUB_TOKEN", "OPENAI_*", "AWS_*", "MY_PASSWORD", "npm_token",
		"SSH_AUTH_SOCK", "Db_Credentials", "LD_PRELOAD", "GIT_*")
	h, ws := newHarness(t, harness.Config{EnvAllow: allow})
	res, err := h.Run(context.Background(), harness.Request{Argv: []string{"env"}})
	if err != nil {
		t.Fatal(err)
	}
	out := res.Stdout.String()
	if res.ExitCode != 0 || res.Stdout.Dropped != 0 {
		t.Fatalf("env: exit %d, %s", res.ExitCode, res.Stderr.String())
	}
	for k, v := range secrets {
		if strings.Contains(out, k+"=") || strings.Contains(out, v) {
			t.Errorf("%s reached the child", k)
		}
	}
	if strings.Contains(out, "RIVUMI_NOT_ALLOWED") {
		t.Error("a variable outside the allowlist reached the child")
	}
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(line, "=")
		vars[k] = v
	}
	want := map[string]string{
		"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "/bin/false", "GIT_CONFIG_GLOBAL": "/dev/null",
		"GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C.UTF-8",
	}
	for k, v := range want {
		if vars[k] != v {
			t.Errorf("%s=%q, want %q", k, vars[k], v)
		}
	}
	for _, k := range []string{"TMPDIR", "HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "PIP_CACHE_DIR", "npm_config_cache", "GOCACHE"} {
		if !strings.HasPrefix(vars[k], res.RunDir+"/") {
			t.Errorf("%s=%q, want it under the run directory %s", k, vars[k], res.RunDir)
		}
	}
	if vars["PATH"] == "" {
		t.Error("no PATH")
	}
	if _, err := os.Stat(res.RunDir); !os.IsNotExist(err) {
		t.Errorf("run directory %s not removed: %v", res.RunDir, err)
	}
	_ = ws
}

func TestKeepRunDir(t *testing.T) {
	h, _ := newHarness(t, harness.Config{KeepRunDir: true, RunRoot: t.TempDir()})
	res, err := h.Run(context.Background(), harness.Request{Argv: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(res.RunDir, "tmp")); err != nil || !fi.IsDir() {
		t.Errorf("kept run directory: %v", err)
	}
	if fi, _ := os.Stat(res.RunDir); fi.Mode().Perm() != 0o700 {
		t.Errorf("run directory mode %v, want 0700", fi.Mode().Perm())
	}
}

// denyCases are the ways a command is refused; in none may it start.
func TestRefusedCommandNeverStarts(t *testing.T) {
	tests := []struct {
		name       string
		grader     *fakeGrader
		approver   harness.Approver
		timeout    time.Duration
		wantRule   string
		wantGraded bool
		wantAnswer string
	}{
		{name: "policy deny", grader: &fakeGrader{decide: map[string]verdict.Decision{"touch": verdict.Deny}}, wantRule: "fs.rm-root", wantGraded: true},
		{name: "ask, headless", grader: &fakeGrader{decide: map[string]verdict.Decision{"touch": verdict.Ask}}, wantRule: askRule, wantGraded: true, wantAnswer: "deny"},
		{name: "ask, approver denies", grader: &fakeGrader{decide: map[string]verdict.Decision{"touch": verdict.Ask}},
			approver: harness.ApproverFunc(func(context.Context, harness.ApprovalRequest) (harness.Answer, error) { return harness.AnswerDeny, nil }),
			wantRule: askRule, wantGraded: true, wantAnswer: "deny"},
		{name: "ask, approver fails", grader: &fakeGrader{decide: map[string]verdict.Decision{"touch": verdict.Ask}},
			approver: harness.ApproverFunc(func(context.Context, harness.ApprovalRequest) (harness.Answer, error) {
				return harness.AnswerOnce, errors.New("ui crashed")
			}),
			wantRule: "harness.approval-error", wantGraded: true, wantAnswer: "error: ui crashed"},
		{name: "grader error", grader: &fakeGrader{err: errors.New("policy broke")}, wantRule: "harness.grade-error", wantGraded: true},
		{name: "unknown decision", grader: &fakeGrader{decide: map[string]verdict.Decision{"touch": verdict.Decision(7)}}, wantRule: "harness.unknown-decision", wantGraded: true},
		{name: "timeout above max", grader: &fakeGrader{}, timeout: time.Hour, wantRule: "harness.timeout-above-max"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := filepath.Join(t.TempDir(), "audit.jsonl")
			log, err := audit.Open(logPath)
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			h, ws := newHarness(t, harness.Config{Grader: tt.grader, Approver: tt.approver, Audit: log, MaxTimeout: time.Minute})
			marker := filepath.Join(ws, "marker")
			res, err := h.Run(context.Background(), harness.Request{Argv: []string{"touch", marker}, Timeout: tt.timeout})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(marker); !os.IsNotExist(err) {
				t.Fatalf("marker created: the refused command ran")
			}
			if res.Ran || res.Decision != verdict.Deny || res.Refusal == "" {
				t.Errorf("ran %v decision %v refusal %q", res.Ran, res.Decision, res.Refusal)
			}
			if got := tt.grader.calls.Load() > 0; got != tt.wantGraded {
				t.Errorf("graded %v, want %v", got, tt.wantGraded)
			}
			if res.Answer != tt.wantAnswer {
				t.Errorf("answer %q, want %q", res.Answer, tt.wantAnswer)
			}
			entries, err := audit.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 || entries[0].Kind != audit.KindGrade || entries[0].Decision != "deny" || !slices.Contains(entries[0].Rules, tt.wantRule) {
				t.Errorf("audit %+v; want one deny grade entry with rule %s", entries, tt.wantRule)
			}
		})
	}
}

// blockingReader never returns: a human who does not answer.
type blockingReader struct{ ch chan struct{} }

func (b blockingReader) Read([]byte) (int, error) { <-b.ch; return 0, io.EOF }

func TestApprovalTimeoutAndCancelDeny(t *testing.T) {
	late := func(ctx context.Context, _ harness.ApprovalRequest) (harness.Answer, error) {
		<-ctx.Done() // answers "once" only after the deadline or cancellation
		return harness.AnswerOnce, nil
	}
	tests := []struct {
		name       string
		approver   func(t *testing.T) harness.Approver
		cancel     bool
		wantAnswer string
		wantRule   string
	}{
		{"interactive, no answer", func(t *testing.T) harness.Approver {
			never := blockingReader{make(chan struct{})}
			t.Cleanup(func() { close(never.ch) })
			return harness.NewInteractive(never, io.Discard)
		}, false, "timeout", "harness.approval-timeout"},
		{"callback answering after the deadline", func(*testing.T) harness.Approver { return harness.ApproverFunc(late) }, false, "timeout", "harness.approval-timeout"},
		{"interactive, cancelled", func(t *testing.T) harness.Approver {
			never := blockingReader{make(chan struct{})}
			t.Cleanup(func() { close(never.ch) })
			return harness.NewInteractive(never, io.Discard)
		}, true, "cancelled", "harness.approval-cancelled"},
		{"callback answering after cancel", func(*testing.T) harness.Approver { return harness.ApproverFunc(late) }, true, "cancelled", "harness.approval-cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &fakeGrader{decide: map[string]verdict.Decision{"touch": verdict.Ask}}
			cfg := harness.Config{Grader: g, Approver: tt.approver(t), ApprovalTimeout: 200 * time.Millisecond}
			ctx := context.Background()
			if tt.cancel {
				cfg.ApprovalTimeout = time.Minute
				c, cancel := context.WithCancel(ctx)
				time.AfterFunc(200*time.Millisecond, cancel)
				ctx = c
			}
			h, ws := newHarness(t, cfg)
			marker := filepath.Join(ws, "marker")
			res, err := runWithin(t, 10*time.Second, h, ctx, harness.Request{Argv: []string{"touch", marker}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(marker); !os.IsNotExist(err) {
				t.Fatal("marker created")
			}
			if res.Ran || res.Decision != verdict.Deny || res.Answer != tt.wantAnswer || !hasRule(res.Reasons, tt.wantRule) {
				t.Errorf("ran %v decision %v answer %q reasons %v", res.Ran, res.Decision, res.Answer, res.Reasons)
			}
		})
	}
}

func hasRule(rs []verdict.Reason, rule string) bool {
	return slices.ContainsFunc(rs, func(r verdict.Reason) bool { return r.Rule == rule })
}

func TestInteractiveAnswers(t *testing.T) {
	req := harness.ApprovalRequest{
		Argv: []string{"npm", "install", "left pad"}, Dir: "/work/p",
		Verdict: verdict.Verdict{Decision: verdict.Ask, Reasons: []verdict.Reason{{Rule: askRule, Decision: verdict.Ask,
			Title: "Runs install scripts", Justification: "package installs run code"}}},
		Grants: []verdict.Grant{{Prefix: []string{"npm", "install"}, Rules: []string{askRule}}},
	}
	noGrant := req
	noGrant.Grants = nil
	tests := []struct {
		input string
		req   harness.ApprovalRequest
		want  harness.Answer
	}{
		{"o\n", req, harness.AnswerOnce},
		{"once\n", req, harness.AnswerOnce},
		{"a\n", req, harness.AnswerAlways},
		{"A\n", req, harness.AnswerAlways},
		{"d\n", req, harness.AnswerDeny},
		{"\n", req, harness.AnswerDeny},
		{"", req, harness.AnswerDeny},             // end of input
		{"maybe\no\n", req, harness.AnswerOnce},   // asked again
		{"x\nq\nz\no\n", req, harness.AnswerDeny}, // three wrong answers
		{"a\no\n", noGrant, harness.AnswerOnce},   // always not offered: asked again
		{"maybe\nwhat\nagain\n", noGrant, harness.AnswerDeny},
	}
	for _, tt := range tests {
		term := harnesstest.NewTerminal(tt.input)
		out := term.Out
		p := harness.NewInteractive(term.In, out)
		got, err := p.Approve(context.Background(), tt.req)
		if err != nil || got != tt.want {
			t.Errorf("input %q: %v, %v; want %v", tt.input, got, err, tt.want)
		}
		prompt := out.String()
		for _, s := range []string{"`npm install 'left pad'`", askRule, "Runs install scripts", "why: package installs run code", "in /work/p"} {
			if !strings.Contains(prompt, s) {
				t.Errorf("input %q: prompt lacks %q:\n%s", tt.input, s, prompt)
			}
		}
		if strings.Contains(prompt, "[a]lways") != (len(tt.req.Grants) > 0) {
			t.Errorf("input %q: always offered wrongly:\n%s", tt.input, prompt)
		}
	}
}

func TestHeadless(t *testing.T) {
	for _, tt := range []struct{ fallback, want harness.Answer }{
		{harness.AnswerDeny, harness.AnswerDeny},
		{harness.AnswerOnce, harness.AnswerOnce},
		{harness.AnswerAlways, harness.AnswerOnce}, // nobody consented to a grant
	} {
		got, err := harness.Headless{Fallback: tt.fallback}.Approve(context.Background(), harness.ApprovalRequest{})
		if err != nil || got != tt.want {
			t.Errorf("Headless{%v} = %v, %v; want %v", tt.fallback, got, err, tt.want)
		}
	}
}

func TestAlwaysGrantsPerPattern(t *testing.T) {
	for _, persist := range []bool{false, true} {
		t.Run(fmt.Sprintf("persist=%v", persist), func(t *testing.T) {
			bin := fakeBin(t, "npm", "bash")
			g := &fakeGrader{decide: map[string]verdict.Decision{"npm": verdict.Ask, "bash": verdict.Ask}}
			var asked atomic.Int32
			approver := harness.ApproverFunc(func(_ context.Context, req harness.ApprovalRequest) (harness.Answer, error) {
				asked.Add(1)
				return harness.AnswerAlways, nil
			})
			cfg := harness.Config{Grader: g, Approver: approver, BaseEnv: []string{"PATH=" + bin + ":/usr/bin:/bin"}}
			var store *grant.Store
			if persist {
				var err error
				store, err = grant.Load(filepath.Join(t.TempDir(), "grants.json"))
				if err != nil {
					t.Fatal(err)
				}
				cfg.Grants = store
			}
			h, _ := newHarness(t, cfg)
			run := func(argv ...string) harness.Result {
				t.Helper()
				res, err := h.Run(context.Background(), harness.Request{Argv: argv})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Ran || res.ExitCode != 0 {
					t.Fatalf("%v did not run: %s", argv, res.Refusal)
				}
				return res
			}
			res := run("npm", "install", "lodash")
			want := []verdict.Grant{{Prefix: []string{"npm", "install"}, Rules: []string{askRule}}}
			if asked.Load() != 1 || res.Answer != "always" || !equalGrants(res.GrantsAdded, want) || res.GrantError != nil {
				t.Fatalf("first run: asked %d answer %q added %v err %v", asked.Load(), res.Answer, res.GrantsAdded, res.GrantError)
			}
			// The grant covers the same prefix: no question.
			res = run("npm", "install", "left-pad")
			if asked.Load() != 1 || res.Asked || !equalGrants(res.GrantsUsed, want) {
				t.Errorf("npm install again: asked %d, used %v", asked.Load(), res.GrantsUsed)
			}
			// npm publish is another pattern: asked again.
			run("npm", "publish")
			if asked.Load() != 2 {
				t.Errorf("npm publish was not asked (asked %d)", asked.Load())
			}
			// A grant of bash is refused; the approved run still happens once.
			res = run("bash", "-c", "true")
			var refused *grant.RefusedError
			if !errors.As(res.GrantError, &refused) || len(res.GrantsAdded) != 0 {
				t.Errorf("bash grant: added %v, error %v; want refused", res.GrantsAdded, res.GrantError)
			}
			if persist {
				reloaded, err := grant.Load(store.Path())
				if err != nil {
					t.Fatal(err)
				}
				got := reloaded.List()
				if len(got) != 2 || !slices.Equal(got[0].Prefix, []string{"npm", "install"}) || !slices.Equal(got[1].Prefix, []string{"npm", "publish"}) {
					t.Errorf("persisted grants %v", got)
				}
			}
		})
	}
}

func TestProgramSwappedBetweenGradingAndExec(t *testing.T) {
	tests := []struct {
		name string
		// setup returns argv and PATH; swap runs during approval.
		setup func(t *testing.T, ws string) (argv []string, path string, swap func() error)
	}{
		{"symlink swapped", func(t *testing.T, ws string) ([]string, string, func() error) {
			link := filepath.Join(ws, "tool")
			if err := os.Symlink(truePath(t), link); err != nil {
				t.Fatal(err)
			}
			touch := "/usr/bin/touch"
			return []string{"./tool", filepath.Join(ws, "marker")}, "/usr/bin:/bin", func() error {
				os.Remove(link)
				return os.Symlink(touch, link)
			}
		}},
		{"program appears earlier in PATH", func(t *testing.T, ws string) ([]string, string, func() error) {
			early := t.TempDir()
			return []string{"touch", filepath.Join(ws, "marker")}, early + ":/usr/bin:/bin", func() error {
				src, err := os.ReadFile(truePath(t))
				if err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(early, "touch"), src, 0o755)
			}
		}},
		{"file rewritten in place", func(t *testing.T, ws string) ([]string, string, func() error) {
			bin := fakeBin(t, "tool")
			return []string{filepath.Join(bin, "tool")}, "/usr/bin:/bin", func() error {
				time.Sleep(10 * time.Millisecond)
				f, err := os.OpenFile(filepath.Join(bin, "tool"), os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					return err
				}
				defer f.Close()
				_, err = f.WriteString("\x00")
				return err
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			argv, path, swap := tt.setup(t, ws)
			// The swap happens while the human looks at the prompt.
			approver := harness.ApproverFunc(func(ctx context.Context, req harness.ApprovalRequest) (harness.Answer, error) {
				if err := swap(); err != nil {
					return harness.AnswerDeny, err
				}
				return harness.AnswerOnce, nil
			})
			g := &fakeGrader{decide: map[string]verdict.Decision{filepath.Base(argv[0]): verdict.Ask}}
			h, _ := newHarness(t, harness.Config{Workspace: ws, Grader: g, Approver: approver, BaseEnv: []string{"PATH=" + path}})
			res, err := h.Run(context.Background(), harness.Request{Argv: argv})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(ws, "marker")); !os.IsNotExist(err) {
				t.Fatal("the swapped program ran")
			}
			if res.Ran || res.Decision != verdict.Deny || !hasRule(res.Reasons, "harness.program-changed") {
				t.Errorf("ran %v decision %v reasons %v refusal %q", res.Ran, res.Decision, res.Reasons, res.Refusal)
			}
		})
	}
}

func TestProgramNotFound(t *testing.T) {
	h, _ := newHarness(t, harness.Config{})
	_, err := h.Run(context.Background(), harness.Request{Argv: []string{"rivumi-no-such-program"}})
	var nf *harness.NotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("err = %v, want NotFoundError", err)
	}
}

func TestAuditGradeAndRun(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	h, ws := newHarness(t, harness.Config{Audit: log})
	res, err := h.Run(context.Background(), harness.Request{Argv: []string{"echo", "TOKEN=hunter2", "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Stdout.String(); got != "TOKEN=hunter2 hello\n" {
		t.Errorf("stdout %q", got)
	}
	entries, err := audit.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("%d entries, want grade and run", len(entries))
	}
	g, r := entries[0], entries[1]
	if g.Kind != audit.KindGrade || r.Kind != audit.KindRun || g.RunID != r.RunID || g.RunID != res.RunID {
		t.Errorf("kinds %q %q, run ids %q %q", g.Kind, r.Kind, g.RunID, r.RunID)
	}
	if g.Decision != "allow" || g.Verdict != "allow" || g.Policy != "sha256:test" || g.Cwd != ws {
		t.Errorf("grade entry %+v", g)
	}
	if r.Exit == nil || *r.Exit != 0 || r.Stdout == nil || r.Stdout.Total != 20 || r.Stdout.Kept != 20 || r.DurationMS <= 0 {
		t.Errorf("run entry %+v", r)
	}
	if !slices.Equal(r.Argv, []string{"echo", "TOKEN=" + audit.Redacted, "hello"}) {
		t.Errorf("argv not redacted: %q", r.Argv)
	}
}

// The grader gets an argv request in the run's directory and workspace,
// its paths to be graded where they point (the argv runs here).
func TestGradeRequest(t *testing.T) {
	g := &fakeGrader{}
	ws := t.TempDir()
	sub := filepath.Join(ws, "sub")
	os.Mkdir(sub, 0o755)
	h, _ := newHarness(t, harness.Config{Grader: g, Workspace: ws})
	if _, err := h.Run(context.Background(), harness.Request{Argv: []string{"true"}, Dir: sub}); err != nil {
		t.Fatal(err)
	}
	if len(g.seen) != 1 || g.seen[0].Cwd != sub || g.seen[0].Workspace != ws || !g.seen[0].FollowSymlinks ||
		!slices.Equal(g.seen[0].Argv, []string{"true"}) || g.seen[0].Command != nil {
		t.Errorf("grade requests %+v", g.seen)
	}
}
