package server

import (
	"bytes"
	"net/http"
	runtimemetrics "runtime/metrics"
	"sort"
	"strings"
	"sync"

	vm "github.com/VictoriaMetrics/metrics"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"google.golang.org/protobuf/proto"
)

// The exposition of /metrics. VictoriaMetrics/metrics writes the samples
// (the server's set, the Go runtime's and the process's); they are parsed
// back with Prometheus' own text parser and written by Prometheus' encoder,
// in the format the scraper asks for: Prometheus text 0.0.4 by default,
// OpenMetrics 1.0.0 when the Accept header prefers it. On the way every
// family gets its HELP text and TYPE, and the runtime metrics take
// client_golang's names where the two libraries differ (renames below;
// docs/deploy.md lists what remains different).

// renames maps VictoriaMetrics' runtime metric names to client_golang's
// (or, for counters client_golang lacks, to a name ending in _total, which
// OpenMetrics requires of counters).
var renames = map[string]string{
	"go_gomaxprocs":      "go_sched_gomaxprocs_threads",
	"go_memlimit_bytes":  "go_gc_gomemlimit_bytes",
	"go_cgo_calls_count": "go_cgo_calls_total",
	"go_gc_forced_count": "go_gc_forced_total",
	// promtool check metrics refuses a gauge ending in _count (a
	// summary's or histogram's suffix).
	"go_cpu_count": "go_cpus",
}

// openMetricsRenames apply in OpenMetrics only, where a counter's family
// name drops _total: go_memstats_alloc_bytes_total would clash with the
// gauge go_memstats_alloc_bytes. The counter takes the name client_golang
// gives the same runtime/metrics value (/gc/heap/allocs:bytes).
var openMetricsRenames = map[string]string{
	"go_memstats_alloc_bytes_total": "go_gc_heap_allocs_bytes_total",
}

// counterTypes are families VictoriaMetrics types as gauges that only grow.
var counterTypes = map[string]bool{
	"process_io_read_bytes_total": true, "process_io_written_bytes_total": true,
	"process_io_read_syscalls_total": true, "process_io_write_syscalls_total": true,
	"process_io_storage_read_bytes_total": true, "process_io_storage_written_bytes_total": true,
}

