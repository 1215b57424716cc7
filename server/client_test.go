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
