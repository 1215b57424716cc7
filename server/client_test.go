package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rivumi/rivumi/server"
)

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
