package watcher

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
)

// replaceWhole runs a plan that takes something out of Pinot when it
// cannot stream (replaceStreamed says when): every unit is built first,
// then one atomic replace swaps the retired segments for the new ones
// (segment lineage on a cluster), then the checkpoint commits. Before the
// swap the run re-reads the stored checkpoint under a renewed lease and
// stops if another run moved it (I4).
func (r *runner) replaceWhole(ctx context.Context, t target, sw swapPlan) error {
	files := len(unitFiles(t.plan.Build))
	r.begin(0, files, false)
	r.phase("build")
	out, err := r.buildBatch(ctx, t, t.plan.Build, false)
	if err != nil {
		return err
	}
	defer func() {
		for _, segs := range out.local {
			removeTarballs(segs)
		}
	}()
	failed := r.account(out)
	set := maps.Clone(t.plan.Refresh) // key bounds the plan looked up (kept files)
	if set == nil {
		set = map[string]checkpoint.FileState{}
	}
	for _, bu := range out.built {
		maps.Copy(set, bu.fileStates())
	}
	d := checkpoint.CheckpointDelta{Header: r.header(t, nil), Set: set, Delete: t.plan.Drop}
	addRemaps(&d, t.plan)
	from := withoutKept(sw.fromSegments(t.served, out.failedFiles(t.plan.Build)), t.old.Files, d)
	to := r.newSegments(t, out)
	r.phase("swap")
	if err := r.swap(ctx, from, to); err != nil {
		return err
	}
	r.phase("commit")
	if err := r.commitDelta(ctx, d); err != nil {
		return err
	}
	r.forget(ctx, from)
	r.noteFailed(failed)
	return nil
}

// swap re-checks the base, records the new segments in the ledger and
// replaces from by to atomically.
func (r *runner) swap(ctx context.Context, from []string, to []pinot.Segment) error {
	if len(from) == 0 && len(to) == 0 {
		return nil
	}
	if err := r.recheckBase(ctx); err != nil {
		return err
	}
	if len(to) > 0 {
		names := make([]string, len(to))
		for i, s := range to {
			names[i] = s.Name
		}
		if err := r.w.deps.Store.RecordSegments(ctx, r.keeper.current(), names); err != nil {
			return fmt.Errorf("record segments of %s: %w", r.table.Name, err)
		}
	}
	r.run.SegmentsDeleted = len(from)
	if err := pinot.Replace(ctx, r.w.deps.Uploader, r.table.Name, from, to); err != nil {
		return fmt.Errorf("push segments to Pinot: %w", err)
	}
	return nil
}

// newSegments are the built segments Pinot does not serve yet (a dead run
// may have pushed some already under the same name, I2), in unit order.
func (r *runner) newSegments(t target, out batchOutcome) []pinot.Segment {
	var to []pinot.Segment
	for _, bu := range out.built {
		for _, s := range out.local[bu.unit.Key] {
			if !t.served[s.Name] {
				to = append(to, s)
			}
		}
	}
	return to
}

// withoutKept drops from the segments the checkpoint after d still
// references: a replace never takes out what the new state keeps.
func withoutKept(from []string, old map[string]checkpoint.FileState, d checkpoint.CheckpointDelta) []string {
	next := make(map[string]checkpoint.FileState, len(old)+len(d.Set))
	maps.Copy(next, old)
	for _, p := range d.Delete {
		delete(next, p)
	}
	maps.Copy(next, d.Set)
	kept := keptSegments(next)
	return slices.DeleteFunc(from, func(s string) bool { return kept[s] })
}

// forget drops retired segments from the ledger (best effort: a leftover
// entry only makes a later orphan check more careful).
func (r *runner) forget(ctx context.Context, names []string) {
	if len(names) == 0 {
		return
	}
	if err := r.w.deps.Store.ForgetSegments(ctx, r.keeper.current(), names); err != nil {
		r.w.log.Warn("forget retired segments", slog.String(attrTable, r.table.Name), slog.String("error", err.Error()))
	}
}
