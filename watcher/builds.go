package watcher

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher/plan"
)

// batchOutcome is what building one batch of units gave.
type batchOutcome struct {
	built []builtUnit
	// local holds the tarballs of built units that were not uploaded, by
	// unit key (replacing runs push them in one atomic swap).
	local map[string][]pinot.Segment
	// failed are the units that could not be built under
	// continueOnFileError, with their errors.
	failed map[string]error
}

// failedFiles is the set of data files of failed units.
func (o batchOutcome) failedFiles(units []plan.Unit) map[string]bool {
	out := map[string]bool{}
	for _, u := range units {
		if _, bad := o.failed[u.Key]; bad {
			for _, f := range u.Files {
				out[f.Path] = true
			}
		}
	}
	return out
}

// buildBatch builds units: on this replica, or, for a run that adds files
// with a work queue configured, on every replica through the queue.
func (r *runner) buildBatch(ctx context.Context, t target, units []plan.Unit, upload bool) (batchOutcome, error) {
	if upload && r.w.deps.Work != nil && len(units) > 1 {
		return r.buildShared(ctx, t, units)
	}
	return r.buildLocal(ctx, t, units, upload)
}

// buildLocal builds units with bounded parallelism on this replica.
func (r *runner) buildLocal(ctx context.Context, t target, units []plan.Unit, upload bool) (batchOutcome, error) {
	out := batchOutcome{local: map[string][]pinot.Segment{}, failed: map[string]error{}}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.w.opts.BuildParallelism)
	for _, u := range units {
		g.Go(func() error {
			bu, segs, err := r.w.runUnit(gctx, unitJob{
				req: r.buildRequest(t, u), lease: r.keeper.current(), served: t.served, upload: upload,
				confirm: func(context.Context) error { return r.keeper.check("record segments") },
			})
			mu.Lock()
			defer mu.Unlock()
			r.builtBy(r.w.opts.Owner)
			r.fileDone(u, bu.rows)
			if err != nil {
				return r.unitFailed(gctx, &out, u, err)
			}
			out.built = append(out.built, bu)
			if !upload {
				out.local[u.Key] = segs
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		for _, segs := range out.local {
			removeTarballs(segs)
		}
		return batchOutcome{}, err
	}
	slices.SortFunc(out.built, func(a, b builtUnit) int { return strings.Compare(a.unit.Key, b.unit.Key) })
	return out, nil
}

// unitFailed handles a unit's build error: kept aside under
// continueOnFileError (its files keep their old state), else it fails the
// run. A lease problem always fails the run.
func (r *runner) unitFailed(ctx context.Context, out *batchOutcome, u plan.Unit, err error) error {
	ferr := unitError(r.table.Name, u, err)
	r.unitFailedMetric(ctx, u, err)
	if !ContinueOnFileError(r.table.TaskConfig) || ctx.Err() != nil || errors.Is(err, ErrLeaseExpiring) {
		return ferr
	}
	out.failed[u.Key] = ferr
	return nil
}

// unitError names the unit's file (or its first file and how many more).
func unitError(table string, u plan.Unit, err error) error {
	name := u.Key
	if len(u.Files) > 0 {
		name = u.Files[0].Path
		if len(u.Files) > 1 {
			name += " (and " + strconv.Itoa(len(u.Files)-1) + " more small files coalesced with it)"
		}
	}
	return &FileError{Table: table, File: name, Err: err}
}

// buildRequest is the request to build u for target t.
func (r *runner) buildRequest(t target, u plan.Unit) BuildRequest {
	return BuildRequest{
		Table: r.table, Schema: t.schema, TableConfig: t.tc, Source: t.src.Table, SnapshotID: t.plan.SnapshotID,
		Unit: u, SegmentBase: t.bases[u.Key], OutDir: r.dir, MaxRowsPerSegment: r.maxRowsPerSegment(),
		PlannedSegments: t.planned[u.Key], Deletes: &r.w.builders.deletes,
	}
}

// builtBy counts a unit built by builder (a replica's builder id is the
// replica's owner name, a slash and a number).
func (r *runner) builtBy(builder string) {
	if i := strings.LastIndex(builder, "/"); i > 0 {
		builder = builder[:i]
	}
	if r.run.Builders == nil {
		r.run.Builders = map[string]int{}
	}
	r.run.Builders[builder]++
}

// begin opens the run's progress: kept files of the target snapshot are
// already in Pinot, total is all of them.
func (r *runner) begin(kept, total int, batched bool) {
	r.w.startProgress(r.table.Name, kept, total, batched)
	if r.progress != nil {
		r.progress(kept, total)
	}
}

// fileDone reports progress; the caller serialises calls.
func (r *runner) fileDone(u plan.Unit, rows int64) {
	r.run.Rows += rows
	r.w.noteProgress(r.table.Name, len(u.Files), rows)
	if r.progress != nil {
		done, total := r.w.progressOf(r.table.Name)
		r.progress(done, total)
	}
}

// maxRowsPerSegment is the table's cap, else the watcher's.
func (r *runner) maxRowsPerSegment() int64 {
	if v, ok := r.table.TaskConfig[KeyMaxRowsPerSegment]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return r.w.opts.MaxRowsPerSegment
}

// batches cuts units into batches of at most maxFiles data files and
// maxBytes of source data (a unit larger than either is a batch alone).
func batches(units []plan.Unit, maxFiles int, maxBytes int64) [][]plan.Unit {
	var (
		out   [][]plan.Unit
		cur   []plan.Unit
		files int
		bytes int64
	)
	for _, u := range units {
		n, b := len(u.Files), unitBytes(u)
		if len(cur) > 0 && (files+n > maxFiles || bytes+b > maxBytes) {
			out = append(out, cur)
			cur, files, bytes = nil, 0, 0
		}
		cur, files, bytes = append(cur, u), files+n, bytes+b
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func unitBytes(u plan.Unit) int64 {
	var n int64
	for _, f := range u.Files {
		n += f.SizeBytes
	}
	return n
}
