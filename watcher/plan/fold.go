package plan

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
)

// fold computes the live state of the snapshot from the checkpoint's
// files and the changes of every snapshot since the checkpointed one
// (P4). It returns a reason instead when the fold cannot be trusted; the
// caller then runs the full-state diff (P5). Only a cancelled ctx is an
// error: a manifest the fold cannot read is a reason to fall back.
func (j *job) fold(ctx context.Context, cp checkpoint.Checkpoint) (*live, string, error) {
	if reason := j.trust(cp); reason != "" {
		return nil, reason, nil
	}
	between, ok := table.AncestorsBetween(j.snap.SnapshotID, cp.SnapshotID, j.meta.SnapshotByID)
	if !ok {
		return nil, fmt.Sprintf("checkpointed snapshot %d is not an ancestor of snapshot %d "+
			"(rollback, branch reset or expired history)", cp.SnapshotID, j.snap.SnapshotID), nil
	}
	if reason := backfillReason(cp, j.snap.SnapshotID, between); reason != "" {
		return nil, reason, nil
	}
	lv := &live{base: cp.Files, gone: map[string]bool{}, files: map[string]liveFile{}}
	cur, err := j.foldList(ctx)
	if err != nil {
		return foldFailed(ctx, err)
	}
	if err := j.readDeletes(ctx, lv, cur.ms); err != nil {
		return foldFailed(ctx, err)
	}
	lv.headOnly = !cur.whole
	for i := len(between) - 1; i >= 0; i-- { // oldest first
		if err := j.foldSnapshot(ctx, lv, between[i]); err != nil {
			return foldFailed(ctx, err)
		}
	}
	if j.lazy != nil {
		if reason, err := j.resolveBase(ctx, lv); reason != "" || err != nil {
			return nil, reason, err
		}
	}
	if reason := j.countReason(lv, cur); reason != "" {
		return nil, reason, nil
	}
	return lv, "", nil
}

// foldFailed turns a read error of the fold into a reason to fall back,
// unless the plan was cancelled.
func foldFailed(ctx context.Context, err error) (*live, string, error) {
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	return nil, "fold failed: " + err.Error(), nil
}

// trust checks that the checkpoint can be the base of a fold: it has a
// snapshot of this table. (Whether its files carry the partition and data
// sequence number the delete rules need is checked where they are
// needed, in compareFold and buildFiles.)
func (j *job) trust(cp checkpoint.Checkpoint) string {
	if cp.SnapshotID == 0 {
		return "no checkpointed snapshot"
	}
	if uuid := j.meta.TableUUID().String(); cp.TableUUID != uuid {
		return fmt.Sprintf("table UUID changed from %q to %q (table re-created)", cp.TableUUID, uuid)
	}
	return ""
}

// backfillReason: a checkpoint part-way through a backfill holds files of
// the backfill's target snapshot; they fold in only if that snapshot is
// still in the chain being folded.
func backfillReason(cp checkpoint.Checkpoint, current int64, between []table.Snapshot) string {
	if cp.Backfill == nil || cp.Backfill.SnapshotID == current {
		return ""
	}
	for _, s := range between {
		if s.SnapshotID == cp.Backfill.SnapshotID {
			return ""
		}
	}
	return fmt.Sprintf("backfill target snapshot %d is not an ancestor of snapshot %d", cp.Backfill.SnapshotID, current)
}

// foldSnapshot applies the data files snapshot s added and removed: the
// entries whose snapshot id is s's, in the manifests s wrote.
func (j *job) foldSnapshot(ctx context.Context, lv *live, s table.Snapshot) error {
	h, err := j.head(ctx, s)
	if err != nil {
		return err
	}
	if ok, err := j.foldByDifference(ctx, lv, s, h); ok || err != nil {
		return err
	}
	for _, m := range h.ms {
		if m.SnapshotID() != s.SnapshotID || m.ManifestContent() != iceberg.ManifestContentData ||
			(m.AddedDataFiles() == 0 && m.DeletedDataFiles() == 0) {
			continue // carried over, delete files (read whole below) or only EXISTING entries
		}
		es, err := j.entries(ctx, m)
		if err != nil {
			return err
		}
		for _, e := range es {
			if e.snapshotID != s.SnapshotID {
				continue
			}
			path := e.df.FilePath()
			switch e.status {
			case iceberg.EntryStatusADDED:
				lv.files[path] = e.liveFile()
				delete(lv.gone, path)
			case iceberg.EntryStatusDELETED:
				delete(lv.files, path)
				if _, ok := lv.base[path]; ok || j.lazy != nil { // lazy: resolveBase keeps the checkpoint's
					lv.gone[path] = true
				}
			}
		}
	}
	return nil
}

