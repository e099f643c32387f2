package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
)

// ErrBuilderPanic: the segment builder panicked on a file.
var ErrBuilderPanic = errors.New("segment builder panicked")

// unitJob is one unit to build and, for runs that add files, upload.
type unitJob struct {
	req BuildRequest
	// lease is the run's lease: uploads are recorded in the ledger under it.
	lease checkpoint.Lease
	// served are segments Pinot already serves: not uploaded again.
	served map[string]bool
	// upload sends the segments to Pinot and removes the local tarballs;
	// without it the tarballs stay for a later atomic replace.
	upload bool
	// confirm is asked right before the ledger record: the run still holds
	// its lease (and, for shared work, the builder its item: W1).
	confirm func(context.Context) error
}

// runUnit builds one unit and, with job.upload, records and uploads its
// segments. Uploads pass the guard in ctx before each request (I4).
func (w *Watcher) runUnit(ctx context.Context, job unitJob) (builtUnit, []pinot.Segment, error) {
	res, err := w.safeBuild(ctx, job.req)
	if err != nil {
		return builtUnit{}, nil, err
	}
	bu := builtUnit{unit: job.req.Unit, rows: res.Rows, fileRows: res.FileRows}
	for _, s := range res.Segments {
		bu.segments = append(bu.segments, s.Name)
	}
	if !job.upload {
		return bu, res.Segments, nil
	}
	defer removeTarballs(res.Segments)
	if n := job.req.PlannedSegments; n > 0 && len(res.Segments) > n {
		// More segments than the open replacement names: an upload of
		// the extra ones would be served at once, beside the old rows.
		// The lease holder sees the names and does not end it (I9).
		return bu, nil, nil
	}
	if err := w.uploadUnit(ctx, job, res.Segments); err != nil {
		return builtUnit{}, nil, err
	}
	return bu, nil, nil
}

// uploadUnit records the unit's segments under the run's lease, then
// uploads those Pinot does not serve yet.
func (w *Watcher) uploadUnit(ctx context.Context, job unitJob, segs []pinot.Segment) error {
	if len(segs) == 0 {
		return nil
	}
	if err := job.confirm(ctx); err != nil {
		return err
	}
	names := make([]string, len(segs))
	for i, s := range segs {
		names[i] = s.Name
	}
	if err := w.deps.Store.RecordSegments(ctx, job.lease, names); err != nil {
		return fmt.Errorf("record segments of %s: %w", job.req.Unit.Key, err)
	}
	w.log.Debug("run phase", slog.String(attrTable, job.req.Table.Name), slog.String("unit", job.req.Unit.Key),
		slog.String("phase", "push"))
	defer w.pushed(job.req.Table.Name, time.Now())
	for _, s := range segs {
		if job.served[s.Name] {
			continue
		}
		if err := w.deps.Uploader.Upload(ctx, job.req.Table.Name, s); err != nil {
			return fmt.Errorf("push segment %s to Pinot: %w", s.Name, err)
		}
	}
	return nil
}

// safeBuild runs the builder on one unit. A panic in the builder (a decoder
// meeting a corrupt file, say) fails that unit like an error does, so one
// bad file can never take the process and other tables down (I6).
func (w *Watcher) safeBuild(ctx context.Context, req BuildRequest) (res BuildResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrBuilderPanic, p)
			w.log.Error("segment builder panicked", slog.String(attrTable, req.Table.Name),
				slog.String("unit", req.Unit.Key), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
		}
	}()
	return w.deps.Builder.Build(ctx, req)
}

func removeTarballs(segs []pinot.Segment) {
	for _, s := range segs {
		_ = os.Remove(s.TarPath)
	}
}