// helps are the HELP texts; families not listed get a generic one.
var metricHelps = map[string]string{
	"rivumi_verdicts_total":           "Verdicts answered, by decision and transport.",
	"rivumi_verdict_duration_seconds": "Time to grade one request, by decision.",
	"rivumi_bad_requests_total":       "Requests that could not be graded (bad JSON, too large, unknown fields), by transport.",
	"rivumi_policy_reloads_total":     "Policy reloads (SIGHUP or a changed configuration), by result.",
	"rivumi_policy_info":              "The policy hash in force (value 1); verdicts carry the same hash.",

	"go_gc_duration_seconds":              "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.",
	"go_goroutines":                       "Number of goroutines that currently exist.",
	"go_threads":                          "Number of OS threads created.",
	"go_info":                             "Information about the Go environment.",
	"go_info_ext":                         "Go build information: compiler, GOARCH, GOOS, GOROOT.",
	"go_sched_gomaxprocs_threads":         "The current runtime.GOMAXPROCS setting.",
	"go_gc_gomemlimit_bytes":              "Go runtime memory limit configured by the user (GOMEMLIMIT), otherwise math.MaxInt64.",
	"go_gc_gogc_percent":                  "Heap size target percentage configured by the user (GOGC), otherwise 100.",
	"go_gc_heap_allocs_bytes_total":       "Cumulative sum of memory allocated to the heap by the application.",
	"go_memstats_alloc_bytes":             "Number of heap bytes allocated and currently in use.",
	"go_memstats_alloc_bytes_total":       "Total number of heap bytes allocated, even if freed.",
	"go_memstats_buck_hash_sys_bytes":     "Number of bytes used by the profiling bucket hash table.",
	"go_memstats_frees_total":             "Total number of heap objects frees.",
	"go_memstats_gc_cpu_fraction":         "The fraction of this program's available CPU time used by the GC since the program started.",
	"go_memstats_gc_sys_bytes":            "Number of bytes used for garbage collection system metadata.",
	"go_memstats_heap_alloc_bytes":        "Number of heap bytes allocated and currently in use.",
	"go_memstats_heap_idle_bytes":         "Number of heap bytes waiting to be used.",
	"go_memstats_heap_inuse_bytes":        "Number of heap bytes that are in use.",
	"go_memstats_heap_objects":            "Number of currently allocated objects.",
	"go_memstats_heap_released_bytes":     "Number of heap bytes released to OS.",
	"go_memstats_heap_sys_bytes":          "Number of heap bytes obtained from system.",
	"go_memstats_last_gc_time_seconds":    "Number of seconds since 1970 of last garbage collection.",
	"go_memstats_lookups_total":           "Total number of pointer lookups.",
	"go_memstats_mallocs_total":           "Total number of heap objects allocated, both live and gc-ed.",
	"go_memstats_mcache_inuse_bytes":      "Number of bytes in use by mcache structures.",
	"go_memstats_mcache_sys_bytes":        "Number of bytes used for mcache structures obtained from system.",
	"go_memstats_mspan_inuse_bytes":       "Number of bytes in use by mspan structures.",
	"go_memstats_mspan_sys_bytes":         "Number of bytes used for mspan structures obtained from system.",
	"go_memstats_next_gc_bytes":           "Number of heap bytes when next garbage collection will take place.",
	"go_memstats_other_sys_bytes":         "Number of bytes used for other system allocations.",
	"go_memstats_stack_inuse_bytes":       "Number of bytes obtained from system for stack allocator in non-CGO environments.",
	"go_memstats_stack_sys_bytes":         "Number of bytes obtained from system for stack allocator.",
	"go_memstats_sys_bytes":               "Number of bytes obtained from system.",
	"go_sched_latencies_seconds":          "Distribution of the time goroutines have spent in the scheduler in a runnable state before actually running.",
	"go_gc_pauses_seconds":                "Distribution of individual GC-related stop-the-world pause latencies.",
	"go_mutex_wait_seconds_total":         "Approximate cumulative time goroutines have spent blocked on a sync.Mutex or sync.RWMutex.",
	"go_gc_cpu_seconds_total":             "Estimated total CPU time spent performing GC tasks.",
	"go_gc_mark_assist_cpu_seconds_total": "Estimated total CPU time goroutines spent performing GC assists.",
	"go_scavenge_cpu_seconds_total":       "Estimated total CPU time spent returning unused memory to the OS.",
	"go_cgo_calls_total":                  "Number of cgo calls made by the process.",
	"go_gc_forced_total":                  "Number of GC cycles forced by the application calling runtime.GC.",
	"go_cpus":                             "Number of logical CPUs usable by the process.",
	"process_cpu_seconds_total":           "Total user and system CPU time spent in seconds.",
	"process_cpu_seconds_user_total":      "Total user CPU time spent in seconds.",
	"process_cpu_seconds_system_total":    "Total system CPU time spent in seconds.",
	"process_max_fds":                     "Maximum number of open file descriptors.",
	"process_open_fds":                    "Number of open file descriptors.",
	"process_resident_memory_bytes":       "Resident memory size in bytes.",
	"process_virtual_memory_bytes":        "Virtual memory size in bytes.",
	"process_start_time_seconds":          "Start time of the process since unix epoch in seconds.",
	"process_num_threads":                 "Number of OS threads in the process.",
}

// exposeOnce turns on VictoriaMetrics' TYPE lines, which the parser needs
// to type the families (a process-wide setting; only the server uses the
// library).
var exposeOnce sync.Once

