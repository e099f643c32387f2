package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// lazyCheckpoint is a checkpoint whose file map the run has not read
// (plan P14): the store's index of it answers the run's reads, and the
// run's map holds only the entries it read.
type lazyCheckpoint struct {
	fi     checkpoint.FileIndex
	table  string
	counts checkpoint.FileCounts
}

var _ plan.Files = (*lazyCheckpoint)(nil)

func (l *lazyCheckpoint) LookupFiles(ctx context.Context, paths []string) (map[string]checkpoint.FileState, error) {
	return l.fi.LookupFiles(ctx, l.table, paths)
}

func (l *lazyCheckpoint) SmallUnits(ctx context.Context, parts []string, below int64) ([]checkpoint.StoredUnit, error) {
	return l.fi.SmallUnits(ctx, l.table, parts, below)
}

// loadIndexed loads the checkpoint the store summarises as sum without its
// file map, when the store indexes file maps and the replica would not
// keep the map after the run anyway: it runs once (Options.RunsOnce) or
// the map is larger than the checkpoint cache holds. ok is false when the
// run reads the map whole instead.
func (r *runner) loadIndexed(ctx context.Context, sum checkpoint.CheckpointSummary) (checkpoint.Checkpoint, bool, error) {
	fi, ok := r.w.deps.Store.(checkpoint.FileIndex)
	if !ok || sum.SnapshotID == 0 || sum.Backfill != nil || (!r.w.opts.RunsOnce && r.w.checkpoints.fits(sum.FileCount)) {
		return checkpoint.Checkpoint{}, false, nil
	}
	cp, counts, ok, err := fi.IndexedCheckpoint(ctx, r.table.Name)
	if errors.Is(err, checkpoint.ErrNotFound) {
		return checkpoint.Checkpoint{}, false, nil
	}
	if err != nil {
		return cp, false, fmt.Errorf("read checkpoint: %w", err)
	}
	got := cp.Summary()
	got.FileCount = counts.Files
	if !ok || !sameCheckpoint(got, sum) || (cp.Rows == 0 && counts.Files > 0) {
		return checkpoint.Checkpoint{}, false, nil // not in step, moved, or without its row total: read whole
	}
	cp.Files = map[string]checkpoint.FileState{}
	r.cp, r.base, r.lazy = cp, sum, &lazyCheckpoint{fi: fi, table: r.table.Name, counts: counts}
	return cp, true, nil
}

// wholeCheckpoint returns the run's checkpoint with its whole file map,
// reading it now if the run loaded it lazily.
func (r *runner) wholeCheckpoint(ctx context.Context) (checkpoint.Checkpoint, error) {
	if r.lazy == nil {
		return r.cp, nil
	}
	cp, err := r.w.deps.Store.GetCheckpoint(ctx, r.table.Name)
	if err != nil {
		return cp, fmt.Errorf("read checkpoint: %w", err)
	}
	if !sameCheckpoint(cp.Summary(), r.base) {
		return cp, fmt.Errorf("%w: planned from snapshot %d (token %d), the store now holds snapshot %d (token %d)",
			ErrCheckpointMoved, r.base.SnapshotID, r.base.LeaseToken, cp.SnapshotID, cp.LeaseToken)
	}
	r.cp, r.lazy = cp, nil
	return cp, nil
}

// plan plans the run from the checkpoint from: from the store's index of
// its file map when the run loaded it lazily and the planner can (the
// entries the plan read join the run's map), else from the whole map.
func (r *runner) plan(ctx context.Context, tbl *table.Table, from checkpoint.Checkpoint) (*plan.Plan, error) {
	if r.lazy != nil {
		p, read, reason, err := r.w.deps.Planner.PlanLazy(ctx, r.table.Name, tbl, from, r.lazy.counts, r.lazy)
		if err != nil {
			return nil, err
		}
		if reason == "" {
			maps.Copy(r.cp.Files, read)
			r.w.log.Debug("plan read the checkpoint from the store's file index", slog.String(attrTable, r.table.Name),
				slog.Int("files_read", len(read)), slog.Int("files", r.lazy.counts.Files))
			return p, nil
		}
		r.w.log.Debug("plan reads the whole checkpoint", slog.String(attrTable, r.table.Name), slog.String("reason", reason))
		if from, err = r.wholeCheckpoint(ctx); err != nil {
			return nil, err
		}
	}
	return r.w.deps.Planner.PlanIndexed(ctx, r.table.Name, tbl, from, r.unitIndex())
}
