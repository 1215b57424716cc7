package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/server"
)

// TestClientMissingDecisionDenies: a server (or anything listening on the
// socket) that answers {} or a verdict without a decision is not an
// answer: the client returns deny with an error (issue 12).
func TestClientMissingDecisionDenies(t *testing.T) {
	for _, body := range []string{`{}`, `{"decision": null}`, `{"reasons": []}`, `[{}]`} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if body == `[{}]` && r.URL.Path != "/v1/verdicts" {
				_, _ = w.Write([]byte(`{}`))
				return
			}
			_, _ = w.Write([]byte(body))
		}))
		c := server.NewClient(ts.URL)
		cmd := "rm -rf /"
		if body == `[{}]` {
			out, err := c.Verdicts(context.Background(), []server.Request{{Command: &cmd}})
			if err != nil {
				t.Fatal(err)
			}
			if out[0].Verdict.Decision != engine.Deny || out[0].Error == "" {
				t.Errorf("batch %s: %v %q, want deny with an error", body, out[0].Verdict.Decision, out[0].Error)
			}
		} else {
			v, err := c.Verdict(context.Background(), server.Request{Command: &cmd})
			if err == nil || v.Decision != engine.Deny {
				t.Errorf("%s: %v, %v; want deny and an error", body, v.Decision, err)
			}
		}
		ts.Close()
	}
}

// Answers that are not a JSON verdict are errors for the client (the
// hooks then deny): net/http's own plain-text rejections of malformed
// framing, other statuses, and bodies that are not JSON.
func TestClientRejectsNonVerdicts(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		ctype  string
		body   string
	}{
		{"plain-text 400", http.StatusBadRequest, "text/plain; charset=utf-8", "400 Bad Request"},
		{"431 headers too large", http.StatusRequestHeaderFieldsTooLarge, "text/plain", "431 Request Header Fields Too Large"},
		{"501 transfer encoding", http.StatusNotImplemented, "text/plain", "501 Not Implemented"},
		{"502 proxy", http.StatusBadGateway, "text/html", "<html>bad gateway</html>"},
		{"200 not JSON", http.StatusOK, "text/plain", "allow"},
		{"200 empty", http.StatusOK, "application/json", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", c.ctype)
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer ts.Close()
			if _, err := server.NewClient(ts.URL).Verdict(context.Background(), server.Text("rm -rf /")); err == nil {
				t.Fatalf("%d %q: no error", c.status, c.body)
			}
		})
	}
}
