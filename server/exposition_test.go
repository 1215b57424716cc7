package server

import (
	"bytes"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/rivumi/rivumi/engine"
)

// promAccept is the Accept header Prometheus 3 scrapes with.
const promAccept = "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2"

func scrape(t *testing.T, m *metrics, accept string) (string, string) {
	t.Helper()
	r := httptest.NewRequest("GET", "/metrics", nil)
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	w := httptest.NewRecorder()
	m.ServeHTTP(w, r)
	if w.Code != 200 {
		t.Fatalf("/metrics: %d %s", w.Code, w.Body)
	}
	return w.Header().Get("Content-Type"), w.Body.String()
}

func busyMetrics() *metrics {
	m := newMetrics()
	m.setPolicy("cafe")
	m.verdict(engine.Deny, "http", 0.0004)
	m.badRequest("http")
	m.reload(false)
	return m
}

// TestMetricsPrometheusText: the default exposition parses with
// Prometheus' text parser; every family has HELP and TYPE; the runtime
// families carry client_golang's names.
func TestMetricsPrometheusText(t *testing.T) {
	ct, body := scrape(t, busyMetrics(), "")
	if !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("content type %q", ct)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("Prometheus' text parser: %v\n%s", err, body)
	}
	for name, f := range fams {
		if f.GetHelp() == "" {
			t.Errorf("%s: no HELP", name)
		}
		if f.GetType() == dto.MetricType_UNTYPED {
			t.Errorf("%s: no TYPE", name)
		}
		if f.GetType() == dto.MetricType_COUNTER && !strings.HasSuffix(name, "_total") {
			t.Errorf("%s: a counter without _total (OpenMetrics types it unknown)", name)
		}
	}
	// client_golang's Go and process collectors' names (the default ones
	// dashboards use); docs/deploy.md lists the few it has and rivumi not.
	for _, name := range []string{
		"go_gc_duration_seconds", "go_goroutines", "go_threads", "go_info",
		"go_memstats_alloc_bytes", "go_memstats_alloc_bytes_total", "go_memstats_heap_inuse_bytes",
		"go_memstats_sys_bytes", "go_memstats_mallocs_total", "go_memstats_next_gc_bytes",
		"go_sched_gomaxprocs_threads", "go_gc_gomemlimit_bytes", "go_gc_gogc_percent",
		"process_cpu_seconds_total", "process_open_fds", "process_max_fds",
		"process_resident_memory_bytes", "process_virtual_memory_bytes", "process_start_time_seconds",
		"rivumi_verdicts_total", "rivumi_verdict_duration_seconds", "rivumi_policy_info",
	} {
		if fams[name] == nil {
			t.Errorf("no %s", name)
		}
	}
	if f := fams["rivumi_verdict_duration_seconds"]; f != nil && f.GetType() != dto.MetricType_HISTOGRAM {
		t.Errorf("rivumi_verdict_duration_seconds is %v", f.GetType())
	}
	if !strings.Contains(body, "# HELP rivumi_verdicts_total Verdicts answered") || !strings.Contains(body, "# TYPE rivumi_verdicts_total counter") {
		t.Errorf("no HELP/TYPE lines for rivumi_verdicts_total:\n%s", body)
	}
	if strings.Contains(body, "go_gomaxprocs ") || strings.Contains(body, "go_memlimit_bytes") {
		t.Error("VictoriaMetrics' names are still exposed")
	}
	pythonParses(t, "prometheus_client.parser", body)
	promtoolChecks(t, body)
}

// TestMetricsOpenMetrics: a scraper that prefers OpenMetrics gets it,
// ending in # EOF, with one TYPE per family name (no clash between a
// counter's family name and another family).
func TestMetricsOpenMetrics(t *testing.T) {
	ct, body := scrape(t, busyMetrics(), promAccept)
	if !strings.HasPrefix(ct, "application/openmetrics-text; version=1.0.0") {
		t.Errorf("content type %q", ct)
	}
	if !strings.HasSuffix(body, "# EOF\n") {
		t.Error("no # EOF at the end")
	}
	seen := map[string]string{}
	for _, line := range strings.Split(body, "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			if prev, dup := seen[f[2]]; dup {
				t.Errorf("family %s declared as %s and %s (OpenMetrics: clashing name)", f[2], prev, f[3])
			}
			seen[f[2]] = f[3]
			if f[3] == "unknown" {
				t.Errorf("family %s typed unknown", f[2])
			}
		}
	}
	if seen["rivumi_verdicts"] != "counter" || seen["go_gc_heap_allocs_bytes"] != "counter" || seen["go_memstats_alloc_bytes"] != "gauge" {
		t.Errorf("families: %v", seen)
	}
	pythonParses(t, "prometheus_client.openmetrics.parser", body)
}

// pythonParses checks body with the Python client's strict parser (the
// OpenMetrics reference implementation; Debian's python3-prometheus-client).
// It skips without it, except in CI, which installs it (.ci/browser).
func pythonParses(t *testing.T, module, body string) {
	t.Helper()
	python := "/usr/bin/python3" // Debian's, where apt installs the module (a pyenv python3 on PATH lacks it)
	if _, err := os.Stat(python); err != nil {
		python = "python3"
	}
	check := exec.Command(python, "-c", "import "+module)
	if err := check.Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 with %s is required in CI (apt-get install python3-prometheus-client): %v", module, err)
		}
		t.Logf("skipping the %s check: python3-prometheus-client is not installed", module)
		return
	}
	cmd := exec.Command(python, "-c", "import sys, "+module+" as p\nfams = list(p.text_string_to_metric_families(sys.stdin.read()))\nprint(len(fams))")
	cmd.Stdin = strings.NewReader(body)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s rejects the exposition: %v\n%s", module, err, errb.String())
	}
	if strings.TrimSpace(out.String()) == "0" {
		t.Errorf("%s found no families", module)
	}
}

// promtoolChecks runs `promtool check metrics` (Prometheus' own linter:
// names, suffixes, HELP) on body. It skips without promtool, except in CI,
// which installs it (.ci/browser).
func promtoolChecks(t *testing.T, body string) {
	t.Helper()
	if _, err := exec.LookPath("promtool"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("promtool is required in CI (apt-get install prometheus): %v", err)
		}
		t.Log("skipping promtool check metrics: promtool is not installed")
		return
	}
	cmd := exec.Command("promtool", "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// BenchmarkMetricsScrape is one /metrics scrape: the samples written,
// parsed by expfmt and encoded again.
func BenchmarkMetricsScrape(b *testing.B) {
	m := busyMetrics()
	for _, accept := range []string{"", promAccept} {
		name := "text"
		if accept != "" {
			name = "openmetrics"
		}
		b.Run(name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/metrics", nil)
			r.Header.Set("Accept", accept)
			for b.Loop() {
				m.ServeHTTP(httptest.NewRecorder(), r)
			}
		})
	}
}
