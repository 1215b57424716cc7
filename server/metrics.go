package server

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/rivumi/rivumi/engine"
)

// metrics are the server's Prometheus collectors, in their own registry.
type metrics struct {
	reg      *prometheus.Registry
	verdicts *prometheus.CounterVec   // decision, transport
	latency  *prometheus.HistogramVec // decision
	bad      *prometheus.CounterVec   // transport
	reloads  *prometheus.CounterVec   // result
	policy   *prometheus.GaugeVec     // policy hash

	// Pre-resolved children keep label lookups out of the hot path.
	lat [3]prometheus.Observer
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		verdicts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rivumi_verdicts_total", Help: "Verdicts served, by decision and transport.",
		}, []string{"decision", "transport"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "rivumi_verdict_duration_seconds",
			Help:    "Time to grade one command (parse and policy), by decision.",
			Buckets: []float64{25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 1},
		}, []string{"decision"}),
		bad: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rivumi_bad_requests_total", Help: "Requests that could not be graded (answered deny), by transport.",
		}, []string{"transport"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rivumi_policy_reloads_total", Help: "Policy reloads, by result (ok, error).",
		}, []string{"result"}),
		policy: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "rivumi_policy_info", Help: "The policy being served (value 1, hash in the label).",
		}, []string{"policy"}),
	}
	m.reg.MustRegister(m.verdicts, m.latency, m.bad, m.reloads, m.policy,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, d := range []engine.Decision{engine.Allow, engine.Ask, engine.Deny} {
		m.lat[d] = m.latency.WithLabelValues(d.String())
		for _, t := range []string{"http", "stdio"} {
			m.verdicts.WithLabelValues(d.String(), t)
		}
	}
	m.reloads.WithLabelValues("ok")
	m.reloads.WithLabelValues("error")
	return m
}

func (m *metrics) setPolicy(hash string) {
	m.policy.Reset()
	m.policy.WithLabelValues(hash).Set(1)
}
