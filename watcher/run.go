package watcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher/plan"
)

// ErrNoChange: the table's metadata is what the checkpoint already holds.
var ErrNoChange = errors.New("no new snapshot")

// FileError is a data file that could not be converted.
type FileError struct {
	Table string
	File  string
	Err   error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("table %s: file %s: %v", e.Table, e.File, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// runner executes one run of one table. It holds the table's lease for its
// whole life.
type runner struct {
	w     *Watcher
	table checkpoint.Table
	lease checkpoint.Lease
	run   *checkpoint.Run
	dir   string
	// started is called once the run knows it has work to do.
	started func()
	// progress, when set, hears of every converted file.
	progress Progress
}

// execute does plan → build → push → commit. The caller records the run.
func (r *runner) execute(ctx context.Context) error {
	src, err := r.w.deps.Loader.LoadTable(ctx, r.table)
	if err != nil {
		return fmt.Errorf("load table %s.%s: %w", r.table.Namespace, r.table.Source, err)
	}
	cp, err := r.w.deps.Store.GetCheckpoint(ctx, r.table.Name)
	if err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
		return fmt.Errorf("read checkpoint: %w", err)
	}
	r.run.FromSnapshotID = cp.SnapshotID
	uuid := src.Table.Metadata().TableUUID().String()
	if cp.MetadataLocation != "" && cp.MetadataLocation == src.MetadataLocation && cp.TableUUID == uuid {
		r.run.SnapshotID = cp.SnapshotID
		return ErrNoChange
	}
	if r.started != nil {
		r.started()
	}
	plan, err := r.w.deps.Planner.Plan(ctx, r.table.Name, src.Table, cp)
	if err != nil {
		return err
	}
	r.run.SnapshotID = plan.SnapshotID
	r.run.FilesDiscovered = plan.LiveFiles
	schema, tc, err := r.pinotModel()
	if err != nil {
		return err
	}
	built, err := r.buildAll(ctx, schema, tc, src, plan)
	if err != nil {
		return err
	}
	if err := r.push(ctx, schema, tc, cp, plan, built); err != nil {
		return err
	}
	return r.commit(ctx, cp, src, uuid, plan, built)
}

// pinotModel decodes the schema and table config stored with the table.
func (r *runner) pinotModel() (*pinot.Schema, *pinot.TableConfig, error) {
	var s pinot.Schema
	if err := json.Unmarshal(r.table.SchemaJSON, &s); err != nil {
		return nil, nil, fmt.Errorf("decode stored Pinot schema of %s: %w", r.table.Name, err)
	}
	var tc pinot.TableConfig
	if err := json.Unmarshal(r.table.TableConfigJSON, &tc); err != nil {
		return nil, nil, fmt.Errorf("decode stored table config of %s: %w", r.table.Name, err)
	}
	return &s, &tc, nil
}

// builtFile is the outcome of converting one unit.
type builtFile struct {
	unit     plan.Unit
	segments []pinot.Segment
	rows     int64
}

// buildAll converts every unit of plan.Build with bounded parallelism. A
// failing unit fails the run unless continueOnFileError is set, in which
// case it is left out (its files' old state, if any, stays in the checkpoint).
func (r *runner) buildAll(ctx context.Context, schema *pinot.Schema, tc *pinot.TableConfig, src *Source, plan *plan.Plan) ([]builtFile, error) {
	var (
		mu      sync.Mutex
		out     []builtFile
		failed  []error
		done    int
		skipBad = ContinueOnFileError(r.table.TaskConfig)
	)
	if r.progress != nil {
		r.progress(0, len(plan.Build))
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.w.opts.BuildParallelism)
	for _, u := range plan.Build {
		g.Go(func() error {
			segs, rows, err := r.buildFile(gctx, BuildRequest{
				Table: r.table, Schema: schema, TableConfig: tc, Source: src.Table,
				SnapshotID: plan.SnapshotID, Unit: u, OutDir: r.dir, MaxRowsPerSegment: r.maxRowsPerSegment(),
			})
			mu.Lock()
			defer mu.Unlock()
			if r.progress != nil {
				done++
				r.progress(done, len(plan.Build))
			}
			if err != nil {
				ferr := &FileError{Table: r.table.Name, File: unitName(u), Err: err}
				if skipBad && gctx.Err() == nil {
					failed = append(failed, ferr)
					return nil
				}
				return ferr
			}
			out = append(out, builtFile{unit: u, segments: segs, rows: rows})
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	r.run.FilesFailed = len(failed)
	if len(failed) > 0 {
		r.run.Error = errors.Join(failed...).Error()
	}
	slices.SortFunc(out, func(a, b builtFile) int { return strings.Compare(a.unit.Key, b.unit.Key) })
	for _, b := range out {
		r.run.SegmentsGenerated += len(b.segments)
		r.run.Rows += b.rows
		for _, f := range b.unit.Files {
			r.run.Bytes += f.SizeBytes
		}
	}
	return out, nil
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

// buildFile runs the builder on one file. A panic in the builder (a
// decoder meeting a corrupt file, say) fails that file like an error does,
// so one bad file can never take the process and other tables down (I6).
func (r *runner) buildFile(ctx context.Context, req BuildRequest) (segs []pinot.Segment, rows int64, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrBuilderPanic, p)
			r.w.log.Error("segment builder panicked", slog.String(attrTable, req.Table.Name),
				slog.String("file", unitName(req.Unit)), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
		}
	}()
	return r.w.deps.Builder.Build(ctx, req)
}

// ErrBuilderPanic: the segment builder panicked on a file.
var ErrBuilderPanic = errors.New("segment builder panicked")

// push swaps the segments of changed and dropped files (and any orphans a
// dead run left behind) for the new segments in one atomic replace.
// Segments a dead run already pushed under the same deterministic name are
// reused rather than uploaded again (I2).
func (r *runner) push(ctx context.Context, schema *pinot.Schema, tc *pinot.TableConfig, cp checkpoint.Checkpoint, plan *plan.Plan, built []builtFile) error {
	up := r.w.deps.Uploader
	existing, err := up.ListSegments(ctx, r.table.Name)
	if errors.Is(err, pinot.ErrTableMissing) {
		if err := up.EnsureTable(ctx, schema, tc); err != nil {
			return fmt.Errorf("create Pinot table %s: %w", r.table.Name, err)
		}
		existing, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("list Pinot segments: %w", err)
	}
	from, to := planSwap(existing, segmentPrefix(r.table.Name), cp, plan, built)
	if len(from) == 0 && len(to) == 0 {
		return nil
	}
	r.run.SegmentsDeleted = len(from)
	if err := pinot.Replace(ctx, up, r.table.Name, from, to); err != nil {
		return fmt.Errorf("push segments to Pinot: %w", err)
	}
	return nil
}

// planSwap decides one atomic replace: to holds the built segments Pinot
// lacks (a dead run may have pushed some already, I2); from holds every
// segment of this table's prefix that Pinot has and the new state does not
// keep: those of changed and dropped files and any orphan. Files that
// failed under continueOnFileError keep their old segments.
func planSwap(existing []string, prefix string, cp checkpoint.Checkpoint, plan *plan.Plan, built []builtFile) (from []string, to []pinot.Segment) {
	has := make(map[string]bool, len(existing))
	for _, name := range existing {
		has[name] = true
	}
	keep := map[string]bool{}
	for _, fs := range plan.Keep {
		for _, s := range fs.Segments {
			keep[s] = true
		}
	}
	done := builtPaths(built)
	for _, u := range plan.Build {
		for _, f := range u.Files {
			if old, ok := cp.Files[f.Path]; ok && !done[f.Path] {
				for _, s := range old.Segments {
					keep[s] = true
				}
			}
		}
	}
	for _, b := range built {
		for _, s := range b.segments {
			keep[s.Name] = true
			if !has[s.Name] {
				to = append(to, s)
			}
		}
	}
	for _, name := range existing {
		if !keep[name] && strings.HasPrefix(name, prefix) {
			from = append(from, name)
		}
	}
	return from, to
}

// segmentPrefix is the prefix of every floe segment of the table.
func segmentPrefix(table string) string { return plan.SegmentPrefix(table) }

// builtPaths is the set of files the run converted.
func builtPaths(built []builtFile) map[string]bool {
	out := make(map[string]bool, len(built))
	for _, b := range built {
		for _, f := range b.unit.Files {
			out[f.Path] = true
		}
	}
	return out
}

// commit writes the new checkpoint under the run's lease (I1: only after
// push returned, i.e. Pinot acknowledged every segment).
func (r *runner) commit(ctx context.Context, old checkpoint.Checkpoint, src *Source, uuid string, plan *plan.Plan, built []builtFile) error {
	files := make(map[string]checkpoint.FileState, len(plan.Keep)+len(built))
	for path, fs := range plan.Keep {
		files[path] = fs
	}
	done := builtPaths(built)
	for _, u := range plan.Build { // failed units keep their files' old state
		for _, f := range u.Files {
			if fs, ok := old.Files[f.Path]; ok && !done[f.Path] {
				files[f.Path] = fs
			}
		}
	}
	for _, b := range built {
		names := make([]string, len(b.segments))
		for i, s := range b.segments {
			names[i] = s.Name
		}
		maps.Copy(files, b.unit.FileStates(names, b.rows))
	}
	counts := map[int64]int{}
	for k, v := range old.SnapshotFileCounts {
		counts[k] = v
	}
	if plan.SnapshotID != 0 {
		counts[plan.SnapshotID] = plan.LiveFiles
	}
	cp := checkpoint.Checkpoint{
		Table: r.table.Name, SnapshotID: plan.SnapshotID, SequenceNumber: plan.SequenceNumber,
		MetadataLocation: src.MetadataLocation, TableUUID: uuid, SchemaID: plan.SchemaID,
		Files: files, SnapshotFileCounts: retainedCounts(counts, src), CommittedAt: r.w.clock.Now().UTC(),
		LeaseToken: r.lease.Token,
	}
	if err := r.w.deps.Store.CommitCheckpoint(ctx, r.lease, cp); err != nil {
		return fmt.Errorf("commit checkpoint at snapshot %d: %w", plan.SnapshotID, err)
	}
	return nil
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

// workDir makes the run's scratch directory.
func workDir(root, table, runID string) (string, error) {
	dir := filepath.Join(root, table, runID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create work dir: %w", err)
	}
	return dir, nil
}
