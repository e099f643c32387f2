package api

import (
	"context"
	"fmt"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// unavailableError is a store call that failed because the store could
// not be reached in time; the API answers 503 with Retry-After.
type unavailableError struct {
	store string
	err   error
}

func (e *unavailableError) Error() string {
	return e.store + " unavailable (retry later): " + e.err.Error()
}

func (e *unavailableError) Unwrap() error { return e.err }

// storeCalls is the API's access to the store: every call has a deadline,
// and unavailability is reported naming the store.
type storeCalls struct {
	s       checkpoint.Store
	timeout time.Duration
	name    string
}

// tag marks an error that says the store is unreachable.
func (c storeCalls) tag(err error) error {
	if err != nil && checkpoint.IsUnavailable(err) {
		return &unavailableError{store: c.name, err: err}
	}
	return err
}

// bounded runs f under the store deadline (scaled by factor).
func bounded[T any](c storeCalls, ctx context.Context, factor time.Duration, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout*factor)
	defer cancel()
	v, err := f(ctx)
	return v, c.tag(err)
}

// done adapts an error-only call to bounded.
func done(f func(context.Context) error) func(context.Context) (struct{}, error) {
	return func(ctx context.Context) (struct{}, error) { return struct{}{}, f(ctx) }
}

func (c storeCalls) ListTables(ctx context.Context) ([]checkpoint.Table, error) {
	return bounded(c, ctx, 1, c.s.ListTables)
}

func (c storeCalls) GetTable(ctx context.Context, name string) (checkpoint.Table, error) {
	return bounded(c, ctx, 1, func(ctx context.Context) (checkpoint.Table, error) { return c.s.GetTable(ctx, name) })
}

func (c storeCalls) DeleteTable(ctx context.Context, name string) error {
	_, err := bounded(c, ctx, 1, done(func(ctx context.Context) error { return c.s.DeleteTable(ctx, name) }))
	return err
}

// GetCheckpoint reads the whole file map: it may take ten times as long.
func (c storeCalls) GetCheckpoint(ctx context.Context, table string) (checkpoint.Checkpoint, error) {
	return bounded(c, ctx, 10, func(ctx context.Context) (checkpoint.Checkpoint, error) { return c.s.GetCheckpoint(ctx, table) })
}

func (c storeCalls) GetCheckpointSummary(ctx context.Context, table string) (checkpoint.CheckpointSummary, error) {
	return bounded(c, ctx, 1, func(ctx context.Context) (checkpoint.CheckpointSummary, error) {
		return c.s.GetCheckpointSummary(ctx, table)
	})
}

func (c storeCalls) ListRuns(ctx context.Context, table string, limit int) ([]checkpoint.Run, error) {
	return bounded(c, ctx, 1, func(ctx context.Context) ([]checkpoint.Run, error) { return c.s.ListRuns(ctx, table, limit) })
}

func (c storeCalls) GetConnection(ctx context.Context, name string) (checkpoint.Connection, error) {
	return bounded(c, ctx, 1, func(ctx context.Context) (checkpoint.Connection, error) { return c.s.GetConnection(ctx, name) })
}

func (c storeCalls) ListConnections(ctx context.Context) ([]checkpoint.Connection, error) {
	return bounded(c, ctx, 1, c.s.ListConnections)
}

func (c storeCalls) PutConnection(ctx context.Context, conn checkpoint.Connection) error {
	_, err := bounded(c, ctx, 1, done(func(ctx context.Context) error { return c.s.PutConnection(ctx, conn) }))
	return err
}

func (c storeCalls) DeleteConnection(ctx context.Context, name string) error {
	_, err := bounded(c, ctx, 1, done(func(ctx context.Context) error { return c.s.DeleteConnection(ctx, name) }))
	return err
}

// watcherCalls gives the watcher's store-backed operations the same
// deadlines. Runs a trigger starts do not inherit them: the watcher runs
// them under its own context.
type watcherCalls struct {
	w Watcher
	c storeCalls
}

func (wc watcherCalls) Trigger(ctx context.Context, name string) (string, error) {
	return bounded(wc.c, ctx, 1, func(ctx context.Context) (string, error) { return wc.w.Trigger(ctx, name) })
}

func (wc watcherCalls) Pause(ctx context.Context, name string) (checkpoint.Table, error) {
	return bounded(wc.c, ctx, 1, func(ctx context.Context) (checkpoint.Table, error) { return wc.w.Pause(ctx, name) })
}

func (wc watcherCalls) Resume(ctx context.Context, name string) (checkpoint.Table, error) {
	return bounded(wc.c, ctx, 1, func(ctx context.Context) (checkpoint.Table, error) { return wc.w.Resume(ctx, name) })
}

func (wc watcherCalls) TableState(ctx context.Context, name string) (watcher.TableStatus, error) {
	return bounded(wc.c, ctx, 1, func(ctx context.Context) (watcher.TableStatus, error) { return wc.w.TableState(ctx, name) })
}

func (wc watcherCalls) AddTable(ctx context.Context, t checkpoint.Table) error {
	_, err := bounded(wc.c, ctx, 1, done(func(ctx context.Context) error { return wc.w.AddTable(ctx, t) }))
	return err
}

func (wc watcherCalls) Refresh(ctx context.Context) error {
	_, err := bounded(wc.c, ctx, 1, done(wc.w.Refresh))
	return err
}

// health checks the store within min(HealthTimeout, timeout).
func (c storeCalls) health(ctx context.Context) error {
	h := c
	h.timeout = min(c.timeout, HealthTimeout)
	_, err := bounded(h, ctx, 1, c.s.ListTables)
	if err != nil && !isUnavailable(err) {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	return err
}

func (c storeCalls) TableRevision(ctx context.Context) (int64, error) {
	return bounded(c, ctx, 1, c.s.TableRevision)
}

func (c storeCalls) SnapshotTables(ctx context.Context) (checkpoint.TableSnapshot, error) {
	return bounded(c, ctx, 1, c.s.SnapshotTables)
}

func (c storeCalls) TableOverviews(ctx context.Context, names []string) ([]checkpoint.TableOverview, error) {
	return bounded(c, ctx, 1, func(ctx context.Context) ([]checkpoint.TableOverview, error) {
		return c.s.TableOverviews(ctx, names)
	})
}

// Status is the watcher's in-memory status of every table it knows.
func (wc watcherCalls) Status() []watcher.TableStatus { return wc.w.Status() }

func (wc watcherCalls) UpdateTable(ctx context.Context, name string, fn func(*checkpoint.Table) error) (checkpoint.Table, error) {
	return bounded(wc.c, ctx, 1, func(ctx context.Context) (checkpoint.Table, error) { return wc.w.UpdateTable(ctx, name, fn) })
}

func (wc watcherCalls) DeleteTable(ctx context.Context, name string) error {
	_, err := bounded(wc.c, ctx, 1, done(func(ctx context.Context) error { return wc.w.DeleteTable(ctx, name) }))
	return err
}
