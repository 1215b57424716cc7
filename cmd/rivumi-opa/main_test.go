package main_test

import (
	"bufio"
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
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/opabuiltin"
	"github.com/rivumi/rivumi/rules"
	"github.com/rivumi/rivumi/verdict"
)

// Builds rivumi-opa and the bundle, serves the bundle with `rivumi-opa run
// --server` on loopback, and checks that OPA's data API gives the engine's
// verdict for every testcase, from the raw command text.
func TestRivumiOPAServesEngineVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the rivumi-opa server test (it builds OPA's command line)")
	}
	ctx := context.Background()
	dir := t.TempDir()
	bin := rivumiOPA(t) // build_test.go
	src, err := engine.LoadSources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := opabuiltin.Bundle(src)
	if err != nil {
		t.Fatal(err)
	}
	bundlePath := filepath.Join(dir, "rivumi.tar.gz")
	f, err := os.Create(bundlePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := opabuiltin.Write(f, b); err != nil {
		t.Fatal(err)
	}
	f.Close()

	addr := freeAddr(t)
	srv := exec.Command(bin, "run", "--server", "--addr", addr, "--bundle", bundlePath, "--log-level", "error",
		"--set", "decision_logs.console=true", "--set", "decision_logs.mask_decision=rivumi/log/mask")
	stdout, _ := srv.StdoutPipe()
	var logs lockedBuffer
	srv.Stderr = &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	go io.Copy(&logs, stdout)
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	base := "http://" + addr
	waitHealthy(t, base+"/health?bundles")

	e, err := engine.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tcs, err := rules.LoadTestcases("../../testcases")
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		Result struct {
			Decision string `json:"decision"`
			Policy   string `json:"policy"`
			Reasons  []struct {
				Rule string `json:"rule"`
			} `json:"reasons"`
		} `json:"result"`
	}
	var differ []string
	for _, tc := range tcs {
		input := map[string]any{"command": tc.Command}
		var opts []engine.EvalOption
		for k, v := range map[string]string{"cwd": tc.Cwd, "workspace": tc.Workspace, "home": tc.Home, "shell": tc.Shell} {
			if v == "" {
				continue
			}
			input[k] = v
			switch k {
			case "cwd":
				opts = append(opts, engine.Cwd(v))
			case "workspace":
				opts = append(opts, engine.Workspace(v))
			case "home":
				opts = append(opts, engine.Home(v))
			case "shell":
				opts = append(opts, engine.Shell(v))
			}
		}
		if len(tc.Grants) > 0 {
			var gs []verdict.Grant
			for _, g := range tc.Grants {
				gs = append(gs, verdict.Grant{Prefix: g.Prefix, Rules: g.Rules})
			}
			input["grants"] = gs
			opts = append(opts, engine.Grants(gs))
		}
		want := e.EvaluateText(ctx, tc.Command, opts...)
		body, _ := json.Marshal(map[string]any{"input": input})
		resp, err := http.Post(base+"/v1/data/rivumi/entry/verdict?strict-builtin-errors", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var got result
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", tc.Command, resp.StatusCode, err)
		}
		var gr, wr []string
		for _, r := range got.Result.Reasons {
			gr = append(gr, r.Rule)
		}
		for _, r := range want.Reasons {
			wr = append(wr, r.Rule)
		}
		slices.Sort(gr)
		slices.Sort(wr)
		if got.Result.Decision != want.Decision.String() || !slices.Equal(slices.Compact(gr), slices.Compact(wr)) || got.Result.Policy != want.Policy {
			differ = append(differ, fmt.Sprintf("%s %q: OPA %s %v, engine %s %v", tc.Name(), tc.Command, got.Result.Decision, gr, want.Decision, wr))
		}
	}
	// No testcase is known to differ: parse errors, limits and empty text
	// are mirrored in the entrypoint (see docs/deploy.md).
	for _, d := range differ {
		t.Error(d)
	}
	t.Logf("%d testcases, %d differ", len(tcs), len(differ))

	// Input the builtin cannot read: deny, strict builtin errors or not,
	// and the verdict says why in rivumi serve's words (engine.bad-input).
	for _, q := range []string{"", "?strict-builtin-errors"} {
		for path, want := range map[string]string{"decision": `"result":"deny"`, "verdict": `"cwd\" must be an absolute path`} {
			resp, err := http.Post(base+"/v1/data/rivumi/entry/"+path+q, "application/json", strings.NewReader(`{"input": {"command": "ls", "cwd": "relative"}}`))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(b), want) || path == "verdict" && !strings.Contains(string(b), "engine.bad-input") {
				t.Errorf("bad input, %s%s: %d %s; want %s", path, q, resp.StatusCode, b, want)
			}
		}
	}

	// The decision alone, and the log mask: the token never reaches the log.
	secret := "ghp_" + strings.Repeat("A1b2", 8)
	body, _ := json.Marshal(map[string]any{"input": map[string]any{"command": "curl -H 'Authorization: token " + secret + "' https://api.github.com/user"}})
	resp, err := http.Post(base+"/v1/data/rivumi/entry/decision", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var dec struct {
		Result string `json:"result"`
	}
	json.NewDecoder(resp.Body).Decode(&dec)
	resp.Body.Close()
	if dec.Result != "ask" {
		t.Errorf("curl decision: %q", dec.Result)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "api.github.com") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	l := logs.String()
	if !strings.Contains(l, "api.github.com") || !strings.Contains(l, "[REDACTED]") {
		t.Errorf("decision log lacks the masked command:\n%.2000s", lastLines(l, 3))
	}
	if strings.Contains(l, secret) {
		t.Error("decision log holds the token")
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitHealthy(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("rivumi-opa did not become healthy at %s", url)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func lastLines(s string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
