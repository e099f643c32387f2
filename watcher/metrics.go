package watcher

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// Metrics hears what the watcher does (metrics.Registry implements it;
// Deps.Metrics nil: nothing is reported). Calls come from many goroutines.
type Metrics interface {
	// RunFinished: a run of table ended with outcome (completed, nochange,
	// failed, skipped, abandoned) after d, having converted rows.
	RunFinished(table, outcome string, d time.Duration, rows int64)
	// Phase: one run spent d in phase (plan, build, push, commit).
	Phase(phase string, d time.Duration)
	// FilesDiscovered: a run's plan found n data files to convert (to add
	// or rebuild; not the snapshot's live files).
	FilesDiscovered(table string, n int)
	// Converted: data files converted into segments, their rows and the
	// bytes of the data files read.
	Converted(table string, files int, rows, bytes int64)
	// FilesFailed: n data files could not be converted.
	FilesFailed(table string, n int)
	// RunKind: a run of kind (checkpoint.RunKind) completed (these three
	// are fleet-wide: the run records hold them per table).
	RunKind(kind string)
	// FilesChanged: a completed run added, rebuilt and removed data files
	// (checkpoint.Run's FilesAdded, FilesRebuilt, FilesRemoved).
	FilesChanged(added, rebuilt, removed int)
	// RowsChanged: a completed run added and rebuilt rows.
	RowsChanged(added, rebuilt int64)
	// CheckpointFiles: the table's checkpoint holds n data files.
	CheckpointFiles(table string, n int)
	// SetLag: the table is snapshots behind its newest Iceberg snapshot,
	// whose oldest unsynced one is seconds old.
	SetLag(table string, snapshots int, seconds float64)
	// LeaseTakeover: a run took the table's lease over from a run that
	// never ended (its replica died or lost the lease).
	LeaseTakeover(table string)
	// ForgetTable: the table was deleted; its series go.
	ForgetTable(table string)
	// NotifyToRun: a run a notification asked for started d after the
	// first notification of the change arrived.
	NotifyToRun(d time.Duration)
}

// Run outcomes reported to Metrics.RunFinished.
const (
	outcomeCompleted = "completed"
	outcomeNoChange  = "nochange"
	outcomeFailed    = "failed"
	outcomeSkipped   = "skipped"
	outcomeAbandoned = "abandoned"
)

// Run phases reported to Metrics.Phase. A run that only adds files uploads
// each unit as soon as it is built, so its build time includes its uploads,
// which push also counts (summed over units).
const (
	phasePlan   = "plan"
	phaseBuild  = "build"
	phasePush   = "push"
	phaseCommit = "commit"
)

// noMetrics is the Metrics of a watcher without Deps.Metrics.
type noMetrics struct{}

func (noMetrics) RunFinished(string, string, time.Duration, int64) {}
func (noMetrics) Phase(string, time.Duration)                      {}
func (noMetrics) FilesDiscovered(string, int)                      {}
func (noMetrics) Converted(string, int, int64, int64)              {}
func (noMetrics) FilesFailed(string, int)                          {}
func (noMetrics) CheckpointFiles(string, int)                      {}
func (noMetrics) RunKind(string)                                   {}
func (noMetrics) FilesChanged(int, int, int)                       {}
func (noMetrics) RowsChanged(int64, int64)                         {}
func (noMetrics) SetLag(string, int, float64)                      {}
func (noMetrics) LeaseTakeover(string)                             {}
func (noMetrics) ForgetTable(string)                               {}
func (noMetrics) NotifyToRun(time.Duration)                        {}

// Metrics returns what the watcher reports to (never nil): the lag check
// and other callers report through it too.
func (w *Watcher) Metrics() Metrics { return w.metrics }

// TableCount is how many tables the watcher schedules (floe_tables; no
// store read).
func (w *Watcher) TableCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, st := range w.tables {
		if !st.gone {
			n++
		}
	}
	return n
}

// activeRun is what the watcher tracks of one run in flight on this
// replica: the time spent per phase and the run's own log lines.
type activeRun struct {
	table, id string
	began     time.Time
	phase     string // current phase ("" before planning)
	since     time.Time
	spent     map[string]time.Duration
	planned   bool
	log       runLog
}

// runTracker holds the runs in flight, by run id and by table (a table has
// at most one run here: its lease).
type runTracker struct {
	scrub func(string) string

	mu      sync.Mutex
	byID    map[string]*activeRun
	byTable map[string]*activeRun
	active  int // len(byID), read by the log handler without the map
}

func newRunTracker(scrub func(string) string) *runTracker {
	return &runTracker{scrub: scrub, byID: map[string]*activeRun{}, byTable: map[string]*activeRun{}}
}

// runBegan starts tracking a run; runEnded (deferred by runTable) ends it.
func (w *Watcher) runBegan(table, id string) *activeRun {
	a := &activeRun{table: table, id: id, began: time.Now(), spent: map[string]time.Duration{}}
	t := w.runs
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byID[id], t.byTable[table] = a, a
	t.active = len(t.byID)
	return a
}

