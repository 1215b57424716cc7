package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/server"
)

// fullDisk is a decision log that cannot be written.
type fullDisk struct{}

func (fullDisk) Log(context.Context, audit.Entry) error { return syscall.ENOSPC }

// No verdict goes out without its record: HTTP 503 with a deny in the
// usual shape, on every transport; a best-effort log answers as usual.
func TestAuditFailureDenies(t *testing.T) {
	e := sharedEngine(t)
	post := func(t *testing.T, h http.Handler, path, body string) (int, []byte) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
		return rec.Code, rec.Body.Bytes()
	}
	isUnrecorded := func(t *testing.T, r server.Response) {
		t.Helper()
		if r.Decision != engine.Deny || len(r.Reasons) != 1 || r.Reasons[0].Rule != server.RuleAuditFailed ||
			!strings.Contains(r.Error, "no space left on device") || r.Command != "ls" || r.Policy != e.PolicyHash() {
			t.Errorf("response %+v, want the audit-failed deny", r)
		}
	}

	srv, err := server.New(context.Background(), staticLoad(e), server.WithAudit(fullDisk{}))
	if err != nil {
		t.Fatal(err)
	}
	code, body := post(t, srv.Handler(), "/v1/verdict", `{"command":"ls"}`)
	var one server.Response
	if err := json.Unmarshal(body, &one); err != nil || code != http.StatusServiceUnavailable {
		t.Fatalf("status %d, body %s (%v); want 503", code, body, err)
	}
	isUnrecorded(t, one)

	code, body = post(t, srv.Handler(), "/v1/verdicts", `[{"command":"ls"},{"command":"ls"}]`)
	var many []server.Response
	if err := json.Unmarshal(body, &many); err != nil || code != http.StatusServiceUnavailable || len(many) != 2 {
		t.Fatalf("batch: status %d, body %s (%v); want 503 and 2 answers", code, body, err)
	}
	for _, r := range many {
		isUnrecorded(t, r)
	}

	var out bytes.Buffer
	if err := srv.ServeStdio(context.Background(), strings.NewReader(`{"command":"ls"}`+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &one); err != nil {
		t.Fatalf("stdio: %q: %v", out.Bytes(), err)
	}
	isUnrecorded(t, one)

	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if m, _ := io.ReadAll(rec.Body); !bytes.Contains(m, []byte("rivumi_audit_errors_total 4")) {
		t.Errorf("metrics do not count the 4 audit failures:\n%s", m)
	}

	loose, err := server.New(context.Background(), staticLoad(e), server.WithAudit(fullDisk{}), server.WithBestEffortAudit())
	if err != nil {
		t.Fatal(err)
	}
	code, body = post(t, loose.Handler(), "/v1/verdict", `{"command":"ls"}`)
	if err := json.Unmarshal(body, &one); err != nil || code != http.StatusOK || one.Decision != engine.Allow {
		t.Errorf("best effort: status %d, body %s; want 200 allow", code, body)
	}
}