// families gathers the metrics as Prometheus metric families, sorted by name.
func (m *metrics) families() ([]*dto.MetricFamily, error) {
	exposeOnce.Do(func() { vm.ExposeMetadata(true) })
	var buf bytes.Buffer
	m.set.WritePrometheus(&buf)
	vm.WriteProcessMetrics(&buf)
	vm.WriteFDMetrics(&buf)
	p := expfmt.NewTextParser(model.LegacyValidation)
	byName, err := p.TextToMetricFamilies(&buf)
	if err != nil {
		return nil, err
	}
	byName["go_gc_gogc_percent"] = gogcFamily()
	out := make([]*dto.MetricFamily, 0, len(byName))
	for name, f := range byName {
		if to, ok := renames[name]; ok {
			f.Name = proto.String(to)
		}
		if counterTypes[f.GetName()] && f.GetType() == dto.MetricType_GAUGE {
			f.Type = dto.MetricType_COUNTER.Enum()
			for _, mt := range f.Metric {
				mt.Counter, mt.Gauge = &dto.Counter{Value: proto.Float64(mt.GetGauge().GetValue())}, nil
			}
		}
		if f.GetType() == dto.MetricType_HISTOGRAM {
			for _, mt := range f.Metric {
				fixCount(mt.Histogram)
			}
		}
		help, ok := metricHelps[f.GetName()]
		if !ok {
			help = genericHelp(f.GetName())
		}
		f.Help = proto.String(help)
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, nil
}

// fixCount gives a histogram without a _count line (VictoriaMetrics writes
// none for the runtime's go_sched_latencies_seconds and go_gc_pauses_seconds)
// the count of its last cumulative bucket, which OpenMetrics requires to
// match. Their _sum stays 0: runtime/metrics histograms carry no sum.
func fixCount(h *dto.Histogram) {
	if h == nil || h.GetSampleCount() != 0 || len(h.Bucket) == 0 {
		return
	}
	h.SampleCount = proto.Uint64(h.Bucket[len(h.Bucket)-1].GetCumulativeCount())
}

// genericHelp describes a runtime family the table does not list.
func genericHelp(name string) string {
	switch {
	case strings.HasPrefix(name, "go_"):
		return "Go runtime metric " + name + " (VictoriaMetrics/metrics)."
	case strings.HasPrefix(name, "process_"):
		return "Process metric " + name + " from /proc (VictoriaMetrics/metrics)."
	}
	return name + "."
}

// gogcFamily is go_gc_gogc_percent, which client_golang exposes and
// VictoriaMetrics does not.
func gogcFamily() *dto.MetricFamily {
	s := []runtimemetrics.Sample{{Name: "/gc/gogc:percent"}}
	runtimemetrics.Read(s)
	v := 0.0
	if s[0].Value.Kind() == runtimemetrics.KindUint64 {
		v = float64(s[0].Value.Uint64())
	}
	return &dto.MetricFamily{
		Name: proto.String("go_gc_gogc_percent"), Type: dto.MetricType_GAUGE.Enum(),
		Metric: []*dto.Metric{{Gauge: &dto.Gauge{Value: proto.Float64(v)}}},
	}
}

// exposition formats, in order of preference when the scraper accepts
// several.
var expositionFormats = []expfmt.Format{expfmt.FmtOpenMetrics_1_0_0, expfmt.FmtOpenMetrics_0_0_1, expfmt.FmtText}

// ServeHTTP writes the metrics in the format the Accept header asks for.
func (m *metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fams, err := m.families()
	if err != nil {
		http.Error(w, "metrics: "+err.Error(), http.StatusInternalServerError)
		return
	}
	format := expfmt.NegotiateAccept(r.Header, expositionFormats...)
	om := format.FormatType() == expfmt.TypeOpenMetrics
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, format)
	for _, f := range fams {
		if to, ok := openMetricsRenames[f.GetName()]; ok && om {
			f = proto.Clone(f).(*dto.MetricFamily)
			f.Name = proto.String(to)
		}
		if err := enc.Encode(f); err != nil {
			http.Error(w, "metrics: "+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	if c, ok := enc.(expfmt.Closer); ok {
		if err := c.Close(); err != nil { // OpenMetrics' # EOF
			http.Error(w, "metrics: "+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	w.Header().Set("Content-Type", string(format))
	w.Write(buf.Bytes())
}