// runEnded reports a's phases and the run's outcome and stops tracking it.
// A run of a table deleted meanwhile leaves no series behind.
func (w *Watcher) runEnded(a *activeRun, run *checkpoint.Run) {
	t := w.runs
	t.mu.Lock()
	a.enter("", time.Now())
	spent, planned := a.spent, a.planned
	delete(t.byID, a.id)
	if t.byTable[a.table] == a {
		delete(t.byTable, a.table)
	}
	t.active = len(t.byID)
	t.mu.Unlock()
	for _, p := range []string{phasePlan, phaseBuild, phasePush, phaseCommit} {
		if d, ok := spent[p]; ok {
			w.metrics.Phase(p, d)
		}
	}
	w.metrics.RunFinished(a.table, outcomeOf(*run, planned), time.Since(a.began), run.Rows)
	if n, ok := w.checkpoints.files(a.table); ok && run.Status == checkpoint.RunCompleted {
		w.metrics.CheckpointFiles(a.table, n)
	}
	if run.Status == checkpoint.RunCompleted && run.Kind != "" {
		w.metrics.RunKind(string(run.Kind))
		w.metrics.FilesChanged(run.FilesAdded, run.FilesRebuilt, run.FilesRemoved)
		w.metrics.RowsChanged(run.RowsAdded, run.RowsRebuilt)
	}
	if !w.knows(a.table) {
		w.metrics.ForgetTable(a.table)
	}
}

// outcomeOf names how a run ended.
func outcomeOf(run checkpoint.Run, planned bool) string {
	switch run.Status {
	case checkpoint.RunCompleted:
		if !planned {
			return outcomeNoChange
		}
		return outcomeCompleted
	case checkpoint.RunSkipped:
		return outcomeSkipped
	case checkpoint.RunAbandoned:
		return outcomeAbandoned
	default: // failed, or still RUNNING when the run panicked
		return outcomeFailed
	}
}

// enter closes the current phase at now and opens name ("" opens none).
// The caller holds the tracker's lock.
func (a *activeRun) enter(name string, now time.Time) {
	if a.phase != "" {
		a.spent[a.phase] += now.Sub(a.since)
	}
	a.phase, a.since = name, now
}

// phaseLabel maps the run's phase names to the metric's: the atomic swap
// of a replacing run is its push.
func phaseLabel(name string) string {
	if name == "swap" {
		return phasePush
	}
	return name
}

// enterPhase notes that the run entered a phase (runner.phase); the first
// entry of each phase goes into the run's log.
func (w *Watcher) enterPhase(runID, name string) {
	t := w.runs
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.byID[runID]
	if a == nil {
		return
	}
	label := phaseLabel(name)
	if _, seen := a.spent[label]; !seen {
		a.log.add(infoLine("phase "+name, nil))
		a.spent[label] += 0
	}
	a.enter(label, time.Now())
}

// pushed adds an upload's time to the push phase of the table's run.
func (w *Watcher) pushed(table string, start time.Time) {
	t := w.runs
	t.mu.Lock()
	defer t.mu.Unlock()
	if a := t.byTable[table]; a != nil {
		a.spent[phasePush] += time.Since(start)
	}
}

// planned reports the files the run's plan found to convert and notes the
// plan in the run's log.
func (r *runner) planned(p *plan.Plan) {
	files := len(unitFiles(p.Build))
	r.w.metrics.FilesDiscovered(r.table.Name, files)
	t := r.w.runs
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.byID[r.run.ID]
	if a == nil {
		return
	}
	a.planned = true
	a.log.add(infoLine("planned", map[string]string{
		attrSnapshot: itoa(p.SnapshotID), "files_to_build": itoa(files), "units": itoa(len(p.Build)),
		"files_to_drop": itoa(len(p.Drop)), "files_kept": itoa(p.KeptFiles), "live_files": itoa(p.LiveFiles),
		"replacing": boolString(p.Replacing), "incremental": boolString(p.Incremental),
	}))
	if k := p.KeyIndex; k.Files > 0 {
		a.log.add(infoLine("equality deletes checked against key indexes", map[string]string{
			"files": itoa(k.Files), "built": itoa(k.Built), "ruled_out": itoa(k.RuledOut), "unavailable": itoa(k.Unavailable),
		}))
	}
}

// converted reports a batch's built units: files, rows and data bytes.
func (r *runner) converted(out batchOutcome) {
	files, rows, bytes := 0, int64(0), int64(0)
	for _, bu := range out.built {
		files += len(bu.unit.Files)
		rows += bu.rows
		bytes += unitBytes(bu.unit)
	}
	if files > 0 {
		r.w.metrics.Converted(r.table.Name, files, rows, bytes)
	}
}

// unitFailedMetric counts the files of a unit that failed to convert (not
// a run that stops: cancellation or a lost lease).
func (r *runner) unitFailedMetric(ctx context.Context, u plan.Unit, err error) {
	if ctx.Err() == nil && !errors.Is(err, ErrLeaseExpiring) {
		r.w.metrics.FilesFailed(r.table.Name, len(u.Files))
	}
}

// noteAbandoned reports a run marked ABANDONED; found by a run that holds
// the lease (keep is its id), it is a lease takeover.
func (w *Watcher) noteAbandoned(table, keep string) {
	w.metrics.RunFinished(table, outcomeAbandoned, 0, 0)
	if keep != "" {
		w.metrics.LeaseTakeover(table)
	}
}

// files returns the data files of the table's cached checkpoint.
func (c *checkpointCache) files(table string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[table]
	return len(e.cp.Files), ok
}
