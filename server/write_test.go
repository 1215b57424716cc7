package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
)

// writeJSON sends what json.Marshal gives and a newline, with its length,
// whatever the pooled buffer held before.
func TestWriteJSON(t *testing.T) {
	big := Response{Command: strings.Repeat("x", 2*maxPooledBuf)}
	for _, v := range []any{
		Response{Command: "ls <a> & b", Verdict: engine.Verdict{Decision: engine.Allow, Reasons: []engine.Reason{{Rule: "r"}}}},
		big, Health{Status: "ok"}, []Response{{Argv: []string{"a"}}}, Response{},
	} {
		rec := httptest.NewRecorder()
		writeJSON(rec, http.StatusTeapot, v)
		want, _ := json.Marshal(v)
		want = append(want, '\n')
		if rec.Code != http.StatusTeapot || rec.Body.String() != string(want) {
			t.Errorf("got %d %q, want %q", rec.Code, rec.Body.String(), want)
		}
		if got := rec.Header().Get("Content-Length"); got != strconv.Itoa(len(want)) {
			t.Errorf("Content-Length %s, want %d", got, len(want))
		}
		if got := rec.Header().Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type %q", got)
		}
	}
	rec := httptest.NewRecorder()
	writeJSON(rec, http.StatusOK, func() {}) // cannot be encoded
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), `"decision":"deny"`) {
		t.Errorf("unencodable: %d %s", rec.Code, rec.Body.String())
	}
}
