package watcher

import (
	"context"
	"errors"
	"maps"

	"github.com/floehq/floe/checkpoint"
)

// appendBatches runs a plan that only adds files, batch by batch: build,
// upload, commit. Its remapped groups (P11) commit with the first batch:
// Pinot already holds their segments. Pinot serves each batch as it lands and the checkpoint
// records it (with the backfill's progress), so a restart resumes after
// the last committed batch and local disk holds only the units being
// built. A query meanwhile sees the old snapshot plus a prefix of the new
// snapshot's added files, never a duplicate (docs/ARCHITECTURE.md).
func (r *runner) appendBatches(ctx context.Context, t target) error {
	bs := batches(t.plan.Build, r.w.opts.BatchFiles, r.w.opts.BatchBytes)
	kept := t.plan.KeptFiles
	for _, g := range t.plan.Remaps {
		kept += len(g.Files) // Pinot holds them already
	}
	total := kept + len(unitFiles(t.plan.Build))
	r.begin(kept, total, len(bs) > 1)
	done := kept
	var failed []error
	for i, b := range bs {
		r.phase("build")
		out, err := r.buildBatch(ctx, t, b, true)
		if err != nil {
			return err
		}
		failed = append(failed, r.account(out)...)
		set := map[string]checkpoint.FileState{}
		if i == 0 {
			maps.Copy(set, t.plan.Refresh) // key bounds the plan looked up (kept files)
		}
		for _, bu := range out.built {
			maps.Copy(set, bu.fileStates())
			done += len(bu.unit.Files)
		}
		var progress *checkpoint.Backfill
		if i < len(bs)-1 {
			progress = &checkpoint.Backfill{SnapshotID: t.plan.SnapshotID, MetadataLocation: t.src.MetadataLocation,
				FilesDone: done, FilesTotal: total, RunID: r.run.ID}
		}
		d := checkpoint.CheckpointDelta{Header: r.header(t, progress), Set: set}
		if i == 0 {
			addRemaps(&d, t.plan)
		}
		r.phase("commit")
		if err := r.commitDelta(ctx, d); err != nil {
			return err
		}
		if progress != nil {
			r.w.record(ctx, *r.run) // the history shows the run's progress (kept if it dies)
		}
	}
	if len(bs) == 0 {
		d := checkpoint.CheckpointDelta{Header: r.header(t, nil), Set: maps.Clone(t.plan.Refresh)}
		addRemaps(&d, t.plan)
		r.phase("commit")
		if err := r.commitDelta(ctx, d); err != nil {
			return err
		}
	}
	r.noteFailed(failed)
	return nil
}

// account adds a batch's outcome to the run record and returns the errors
// of the units that failed under continueOnFileError.
func (r *runner) account(out batchOutcome) []error {
	r.converted(out)
	for _, bu := range out.built {
		r.run.SegmentsGenerated += len(bu.segments)
		r.countBuilt(bu)
		r.run.Bytes += unitBytes(bu.unit)
	}
	errs := make([]error, 0, len(out.failed))
	for _, err := range out.failed {
		errs = append(errs, err)
	}
	return errs
}

// noteFailed records units that failed under continueOnFileError.
func (r *runner) noteFailed(failed []error) {
	for _, err := range failed {
		var fe *FileError
		if errors.As(err, &fe) {
			r.run.FilesFailed++
		}
	}
	if len(failed) > 0 {
		r.run.Error = errors.Join(failed...).Error()
	}
}
