package server

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
)

func TestMetricsText(t *testing.T) {
	m := newMetrics()
	m.setPolicy("aaaa")
	m.setPolicy("bbbb") // a reload: one info series, the new hash
	m.verdict(engine.Ask, "http", 0.0003)
	m.verdict(engine.Allow, "unix", 0.00002) // a transport not declared up front
	m.badRequest("stdio")
	m.reload(true)
	w := httptest.NewRecorder()
	m.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	out := w.Body.String()
	for _, want := range []string{
		`rivumi_policy_info{policy="bbbb"} 1`,
		`rivumi_verdicts_total{decision="ask",transport="http"} 1`,
		`rivumi_verdicts_total{decision="allow",transport="unix"} 1`,
		`rivumi_verdicts_total{decision="deny",transport="stdio"} 0`,
		`rivumi_verdict_duration_seconds_bucket{decision="ask",le="0.0005"} 1`,
		`rivumi_verdict_duration_seconds_bucket{decision="ask",le="0.00025"} 0`,
		`rivumi_verdict_duration_seconds_count{decision="ask"} 1`,
		`rivumi_bad_requests_total{transport="stdio"} 1`,
		`rivumi_policy_reloads_total{result="ok"} 1`,
		`rivumi_policy_reloads_total{result="error"} 0`,
		"go_goroutines ",
		"process_resident_memory_bytes ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if strings.Contains(out, `policy="aaaa"`) {
		t.Error("the replaced policy is still reported")
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("content type %q", ct)
	}
}
