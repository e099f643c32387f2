package api

import (
	"strings"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// Overview states of a table (GET /api/v1/tables, /summary), in the order
// sort=state uses.
const (
	stateIdle        = "IDLE"
	stateRunning     = "RUNNING"
	stateBackfilling = "BACKFILLING"
	statePaused      = "PAUSED"
	stateDisabled    = "DISABLED"
	stateFailed      = "FAILED"
)

// overviewStates lists every overview state in sort order.
var overviewStates = []string{stateIdle, stateRunning, stateBackfilling, statePaused, stateDisabled, stateFailed}

// lagView is how far Pinot is behind the table's Iceberg source, from the
// store's latest observation of it.
type lagView struct {
	Snapshots        int       `json:"snapshots"`
	Seconds          float64   `json:"seconds"`
	LatestSnapshotID int64     `json:"latestSnapshotId"`
	CheckedAt        time.Time `json:"checkedAt"`
}

// overview is what the API derives for one table from its stored records
// (and this replica's watcher, where it knows more), so that every replica
// answers the same for the same store.
type overview struct {
	state     string
	rows      int64
	lag       *lagView
	lastError string
}

// deriveOverview computes a table's overview. st is this replica's status
// of the table (nil when the watcher does not know it yet).
func deriveOverview(t checkpoint.Table, ov checkpoint.TableOverview, st *watcher.TableStatus, now time.Time) overview {
	o := overview{state: overviewState(t, ov, st)}
	if ov.Summary != nil {
		o.rows = ov.Summary.Rows
	}
	o.lag = lagOf(ov, now)
	switch {
	case ov.LastRun != nil && failed(ov.LastRun.Status):
		o.lastError = firstLine(ov.LastRun.Error)
	case st != nil && st.State == watcher.StateError:
		o.lastError = firstLine(st.Error)
	}
	return o
}

// overviewState: PAUSED or DISABLED from the task config; RUNNING while
// the stored newest run is running (BACKFILLING when this replica's run is
// a backfill or the checkpoint has one under way); FAILED when the newest
// run failed or was abandoned, or the watcher cannot schedule the table;
// IDLE otherwise.
func overviewState(t checkpoint.Table, ov checkpoint.TableOverview, st *watcher.TableStatus) string {
	backfilling := st != nil && st.State == watcher.StateBackfilling && !ended(ov.LastRun, st)
	switch {
	case watcher.Paused(t.TaskConfig):
		return statePaused
	case !watcher.Enabled(t.TaskConfig):
		return stateDisabled
	case backfilling || ov.LastRun != nil && ov.LastRun.Status == checkpoint.RunRunning:
		if backfilling || ov.Summary != nil && ov.Summary.Backfill != nil {
			return stateBackfilling
		}
		return stateRunning
	case ov.LastRun != nil && failed(ov.LastRun.Status), st != nil && st.State == watcher.StateError:
		return stateFailed
	}
	return stateIdle
}

// ended: the store already holds the watcher's running run as ended (its
// record is written just before the watcher lets go of it), so the
// watcher's RUNNING is the moment between, not a run in flight.
func ended(last *checkpoint.Run, st *watcher.TableStatus) bool {
	return last != nil && st.RunningRunID != "" && last.ID == st.RunningRunID && last.Status != checkpoint.RunRunning
}

func failed(s checkpoint.RunStatus) bool {
	return s == checkpoint.RunFailed || s == checkpoint.RunAbandoned
}

// lagOf reads the lag from the observation: nil when the table was never
// checked. A checkpoint that reached the observed snapshot since the
// check means no lag.
func lagOf(ov checkpoint.TableOverview, now time.Time) *lagView {
	obs := ov.Observation
	if obs == nil {
		return nil
	}
	l := &lagView{Snapshots: obs.SnapshotsBehind, LatestSnapshotID: obs.LatestSnapshotID, CheckedAt: obs.CheckedAt}
	if ov.Summary != nil && ov.Summary.SnapshotID == obs.LatestSnapshotID && ov.Summary.Backfill == nil {
		l.Snapshots = 0
	}
	if l.Snapshots > 0 && !obs.OldestUnsyncedAt.IsZero() {
		l.Seconds = max(0, now.Sub(obs.OldestUnsyncedAt).Seconds())
	}
	return l
}

// firstLine returns the first line of msg, trimmed.
func firstLine(msg string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	return strings.TrimSpace(line)
}
