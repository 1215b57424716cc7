package server

import (
	"fmt"
	"sync"

	vm "github.com/VictoriaMetrics/metrics"

	"github.com/rivumi/rivumi/engine"
)

// metrics are the server's Prometheus metrics, in their own set, written
// with the Go runtime's and the process's (exposition.go).
//
// VictoriaMetrics/metrics rather than prometheus/client_golang: the latter's
// package initialisation (a default registry with Go and process
// collectors) cost every rivumi process ~0.6 ms, hooks included, whether or
// not it serves anything.
type metrics struct {
	set      *vm.Set
	verdicts map[string]*vm.Counter // by decision+" "+transport
	lat      [engine.Deny + 1]*vm.PrometheusHistogram
	reloadOK *vm.Counter
	reloadNo *vm.Counter
	// auditErrs counts verdicts whose audit entry could not be written.
	auditErrs *vm.Counter
	// relays counts hook calls relayed by the thin client.
	relays *vm.Counter

	mu     sync.Mutex
	policy string // the rivumi_policy_info series in the set
}

// transports the server labels requests with.
var transports = []string{"http", "stdio"}

// latencyBuckets are the upper bounds of rivumi_verdict_duration_seconds.
var latencyBuckets = []float64{25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 1}

func newMetrics() *metrics {
	s := vm.NewSet()
	m := &metrics{set: s, verdicts: map[string]*vm.Counter{}}
	for _, d := range []engine.Decision{engine.Allow, engine.Ask, engine.Deny} {
		m.lat[d] = s.NewPrometheusHistogramExt(fmt.Sprintf(`rivumi_verdict_duration_seconds{decision=%q}`, d.String()), latencyBuckets)
		for _, t := range transports {
			m.verdicts[d.String()+" "+t] = s.NewCounter(fmt.Sprintf(`rivumi_verdicts_total{decision=%q,transport=%q}`, d.String(), t))
		}
	}
	for _, t := range transports {
		s.NewCounter(fmt.Sprintf(`rivumi_bad_requests_total{transport=%q}`, t))
	}
	m.auditErrs = s.NewCounter(`rivumi_audit_errors_total`)
	m.relays = s.NewCounter(`rivumi_hook_relayed_total`)
	m.reloadOK = s.NewCounter(`rivumi_policy_reloads_total{result="ok"}`)
	m.reloadNo = s.NewCounter(`rivumi_policy_reloads_total{result="error"}`)
	return m
}

// verdict counts one verdict and its grading time.
func (m *metrics) verdict(d engine.Decision, transport string, seconds float64) {
	m.lat[d].Update(seconds)
	if c := m.verdicts[d.String()+" "+transport]; c != nil {
		c.Inc()
		return
	}
	m.set.GetOrCreateCounter(fmt.Sprintf(`rivumi_verdicts_total{decision=%q,transport=%q}`, d.String(), transport)).Inc()
}

// badRequest counts a request that could not be graded.
func (m *metrics) badRequest(transport string) {
	m.set.GetOrCreateCounter(fmt.Sprintf(`rivumi_bad_requests_total{transport=%q}`, transport)).Inc()
}

// auditError counts a verdict whose audit entry could not be written.
func (m *metrics) auditError() { m.auditErrs.Inc() }

// relayed counts one hook call relayed by the thin client.
func (m *metrics) relayed() { m.relays.Inc() }

// reload counts a policy reload by its result.
func (m *metrics) reload(ok bool) {
	if ok {
		m.reloadOK.Inc()
	} else {
		m.reloadNo.Inc()
	}
}

// setPolicy makes hash the one rivumi_policy_info series (value 1).
func (m *metrics) setPolicy(hash string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.policy != "" {
		m.set.UnregisterMetric(m.policy)
	}
	m.policy = fmt.Sprintf(`rivumi_policy_info{policy=%q}`, hash)
	m.set.GetOrCreateGauge(m.policy, nil).Set(1)
}
