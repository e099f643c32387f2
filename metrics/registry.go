package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Label names.
const (
	labelTable    = "table"
	labelOutcome  = "outcome"
	labelPhase    = "phase"
	labelEndpoint = "endpoint"
	labelOp       = "op"
)

// Run outcomes (the outcome label of floe_runs_total).
const (
	OutcomeCompleted = "completed" // the run changed Pinot and committed
	OutcomeNoChange  = "nochange"  // the table's metadata was what the checkpoint held
	OutcomeFailed    = "failed"
	OutcomeSkipped   = "skipped"   // another replica held the lease, or admission refused the run
	OutcomeAbandoned = "abandoned" // a run whose replica died or lost the lease, found by the next run
)

// PhaseTotal is the phase label of a whole run's duration.
const PhaseTotal = "total"

// Registry holds floe's metrics in its own prometheus.Registry.
type Registry struct {
	reg     *prometheus.Registry
	started time.Time

	runs             *prometheus.CounterVec
	runDuration      *prometheus.HistogramVec
	lastRunSuccess   *prometheus.GaugeVec
	lastRunRows      *prometheus.GaugeVec
	rows, bytes      *prometheus.CounterVec
	filesDiscovered  *prometheus.CounterVec
	filesConverted   *prometheus.CounterVec
	filesFailed      *prometheus.CounterVec
	filesAdded       *prometheus.CounterVec
	filesRebuilt     *prometheus.CounterVec
	filesRemoved     *prometheus.CounterVec
	rowsAdded        *prometheus.CounterVec
	rowsRebuilt      *prometheus.CounterVec
	runKinds         *prometheus.CounterVec
	checkpointFiles  *prometheus.GaugeVec
	lagSnapshots     *prometheus.GaugeVec
	lagSeconds       *prometheus.GaugeVec
	leaseTakeovers   *prometheus.CounterVec
	controllerTime   *prometheus.HistogramVec
	controllerErrors *prometheus.CounterVec
	storeTime        *prometheus.HistogramVec
	storeErrors      *prometheus.CounterVec
	notifyEvents     *prometheus.CounterVec
	notifyIgnored    *prometheus.CounterVec
	notifyToRun      *prometheus.HistogramVec
}

// New returns a Registry with every floe metric, the Go runtime collector
// and the process collector registered.
func New() *Registry {
	r := &Registry{reg: prometheus.NewRegistry(), started: time.Now()}
	r.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	r.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "floe_up", Help: "Whether floe is serving."},
		func() float64 { return 1 }))
	r.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "floe_uptime_seconds", Help: "Seconds since start."},
		func() float64 { return time.Since(r.started).Seconds() }))
	r.registerRuns()
	r.registerFiles()
	r.registerCalls()
	r.registerNotify()
	return r
}

func (r *Registry) registerRuns() {
	r.runs = r.counter("floe_runs_total", "Runs by table and outcome (completed, nochange, failed, skipped, abandoned).",
		labelTable, labelOutcome)
	r.runDuration = r.histogram("floe_run_duration_seconds",
		"Time runs spent per phase (plan, build, push, commit) and in total (phase=\"total\").",
		prometheus.ExponentialBucketsRange(0.01, 3600, 14), labelPhase)
	r.lastRunSuccess = r.gauge("floe_last_run_success", "1 if the table's last run that did work completed, 0 if it failed.", labelTable)
	r.lastRunRows = r.gauge("floe_last_run_rows", "Rows converted by the table's last run that did work.", labelTable)
	r.lagSnapshots = r.gauge("floe_lag_snapshots", "Iceberg snapshots the table's checkpoint is behind.", labelTable)
	r.lagSeconds = r.gauge("floe_lag_seconds", "Age of the oldest Iceberg snapshot not yet in Pinot (0 when in step).", labelTable)
	r.leaseTakeovers = r.counter("floe_lease_takeovers_total",
		"Runs that took a table's lease over from a run that never ended (its replica died or lost the lease).", labelTable)
}

func (r *Registry) registerFiles() {
	r.rows = r.counter("floe_rows_converted_total", "Rows converted into segments (added and rebuilt).", labelTable)
	r.bytes = r.counter("floe_bytes_converted_total", "Bytes of Iceberg data files converted into segments.", labelTable)
	r.filesDiscovered = r.counter("floe_files_discovered_total", "Data files runs planned to convert (to add or rebuild).", labelTable)
	r.filesConverted = r.counter("floe_files_converted_total", "Data files converted into segments (added and rebuilt).", labelTable)
	r.filesFailed = r.counter("floe_files_failed_total", "Data files that could not be converted.", labelTable)
	// What completed runs did, fleet-wide (no table label: the run
	// records hold the per-table detail, and a scrape stays flat with
	// 1,000 tables).
	r.filesAdded = r.counter("floe_files_added_total", "Data files new to Pinot converted by completed runs, all tables.")
	r.filesRebuilt = r.counter("floe_files_rebuilt_total",
		"Data files Pinot already held, converted again by completed runs (merges, regrouped units, new deletes, schema rebuilds), all tables.")
	r.filesRemoved = r.counter("floe_files_removed_total", "Data files gone from the snapshot whose rows completed runs took out of Pinot, all tables.")
	r.rowsAdded = r.counter("floe_rows_added_total", "Rows of the data files added by completed runs, all tables.")
	r.rowsRebuilt = r.counter("floe_rows_rebuilt_total", "Rows of the data files rebuilt by completed runs (served before, not new), all tables.")
	r.runKinds = r.counter("floe_run_kinds_total",
		"Completed runs by kind (append, backfill, replace, merge, remap, schema-rebuild, none), all tables.", labelKind)
	r.checkpointFiles = r.gauge("floe_checkpoint_files", "Data files in the table's checkpoint, as of this replica's last commit.", labelTable)
}

func (r *Registry) registerCalls() {
	r.controllerTime = r.histogram("floe_pinot_controller_request_duration_seconds",
		"Pinot controller request attempts by endpoint (a route template).",
		prometheus.ExponentialBucketsRange(0.001, 60, 14), labelEndpoint)
	r.controllerErrors = r.counter("floe_pinot_controller_errors_total",
		"Pinot controller request attempts that failed (transport error or non-2xx answer), by endpoint.", labelEndpoint)
	r.storeTime = r.histogram("floe_store_request_duration_seconds",
		"Checkpoint store calls by operation (Redis command or script, bolt view/update).",
		prometheus.ExponentialBucketsRange(0.0001, 10, 14), labelOp)
	r.storeErrors = r.counter("floe_store_errors_total", "Checkpoint store calls that failed, by operation.", labelOp)
}

func (r *Registry) counter(name, help string, labels ...string) *prometheus.CounterVec {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	r.reg.MustRegister(v)
	return v
}

func (r *Registry) gauge(name, help string, labels ...string) *prometheus.GaugeVec {
	v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	r.reg.MustRegister(v)
	return v
}

func (r *Registry) histogram(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	r.reg.MustRegister(v)
	return v
}

// CountTables registers floe_tables, read from count at each scrape (the
// watcher's table count: no store read, M1). Call it once.
func (r *Registry) CountTables(count func() int) {
	r.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "floe_tables", Help: "Registered external tables."},
		func() float64 { return float64(count()) }))
}

// Gatherer is the underlying registry (tests gather from it).
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// Handler serves the registry in the Prometheus exposition formats.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{Registry: r.reg, MaxRequestsInFlight: 4})
}
