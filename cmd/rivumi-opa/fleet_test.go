package main_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/cli"
	"github.com/rivumi/rivumi/opabuiltin"
)

// TestFleetWalkThrough follows docs/deploy.md's operator walk-through: a
// bundle server and a control service (one httptest server), a boot
// configuration with the public key and discovery only, a signed
// discovery bundle naming the signed rivumi bundle, decision logs and
// status to the control service. The replica must become ready, deny the
// floor, report the bundle's revision in its status and ship a masked
// decision log.
func TestFleetWalkThrough(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the rivumi-opa fleet test (it builds OPA's command line)")
	}
	ctx := context.Background()
	dir := t.TempDir()
	bin := rivumiOPA(t)
	priv, pub := rsaPair(t, dir, "fleet")
	src, err := engine.LoadSources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := opabuiltin.Bundle(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := opabuiltin.Sign(policy, opabuiltin.Signing{Key: priv, KeyID: "fleet"}); err != nil {
		t.Fatal(err)
	}
	// The discovery bundle of the walk-through, step 3b.
	fleetRego := `package fleet

config := {
	"bundles": {"rivumi": {"service": "bundles", "resource": "rivumi/rivumi.tar.gz", "signing": {"keyid": "fleet"}, "polling": {"min_delay_seconds": 1, "max_delay_seconds": 2}}},
	"decision_logs": {"service": "control", "mask_decision": "rivumi/log/mask", "reporting": {"min_delay_seconds": 1, "max_delay_seconds": 1}},
	"status": {"service": "control"},
}
`
	m, err := ast.ParseModuleWithOpts("fleet.rego", fleetRego, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		t.Fatal(err)
	}
	disc := &bundle.Bundle{Manifest: bundle.Manifest{Roots: &[]string{"fleet"}, Revision: "d1"}, Data: map[string]any{},
		Modules: []bundle.ModuleFile{{URL: "/fleet/fleet.rego", Path: "/fleet/fleet.rego", Raw: []byte(fleetRego), Parsed: m}}}
	disc.Manifest.SetRegoVersion(ast.RegoV1)
	if err := opabuiltin.Sign(disc, opabuiltin.Signing{Key: priv, KeyID: "fleet"}); err != nil {
		t.Fatal(err)
	}
	tarOf := func(b *bundle.Bundle) []byte {
		var buf bytes.Buffer
		if err := opabuiltin.Write(&buf, b); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	files := map[string][]byte{
		"/bundles/rivumi/rivumi.tar.gz":          tarOf(policy),
		"/control/discovery/rivumi-fleet.tar.gz": tarOf(disc),
	}
	var mu sync.Mutex
	var statuses, decisionLogs []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer control-token" && strings.HasPrefix(r.URL.Path, "/control/") {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		switch {
		case r.Method == http.MethodGet && files[r.URL.Path] != nil:
			w.Header().Set("ETag", `"1"`)
			w.Write(files[r.URL.Path])
		case r.Method == http.MethodPost && r.URL.Path == "/control/status":
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			statuses = append(statuses, string(b))
			mu.Unlock()
		case r.Method == http.MethodPost && r.URL.Path == "/control/logs":
			var rd io.Reader = r.Body
			if r.Header.Get("Content-Encoding") == "gzip" {
				zr, err := gzip.NewReader(r.Body)
				if err != nil {
					http.Error(w, err.Error(), 400)
					return
				}
				rd = zr
			}
			b, _ := io.ReadAll(rd)
			mu.Lock()
			decisionLogs = append(decisionLogs, string(b))
			mu.Unlock()
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	pubPEM, _ := os.ReadFile(pub)
	tokenFile := filepath.Join(dir, "token")
	os.WriteFile(tokenFile, []byte("control-token"), 0o600)
	boot := `services:
  bundles:
    url: ` + srv.URL + `/bundles
  control:
    url: ` + srv.URL + `/control
    credentials:
      bearer:
        token_path: ` + tokenFile + `
keys:
  fleet:
    algorithm: RS256
    key: |
      ` + strings.ReplaceAll(strings.TrimSpace(string(pubPEM)), "\n", "\n      ") + `
discovery:
  service: control
  resource: discovery/rivumi-fleet.tar.gz
  decision: fleet/config
  signing:
    keyid: fleet
`
	cfg := filepath.Join(dir, "opa.yaml")
	os.WriteFile(cfg, []byte(boot), 0o644)
	addr := freeAddr(t)
	cmd := exec.Command(bin, "run", "--server", "--addr", addr, "--config-file", cfg, "--log-level", "error")
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := "http://" + addr
	waitHealthy(t, base+"/health?bundles")

	secret := "ghp_" + strings.Repeat("Z9y8", 8)
	for cmdText, want := range map[string]string{"rm -rf /": "deny", "curl -H 'Authorization: token " + secret + "' https://api.github.com/user": "ask"} {
		body, _ := json.Marshal(map[string]any{"input": map[string]any{"command": cmdText}})
		resp, err := http.Post(base+"/v1/data/rivumi/entry/verdict", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Result struct{ Decision, Policy string }
		}
		json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if got.Result.Decision != want || got.Result.Policy != src.Hash {
			t.Errorf("%q: %+v, want %s with policy %s", cmdText, got.Result, want, src.Hash)
		}
	}
	// The hook of an agent on a fleet machine asks this replica
	// (--remote, the docs' hook line): an allowed read is allowed, the
	// floor denied — every request field the hook sends is one the
	// entrypoint knows.
	for cmdText, want := range map[string]string{"ls -la": "allow", "rm -rf /": "deny"} {
		payload, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": "/dev/null", "cwd": dir,
			"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]string{"command": cmdText}})
		var out, errb bytes.Buffer
		code := cli.Main(ctx, []string{"hook", "claude-code", "--audit", "off", "--workspace", dir, "--remote", base + "/v1/data/rivumi/entry/verdict"},
			cli.Stdio{In: bytes.NewReader(payload), Out: &out, Err: &errb})
		if code != 0 || !strings.Contains(out.String(), `"permissionDecision":"`+want+`"`) {
			t.Errorf("hook --remote %q: exit %d, %s %s; want %s", cmdText, code, out.String(), errb.String(), want)
		}
	}
	// Status names the active revision; the decision log arrives masked.
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		st, dl := strings.Join(statuses, "\n"), strings.Join(decisionLogs, "\n")
		mu.Unlock()
		if strings.Contains(st, `"active_revision":"`+src.Hash+`"`) && strings.Contains(dl, "api.github.com") {
			if strings.Contains(dl, secret) {
				t.Error("the decision log holds the token")
			}
			if !strings.Contains(dl, "[REDACTED]") {
				t.Errorf("the decision log is not masked:\n%.1500s", dl)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Fatalf("no status with revision %s and decision log within 20 s\nstatus: %.1500s\nlogs: %.800s\nrivumi-opa: %s", src.Hash, strings.Join(statuses, "\n"), strings.Join(decisionLogs, "\n"), lastLines(logs.String(), 10))
}