// readDeletes reads the live delete files of the snapshot from all its
// delete manifests (cached: only manifests new since the last plan are
// read), fixes the job's key fields, reads the keys of its equality
// delete files and keeps its data manifests for resolving base files.
// It runs before any data manifest is read (they are read with the key
// fields' bounds).
func (j *job) readDeletes(ctx context.Context, lv *live, ms []iceberg.ManifestFile) error {
	var dels []iceberg.ManifestFile
	for _, m := range ms {
		if m.ManifestContent() == iceberg.ManifestContentData {
			lv.dataManifests = append(lv.dataManifests, m)
		} else {
			dels = append(dels, m)
		}
	}
	all, err := j.readAll(ctx, dels)
	if err != nil {
		return err
	}
	for i, m := range dels {
		for _, e := range all[i] {
			if e.status == iceberg.EntryStatusDELETED {
				continue
			}
			if err := lv.addEntry(m, e); err != nil {
				return err
			}
		}
	}
	j.setKeyFields(lv.deletes)
	return j.loadKeys(ctx, lv.deletes)
}

// foldList is what the fold reads of the current snapshot's manifest
// list: its head when the snapshot's summary says no delete file is live
// and counts the live data files (P13), else the whole list.
func (j *job) foldList(ctx context.Context) (listHead, error) {
	dels, countsDeletes := summaryInt(*j.snap, "total-delete-files")
	total, countsData := summaryInt(*j.snap, "total-data-files")
	if !countsDeletes || dels != 0 || !countsData {
		return j.wholeHead(ctx, *j.snap)
	}
	h, err := j.head(ctx, *j.snap)
	h.total = total
	return h, err
}

// loadDataManifests reads the whole manifest list of the planned snapshot
// into lv.dataManifests when the fold read only its head.
func (j *job) loadDataManifests(ctx context.Context, lv *live) error {
	if !lv.headOnly {
		return nil
	}
	ms, err := j.manifests(ctx, *j.snap)
	if err != nil {
		return err
	}
	lv.dataManifests = lv.dataManifests[:0]
	for _, m := range ms {
		if m.ManifestContent() == iceberg.ManifestContentData {
			lv.dataManifests = append(lv.dataManifests, m)
		}
	}
	lv.headOnly = false
	return nil
}

// countReason checks the fold against the manifest list: the snapshot's
// data manifests count its live data files (its summary's
// total-data-files when the fold read only the list's head, P13). A
// checkpoint that misses a live file (a unit that failed under
// continueOnFileError) or holds one that is not live makes the counts
// differ.
func (j *job) countReason(lv *live, cur listHead) string {
	snapshotID := j.snap.SnapshotID
	if !cur.whole {
		if got := lv.count(); int64(got) != cur.total {
			return fmt.Sprintf("folded %d live data files, the summary of snapshot %d counts %d (checkpoint incomplete)",
				got, snapshotID, cur.total)
		}
		return ""
	}
	var want int64
	for _, m := range cur.ms {
		if m.ManifestContent() != iceberg.ManifestContentData {
			continue
		}
		if m.AddedDataFiles() < 0 || m.ExistingDataFiles() < 0 {
			return fmt.Sprintf("manifest list of snapshot %d does not count its data files", snapshotID)
		}
		want += int64(m.AddedDataFiles()) + int64(m.ExistingDataFiles())
	}
	if got := lv.count(); int64(got) != want {
		return fmt.Sprintf("folded %d live data files, snapshot %d has %d (checkpoint incomplete)", got, snapshotID, want)
	}
	return ""
}
