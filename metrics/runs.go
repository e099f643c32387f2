package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// RunFinished counts a run of table that ended with outcome after d. A
// run that did work (completed or failed) also sets the table's last-run
// gauges (rows it converted) and observes its total duration.
func (r *Registry) RunFinished(table, outcome string, d time.Duration, rows int64) {
	r.runs.WithLabelValues(table, outcome).Inc()
	switch outcome {
	case OutcomeCompleted, OutcomeFailed:
	default:
		return
	}
	ok := 0.0
	if outcome == OutcomeCompleted {
		ok = 1
	}
	r.lastRunSuccess.WithLabelValues(table).Set(ok)
	r.lastRunRows.WithLabelValues(table).Set(float64(rows))
	r.runDuration.WithLabelValues(PhaseTotal).Observe(d.Seconds())
}

// Phase observes the time one run spent in phase (plan, build, push,
// commit).
func (r *Registry) Phase(phase string, d time.Duration) {
	r.runDuration.WithLabelValues(phase).Observe(d.Seconds())
}

// FilesDiscovered counts the data files a run's plan found to convert.
func (r *Registry) FilesDiscovered(table string, n int) {
	r.filesDiscovered.WithLabelValues(table).Add(float64(n))
}

// Converted counts data files converted into segments, their rows and the
// bytes of the data files read.
func (r *Registry) Converted(table string, files int, rows, bytes int64) {
	r.filesConverted.WithLabelValues(table).Add(float64(files))
	r.rows.WithLabelValues(table).Add(float64(rows))
	r.bytes.WithLabelValues(table).Add(float64(bytes))
}

// FilesFailed counts data files that could not be converted.
func (r *Registry) FilesFailed(table string, n int) {
	r.filesFailed.WithLabelValues(table).Add(float64(n))
}

// RunKind counts a completed run by its kind (all tables: the run
// record says which table).
func (r *Registry) RunKind(kind string) {
	r.runKinds.WithLabelValues(kind).Inc()
}

// FilesChanged counts what a completed run did to data files: added
// (new to Pinot), rebuilt (converted again) and removed.
func (r *Registry) FilesChanged(added, rebuilt, removed int) {
	r.filesAdded.WithLabelValues().Add(float64(added))
	r.filesRebuilt.WithLabelValues().Add(float64(rebuilt))
	r.filesRemoved.WithLabelValues().Add(float64(removed))
}

// RowsChanged counts the rows a completed run added and rebuilt.
func (r *Registry) RowsChanged(added, rebuilt int64) {
	r.rowsAdded.WithLabelValues().Add(float64(added))
	r.rowsRebuilt.WithLabelValues().Add(float64(rebuilt))
}

// CheckpointFiles sets the data files in the table's checkpoint.
func (r *Registry) CheckpointFiles(table string, n int) {
	r.checkpointFiles.WithLabelValues(table).Set(float64(n))
}

// SetLag sets how far the table is behind its newest Iceberg snapshot.
func (r *Registry) SetLag(table string, snapshots int, seconds float64) {
	r.lagSnapshots.WithLabelValues(table).Set(float64(snapshots))
	r.lagSeconds.WithLabelValues(table).Set(seconds)
}

// LeaseTakeover counts a run that took the table's lease over from a run
// that never ended.
func (r *Registry) LeaseTakeover(table string) {
	r.leaseTakeovers.WithLabelValues(table).Inc()
}

// ForgetTable removes every series of a deleted table (M3).
func (r *Registry) ForgetTable(table string) {
	match := prometheus.Labels{labelTable: table}
	for _, v := range []interface{ DeletePartialMatch(prometheus.Labels) int }{
		r.runs, r.lastRunSuccess, r.lastRunRows, r.rows, r.bytes, r.filesDiscovered, r.filesConverted,
		r.filesFailed, r.checkpointFiles, r.lagSnapshots, r.lagSeconds, r.leaseTakeovers,
	} {
		v.DeletePartialMatch(match)
	}
}
