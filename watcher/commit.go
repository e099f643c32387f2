package watcher

import (
	"context"
	"fmt"
	"maps"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// builtUnit is a unit whose segments exist (locally, in Pinot, or both).
type builtUnit struct {
	unit     plan.Unit
	segments []string
	rows     int64
	fileRows map[string]int64
}

// fileStates is what the checkpoint holds for the unit's files: every
// member lists the unit's segments; a coalesced unit's key is its group.
func (b builtUnit) fileStates() map[string]checkpoint.FileState {
	out := make(map[string]checkpoint.FileState, len(b.unit.Files))
	group := ""
	if len(b.unit.Files) > 1 {
		group = b.unit.Key
	}
	for _, f := range b.unit.Files {
		out[f.Path] = checkpoint.FileState{
			DeleteFingerprint: f.DeleteFingerprint, Segments: b.segments, Rows: b.fileRows[f.Path],
			SizeBytes: f.SizeBytes, Group: group, Partition: f.Partition, DataSeq: f.DataSeq, KeyBounds: f.KeyBounds,
		}
	}
	return out
}

// header returns the checkpoint header of the run's target snapshot, or,
// with progress, the old header marked with the backfill progress. Its
// SchemaID is the schema the run read with and brought Pinot in line with
// (readSchema), which may be newer than the snapshot's own: the next run
// and the lag check compare the table's current schema with it.
func (r *runner) header(t target, progress *checkpoint.Backfill) checkpoint.Checkpoint {
	if progress != nil {
		h := t.old
		h.Files, h.Table, h.CommittedAt, h.Backfill = nil, r.table.Name, r.w.clock.Now().UTC(), progress
		return h
	}
	counts := maps.Clone(t.old.SnapshotFileCounts)
	if counts == nil {
		counts = map[int64]int{}
	}
	if t.plan.SnapshotID != 0 {
		counts[t.plan.SnapshotID] = t.plan.LiveFiles
	}
	return checkpoint.Checkpoint{
		Table: r.table.Name, SnapshotID: t.plan.SnapshotID, SequenceNumber: t.plan.SequenceNumber,
		MetadataLocation: t.src.MetadataLocation, TableUUID: t.uuid, SchemaID: readSchema(t.src.Table).ID,
		SnapshotFileCounts: retainedCounts(counts, t.src), CommittedAt: r.w.clock.Now().UTC(),
	}
}

// commitDelta commits a change under the run's lease (I1: only after Pinot
// acknowledged every segment it names) and moves the run's base to it.
func (r *runner) commitDelta(ctx context.Context, d checkpoint.CheckpointDelta) error {
	d.Header.Rows = rowsAfter(r.cp, d)
	if err := r.w.deps.Store.CommitCheckpointDelta(ctx, r.keeper.current(), d); err != nil {
		return fmt.Errorf("commit checkpoint at snapshot %d: %w", d.Header.SnapshotID, err)
	}
	cur, err := r.w.deps.Store.GetCheckpointSummary(ctx, r.table.Name)
	if err != nil {
		return fmt.Errorf("read committed checkpoint: %w", err)
	}
	r.base = cur
	files := r.cp.Files
	applyDelta(files, r.ix, d)
	r.cp = d.Header
	r.cp.Files, r.cp.LeaseToken, r.cp.CommittedAt = files, cur.LeaseToken, cur.CommittedAt
	return nil
}

// rowsAfter is the checkpoint's row total once d applies to cp.
func rowsAfter(cp checkpoint.Checkpoint, d checkpoint.CheckpointDelta) int64 {
	rows := cp.Rows
	for _, p := range d.Delete {
		if _, set := d.Set[p]; !set {
			rows -= cp.Files[p].Rows
		}
	}
	for p, fs := range d.Set {
		rows += fs.Rows - cp.Files[p].Rows
	}
	return rows
}

// retainedCounts keeps the counts of snapshots the table still lists.
func retainedCounts(m map[int64]int, src *Source) map[int64]int {
	out := map[int64]int{}
	for _, s := range src.Table.Metadata().Snapshots() {
		if n, ok := m[s.SnapshotID]; ok {
			out[s.SnapshotID] = n
		}
	}
	return out
}

// unitFiles lists the data file paths of units.
func unitFiles(units []plan.Unit) []string {
	var out []string
	for _, u := range units {
		for _, f := range u.Files {
			out = append(out, f.Path)
		}
	}
	return out
}
