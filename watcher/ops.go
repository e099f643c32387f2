package watcher

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// Trigger starts a run of the table now, even when it is paused or
// disabled. It returns the id of the run.
func (w *Watcher) Trigger(ctx context.Context, name string) (string, error) {
	if err := w.ensureKnown(ctx, name); err != nil {
		return "", err
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
	w.mu.Lock()
	_, ok := w.tables[name]
	w.mu.Unlock()
	if ok {
		return nil
	}
	t, err := w.deps.Store.GetTable(ctx, name)
	if err != nil {
		return fmt.Errorf("table %s: %w", name, err)
	}
	w.upsert(t, false)
	return nil
}

// AddTable registers a new external table and schedules its first run at
// once.
func (w *Watcher) AddTable(ctx context.Context, t checkpoint.Table) error {
	if err := ValidateTaskConfig(t.TaskConfig); err != nil {
		return fmt.Errorf("table %s: %w", t.Name, err)
	}
	now := w.clock.Now().UTC()
	t.CreatedAt, t.UpdatedAt = now, now
	if err := w.deps.Store.CreateTable(ctx, t); err != nil {
		return fmt.Errorf("create table %s: %w", t.Name, err)
	}
	w.upsert(t, true)
	w.poke()
	return nil
}

// Pause stashes the table's schedule (schedule → schedule.paused). A run
// in flight finishes normally (I5).
func (w *Watcher) Pause(ctx context.Context, name string) (checkpoint.Table, error) {
	return w.updateTaskConfig(ctx, name, Pause)
}

// Resume restores the stashed schedule; the next run continues from the
// checkpoint (I5).
func (w *Watcher) Resume(ctx context.Context, name string) (checkpoint.Table, error) {
	return w.updateTaskConfig(ctx, name, Resume)
}

func (w *Watcher) updateTaskConfig(ctx context.Context, name string, f func(map[string]string) map[string]string) (checkpoint.Table, error) {
	t, err := w.deps.Store.GetTable(ctx, name)
	if err != nil {
		return t, fmt.Errorf("table %s: %w", name, err)
	}
	t.TaskConfig = f(t.TaskConfig)
	t.UpdatedAt = w.clock.Now().UTC()
	if err := w.deps.Store.PutTable(ctx, t); err != nil {
		return t, fmt.Errorf("update table %s: %w", name, err)
	}
	w.upsert(t, false)
	w.poke()
	return t, nil
}

// State is a table's scheduling state.
type State string

// Table states shown by Status.
const (
	StateIdle     State = "IDLE"
	StateRunning  State = "RUNNING"
	StatePaused   State = "PAUSED"
	StateDisabled State = "DISABLED"
	StateError    State = "ERROR"
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
}

// Status returns the scheduling state of every table the watcher knows,
// sorted by name.
func (w *Watcher) Status() []TableStatus {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]TableStatus, 0, len(w.tables))
	for name, st := range w.tables {
		out = append(out, w.statusLocked(name, st))
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
	return w.statusLocked(name, w.tables[name]), nil
}

func (w *Watcher) statusLocked(name string, st *tableState) TableStatus {
	s := TableStatus{Table: name, State: StateIdle, NextRun: st.next, Schedule: st.table.TaskConfig[KeySchedule],
		LastChecked: st.lastChecked}
	switch {
	case st.running:
		s.State, s.RunningRunID = StateRunning, st.runID
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
