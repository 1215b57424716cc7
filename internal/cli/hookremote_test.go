package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/server"
)

// TestHookRemote: with --remote, the hook asks a fleet server over TLS
// with a bearer token, for both answer shapes (rivumi serve, rivumi-opa),
// and blocks on anything but a complete verdict unless told to fall back.
func TestHookRemote(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	var answer atomic.Value // the body the fake server answers
	var gotAuth, gotBody atomic.Value
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotAuth.Store(r.Header.Get("Authorization"))
		gotBody.Store(string(b))
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		io.WriteString(w, answer.Load().(string))
	}))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	tok := filepath.Join(dir, "token")
	os.WriteFile(tok, []byte("s3cret\n"), 0o600)
	bad := filepath.Join(dir, "bad-token")
	os.WriteFile(bad, []byte("wrong\n"), 0o600)
	payload := func(cmd string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": "/dev/null", "cwd": dir,
			"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]string{"command": cmd}})
		return string(b)
	}
	run := func(cmd string, flags ...string) (int, string, string) {
		var out, errb bytes.Buffer
		args := append([]string{"hook", "claude-code", "--audit", "off", "--workspace", dir}, flags...)
		code := Main(context.Background(), args, Stdio{In: strings.NewReader(payload(cmd)), Out: &out, Err: &errb})
		return code, out.String(), errb.String()
	}
	serveDeny := `{"command":"x","decision":"deny","reasons":[{"rule":"team.no-x","layer":"deny","decision":"deny","segment":0,"title":"No x"}],"policy":"feed"}`
	opaAsk := `{"result":{"decision":"ask","policy":"feed","reasons":[{"rule":"team.ask-x","layer":"ask","decision":"ask","segment":0}]}}`
	for _, tc := range []struct {
		name, url, answer string
		flags             []string
		code              int
		out, err          string
	}{
		{"serve deny", srv.URL, serveDeny, []string{"--remote-token-file", tok}, 0, `"permissionDecision":"deny"`, ""},
		{"opa ask", srv.URL + "/v1/data/rivumi/entry/verdict", opaAsk, []string{"--remote-token-file", tok}, 0, `"permissionDecision":"ask"`, ""},
		// The remote decides even what the local policy would allow (ls).
		{"remote decides", srv.URL, serveDeny, []string{"--remote-token-file", tok}, 0, `team.no-x`, ""},
		{"opa no result", srv.URL + "/v1/data/rivumi/entry/verdict", `{}`, []string{"--remote-token-file", tok}, 2, "", "no result"},
		{"no decision", srv.URL, `{"reasons":[]}`, []string{"--remote-token-file", tok}, 2, "", "no decision"},
		{"not json", srv.URL, `<html>`, []string{"--remote-token-file", tok}, 2, "", "bad verdict"},
		{"wrong token", srv.URL, serveDeny, []string{"--remote-token-file", bad}, 2, "", "401"},
		{"untrusted certificate", srv.URL, serveDeny, []string{"--remote-token-file", tok, "--remote-ca", ""}, 2, "", "certificate"},
		{"fallback local", srv.URL, `{}`, []string{"--remote-token-file", tok, "--remote-fallback", "local"}, 0, `"permissionDecision":"allow"`, ""},
		{"http elsewhere", "http://192.0.2.1:8282", serveDeny, nil, 2, "", "plain http only to a loopback"},
		{"credentials in url", "https://u:p@example.com", serveDeny, nil, 2, "", "no credentials in the URL"},
		{"odd path", srv.URL + "/v1/data/x", serveDeny, nil, 2, "", "neither a rivumi serve base URL"},
		{"and socket", srv.URL, serveDeny, []string{"--socket", "/tmp/x.sock"}, 2, "", "name one server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer.Store(tc.answer)
			flags := append([]string{"--remote", tc.url}, tc.flags...)
			if !containsFlag(tc.flags, "--remote-ca") {
				flags = append(flags, "--remote-ca", ca)
			} else {
				flags = removeFlag(flags, "--remote-ca")
			}
			code, out, errs := run("ls", flags...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.err) {
				t.Errorf("exit %d, stdout %s, stderr %s; want exit %d, %q, %q", code, out, errs, tc.code, tc.out, tc.err)
			}
		})
	}
	// The token went as a bearer token, the request as serve's API (inside
	// {"input": …} for OPA), with the project's workspace.
	answer.Store(opaAsk)
	run("npm install", "--remote", srv.URL+"/v1/data/rivumi/entry/verdict", "--remote-ca", ca, "--remote-token-file", tok)
	if gotAuth.Load() != "Bearer s3cret" {
		t.Errorf("Authorization %q", gotAuth.Load())
	}
	var body struct {
		Input struct{ Command, Workspace string }
	}
	if err := json.Unmarshal([]byte(gotBody.Load().(string)), &body); err != nil || body.Input.Command != "npm install" || body.Input.Workspace != dir {
		t.Errorf("request %s (%v)", gotBody.Load(), err)
	}
}

// TestHookInstallRefusesBadRemote: a bad --remote or --remote-fallback is
// refused at install time, not installed as a hook that blocks every call.
func TestHookInstallRefusesBadRemote(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, flags := range [][]string{{"--remote", "http://192.0.2.1:8282"}, {"--remote", "https://x.example", "--remote-fallback", "allow"}} {
		var out, errb bytes.Buffer
		args := append([]string{"hook", "install", "claude-code", "--user", "--"}, flags...)
		if code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}); code != ExitError || !strings.Contains(errb.String(), "bad hook flags") {
			t.Errorf("%q: exit %d, stderr %s", flags, code, errb.String())
		}
	}
}

// TestHookRemoteServe: against a real `rivumi serve` handler behind TLS,
// the hook's verdicts are the server's.
func TestHookRemoteServe(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	ctx := context.Background()
	s, err := server.New(ctx, func(ctx context.Context) (*engine.Engine, error) { return engine.New(ctx) })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(s.Handler())
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	for cmd, want := range map[string]string{"rm -rf /": "deny", "ls -la": "allow", "npm install x": "ask"} {
		b, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": "/dev/null", "cwd": dir,
			"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]string{"command": cmd}})
		var out, errb bytes.Buffer
		code := Main(ctx, []string{"hook", "claude-code", "--audit", "off", "--workspace", dir, "--remote", srv.URL, "--remote-ca", ca},
			Stdio{In: bytes.NewReader(b), Out: &out, Err: &errb})
		if code != 0 || !strings.Contains(out.String(), `"permissionDecision":"`+want+`"`) {
			t.Errorf("%s: exit %d %s %s; want %s", cmd, code, out.String(), errb.String(), want)
		}
	}
}

func containsFlag(args []string, f string) bool {
	for _, a := range args {
		if a == f {
			return true
		}
	}
	return false
}

// removeFlag drops f and its value.
func removeFlag(args []string, f string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == f {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}
