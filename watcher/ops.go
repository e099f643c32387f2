package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// casAttempts is how many times an edit of a table record is tried
// against concurrent edits before it answers ErrStale (409).
const casAttempts = 8

// Trigger starts a run of the table now, even when it is paused or
// disabled. It returns the id of the run. The run still goes through
// admission (admit.go): it does not start if the table is deleted, or
// paused or disabled after the trigger, before the run could begin.
func (w *Watcher) Trigger(ctx context.Context, name string) (string, error) {
	if err := w.learn(ctx, name); err != nil {
		return "", fmt.Errorf("trigger: %w", err)
	}
	return w.startRun(w.runContext(ctx), name, "manual")
}

// runContext returns the context background runs use: the watcher's loop
// context once open, so that a run outlives the HTTP request that started it.
func (w *Watcher) runContext(ctx context.Context) context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.loopCtx != nil {
		return w.loopCtx
	}
	return context.WithoutCancel(ctx)
}

// ensureKnown loads a table the watcher has not seen yet (created by
// another replica, or just now by the API).
func (w *Watcher) ensureKnown(ctx context.Context, name string) error {
	if w.knows(name) {
		return nil
	}
	return w.learn(ctx, name)
}

// AddTable registers a new external table and schedules its first run at
// once. The table's connection must be stored (checkpoint.ErrNoConnection
// otherwise), checked in the same store step that creates the table, so
// a connection deleted meanwhile never leaves an orphan table.
func (w *Watcher) AddTable(ctx context.Context, t checkpoint.Table) error {
	if err := ValidateTaskConfig(t.TaskConfig); err != nil {
		return fmt.Errorf("table %s: %w", t.Name, err)
	}
	now := w.clock.Now().UTC()
	t.CreatedAt, t.UpdatedAt = now, now
	if err := w.deps.Store.CreateBoundTable(ctx, t); err != nil {
		return fmt.Errorf("create table %s: %w", t.Name, err)
	}
	// The table exists now; learning it here is a head start on its
	// announcement, so a failure to read it back is not the caller's.
	if err := w.learn(ctx, t.Name); err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
		w.log.Warn("read back created table", slog.String(attrTable, t.Name), slog.String("error", err.Error()))
	}
	return nil
}

// Pause stashes the table's schedule (schedule → schedule.paused). A run
// in flight finishes normally (I5); once Pause has answered, no run of the
// table starts on any replica (I8). It always writes, so that a trigger
// made before it cannot start a run after it.
func (w *Watcher) Pause(ctx context.Context, name string) (checkpoint.Table, error) {
	return w.UpdateTable(ctx, name, func(t *checkpoint.Table) error {
		t.TaskConfig = Pause(t.TaskConfig)
		return nil
	})
}

// Resume restores the stashed schedule; the next run continues from the
// checkpoint (I5), or starts at once when the table has none.
func (w *Watcher) Resume(ctx context.Context, name string) (checkpoint.Table, error) {
	return w.UpdateTable(ctx, name, func(t *checkpoint.Table) error {
		t.TaskConfig = Resume(t.TaskConfig)
		return nil
	})
}

// UpdateTable edits a table record: fn changes a fresh copy, which is
// written back compare-and-set on its revision (checkpoint.UpdateTableFunc),
// from a fresh read again when another writer got in between. After
// casAttempts lost races it fails with checkpoint.ErrStale (409), never
// overwriting someone else's edit. fn validates what it changes; UpdatedAt
// is set here. The stored record takes effect on this replica at once and
// on the others when its change is announced. This is what PATCH uses.
func (w *Watcher) UpdateTable(ctx context.Context, name string, fn func(*checkpoint.Table) error) (checkpoint.Table, error) {
	t, err := checkpoint.UpdateTableFunc(ctx, w.deps.Store, name, casAttempts, func(t *checkpoint.Table) error {
		if err := fn(t); err != nil {
			return err
		}
		t.UpdatedAt = w.clock.Now().UTC()
		return nil
	})
	if err != nil {
		return t, fmt.Errorf("update table %s: %w", name, err)
	}
	w.apply(ctx, fromRead, t)
	return t, nil
}

// DeleteTable removes the table's registration (record, checkpoint, runs,
// lease; Pinot keeps its segments). Once it has answered no run of the
// table starts on any replica (I8); a run in flight stops at its next
// step (stillWanted) and can commit nothing, its lease being gone.
func (w *Watcher) DeleteTable(ctx context.Context, name string) error {
	err := w.deps.Store.DeleteTable(ctx, name)
	if err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
		return fmt.Errorf("delete table %s: %w", name, err)
	}
	w.mu.Lock()
	if st, ok := w.liveLocked(name); ok {
		w.dropLocked(name, st.table.Revision+1)
	}
	w.mu.Unlock()
	return err
}

// State is a table's scheduling state.
type State string

// Table states shown by Status.
const (
	StateIdle    State = "IDLE"
	StateRunning State = "RUNNING"
	// StateBackfilling: a run that commits in batches is under way (Pinot
	// already serves the files done; see Progress).
	StateBackfilling State = "BACKFILLING"
	StatePaused      State = "PAUSED"
	StateDisabled    State = "DISABLED"
	StateError       State = "ERROR"
)

// TableStatus is what the API and status page show for a table.
type TableStatus struct {
	Table        string    `json:"table"`
	State        State     `json:"state"`
	Schedule     string    `json:"schedule,omitempty"`
	NextRun      time.Time `json:"nextRun,omitzero"`
	RunningRunID string    `json:"runningRunId,omitempty"`
	LastChecked  time.Time `json:"lastChecked,omitzero"`
	Error        string    `json:"error,omitempty"`
	// Revision is the revision of the table record this replica acts on.
	Revision int64 `json:"revision,omitempty"`
	// Progress is the running run's progress (files of the target snapshot
	// in Pinot, rows converted), when this replica runs the table.
	Progress *RunProgress `json:"progress,omitempty"`
}

// Status returns the scheduling state of every table the watcher knows,
// sorted by name.
func (w *Watcher) Status() []TableStatus {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]TableStatus, 0, len(w.tables))
	for name, st := range w.tables {
		if !st.gone {
			out = append(out, w.statusLocked(name, st))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Table < out[j].Table })
	return out
}

// TableState returns one table's scheduling state.
func (w *Watcher) TableState(ctx context.Context, name string) (TableStatus, error) {
	if err := w.ensureKnown(ctx, name); err != nil {
		return TableStatus{}, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	st, ok := w.liveLocked(name)
	if !ok { // deleted meanwhile
		return TableStatus{}, fmt.Errorf("table %s: %w", name, checkpoint.ErrNotFound)
	}
	return w.statusLocked(name, st), nil
}

func (w *Watcher) statusLocked(name string, st *tableState) TableStatus {
	s := TableStatus{Table: name, State: StateIdle, NextRun: st.next, Schedule: st.table.TaskConfig[KeySchedule],
		LastChecked: st.lastChecked, Revision: st.table.Revision}
	switch {
	case st.running:
		s.State, s.RunningRunID = StateRunning, st.runID
		if p, ok := w.Progress(name); ok {
			s.Progress = &p
			if p.Batched {
				s.State = StateBackfilling
			}
		}
	case st.err != nil:
		s.State, s.Error = StateError, st.err.Error()
	case Paused(st.table.TaskConfig):
		s.State = StatePaused
	case !Enabled(st.table.TaskConfig):
		s.State = StateDisabled
	}
	if s.Schedule == "" && st.sched != nil {
		s.Schedule = w.opts.DefaultSchedule
	}
	return s
}
