package watcher

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
)

// Lag checks. A run records how far its table is behind when it starts,
// but a table on a long schedule (or paused, or failing) would show that
// figure for as long as no run comes, so the status page's "in sync" could
// be minutes or hours old. The watcher therefore measures every table's
// lag on a cadence of its own (Options.LagInterval): it reads the table's
// current metadata (one metadata file, no manifest) and the checkpoint's
// summary, and records the observation. Replicas share the work through
// the store: a table whose observation is younger than the interval is
// skipped, whoever wrote it, so each table is checked about once per
// interval however many replicas run, at most LagParallelism at a time on
// each.
//
// The check is also how a schema change committed without data reaches
// Pinot. Spark's ALTER TABLE … DROP COLUMN or RENAME COLUMN writes a new
// metadata file with a new current schema and no snapshot, so no schedule
// tick or notification would bring it in before the next data commit,
// and Pinot would keep serving a dropped column's values. When the check
// sees a current schema other than the one the checkpoint was read with
// (checkpoint.Checkpoint.SchemaID), it asks for a run at once (a notify
// run: a paused or disabled table ignores it), which applies the change
// as schema/doc.go's evolution policy says. It asks once per metadata
// file on each replica, so a change the run cannot apply (a widening that
// fails) fails one run, not one per interval.

// Lag check defaults.
const (
	DefaultLagInterval    = 30 * time.Second
	DefaultLagParallelism = 4
)

// lagLoop checks the tables' lag until ctx ends.
func (w *Watcher) lagLoop(ctx context.Context) {
	if w.opts.LagInterval < 0 || w.deps.LagLoader == nil {
		return
	}
	// Wake a few times per interval, so a table falls due soon after its
	// observation ages past the interval.
	step := w.opts.LagInterval / 3
	for {
		w.checkLags(ctx)
		timeout, stop := w.at(w.clock.Now().Add(step))
		select {
		case <-ctx.Done():
			stop()
			return
		case <-timeout:
		}
	}
}

// checkLags checks every table whose last observation is older than the
// interval, LagParallelism at a time, and returns how many it checked.
func (w *Watcher) checkLags(ctx context.Context) int {
	if w.deps.LagLoader == nil {
		return 0
	}
	due, err := w.lagDue(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("list tables for the lag check", slog.Any("error", err))
		}
		return 0
	}
	sem := make(chan struct{}, w.opts.LagParallelism)
	var wg sync.WaitGroup
	for _, t := range due {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return 0
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			w.checkLag(ctx, t)
		}()
	}
	wg.Wait()
	return len(due)
}

// lagDue returns the tables this replica knows whose observation is older
// than the interval (or missing) and that no run of this replica is
// measuring right now.
func (w *Watcher) lagDue(ctx context.Context) ([]checkpoint.Table, error) {
	w.mu.Lock()
	known := make([]checkpoint.Table, 0, len(w.tables))
	for _, st := range w.tables {
		if !st.gone && !st.running {
			known = append(known, st.table)
		}
	}
	w.mu.Unlock()
	slices.SortFunc(known, func(a, b checkpoint.Table) int { return strings.Compare(a.Name, b.Name) })
	names := make([]string, len(known))
	for i, t := range known {
		names[i] = t.Name
	}
	ovs, err := w.deps.Store.TableOverviews(ctx, names)
	if err != nil {
		return nil, err
	}
	now := w.clock.Now()
	var due []checkpoint.Table
	for i, t := range known {
		if i < len(ovs) && ovs[i].Observation != nil && now.Sub(ovs[i].Observation.CheckedAt) < w.opts.LagInterval {
			continue
		}
		due = append(due, t)
	}
	return due, nil
}

// checkLag reads the table's metadata and checkpoint summary and records
// the lag. A table that cannot be loaded keeps its last observation (its
// runs report why); the failure is logged at debug level, since every
// scheduled run says it louder.
func (w *Watcher) checkLag(ctx context.Context, t checkpoint.Table) {
	log := w.log.With(slog.String(attrTable, t.Name))
	src, err := w.deps.LagLoader.LoadTable(ctx, t)
	if err != nil {
		log.Debug("lag check: load table", slog.Any("error", err))
		return
	}
	var synced int64
	sum, err := w.deps.Store.GetCheckpointSummary(ctx, t.Name)
	switch {
	case err == nil:
		synced = sum.SnapshotID
	case !errors.Is(err, checkpoint.ErrNotFound):
		log.Debug("lag check: read checkpoint", slog.Any("error", err))
		return
	}
	w.askSchemaRun(t, src, sum)
	now := w.clock.Now()
	l := lagOf(src.Table.Metadata(), synced)
	w.metrics.SetLag(t.Name, l.behind, l.seconds(now))
	err = w.deps.Store.PutObservation(ctx, t.Name, l.observation(now))
	if err != nil && ctx.Err() == nil && !errors.Is(err, checkpoint.ErrNotFound) { // deleted meanwhile: nothing to tell
		log.Warn("record the table's lag", slog.Any("error", err))
	}
}

// askSchemaRun asks for a run of the table when its current schema is not
// the one the checkpoint was read with (schemaPending), unless the table
// is paused or disabled or this replica already asked for this metadata
// file.
func (w *Watcher) askSchemaRun(t checkpoint.Table, src *Source, sum checkpoint.CheckpointSummary) {
	meta := src.Table.Metadata()
	if !schemaPending(meta, sum) || Paused(t.TaskConfig) || !Enabled(t.TaskConfig) {
		return
	}
	w.mu.Lock()
	st, ok := w.liveLocked(t.Name)
	if !ok || st.schemaAsked == src.MetadataLocation {
		w.mu.Unlock()
		return
	}
	st.schemaAsked = src.MetadataLocation
	w.mu.Unlock()
	w.log.Info("Iceberg schema changed since the last sync: running the table", slog.String(attrTable, t.Name),
		slog.Int("schema_id", meta.CurrentSchema().ID), slog.Int("synced_schema_id", sum.SchemaID))
	w.queueNotify(t.Name, w.clock.Now())
}

// schemaPending reports whether the table's current schema is not the one
// the checkpoint's run read with, for a checkpoint of this very table
// (same UUID) that holds a snapshot and no backfill under way (whose run
// applies the schema when it resumes).
func schemaPending(meta table.Metadata, sum checkpoint.CheckpointSummary) bool {
	return sum.SnapshotID != 0 && sum.Backfill == nil && sum.TableUUID == meta.TableUUID().String() &&
		meta.CurrentSchema().ID != sum.SchemaID
}
