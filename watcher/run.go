package watcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/watcher/plan"
)

// ErrNoChange: the table's metadata is what the checkpoint already holds.
var ErrNoChange = errors.New("no new snapshot")

// ErrCheckpointMoved: the stored checkpoint is no longer the one the run
// planned from (another run committed meanwhile); the run stops without
// touching Pinot (I4).
var ErrCheckpointMoved = errors.New("checkpoint changed under the run")

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
// whole life; every change it makes to Pinot passes the lease guard.
type runner struct {
	w      *Watcher
	table  checkpoint.Table
	keeper *leaseKeeper
	run    *checkpoint.Run
	dir    string
	// started is called once the run knows it has work to do.
	started func()
	// progress, when set, hears of every converted file.
	progress Progress
	// base is the stored checkpoint the run builds on; the run's own batch
	// commits move it. Before a destructive change the run re-reads the
	// store and stops if it moved otherwise (I4).
	base checkpoint.CheckpointSummary
	// cp is the checkpoint as the run's commits left it (cached after a
	// successful run); ix holds its indexes, each once built.
	cp checkpoint.Checkpoint
	ix fileIndexes
	// lazy is set while cp's file map holds only the entries the run read
	// (loadIndexed): the store's index answers for the rest.
	lazy *lazyCheckpoint
	// rebuildTag, set by evolveSchema, names the segments of a run that
	// rebuilds the table for a schema change (unitBases).
	rebuildTag string
	// rebuilt are the files the run builds that Pinot held already
	// (describe): their rows are rebuilt, not added.
	rebuilt map[string]bool
}

// execute does load → plan → build → push → commit. The caller records the
// run.
func (r *runner) execute(ctx context.Context) error {
	src, err := r.w.deps.Loader.LoadTable(ctx, r.table)
	if err != nil {
		return fmt.Errorf("load table %s.%s: %w", r.table.Namespace, r.table.Source, err)
	}
	sum, err := r.w.deps.Store.GetCheckpointSummary(ctx, r.table.Name)
	if err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
		return fmt.Errorf("read checkpoint: %w", err)
	}
	r.run.FromSnapshotID = sum.SnapshotID
	r.observe(ctx, src.Table.Metadata(), sum.SnapshotID)
	uuid := src.Table.Metadata().TableUUID().String()
	if sum.Backfill == nil && sum.MetadataLocation != "" && sum.MetadataLocation == src.MetadataLocation && sum.TableUUID == uuid {
		r.run.SnapshotID = sum.SnapshotID
		return ErrNoChange // the table's metadata file is all this run read
	}
	cp, err := r.loadCheckpoint(ctx, sum)
	if err != nil {
		return err
	}
	if r.started != nil {
		r.started()
	}
	planFrom, err := r.evolveSchema(ctx, src, uuid, cp)
	if err != nil {
		return err
	}
	r.phase("plan")
	p, err := r.plan(ctx, src.Table, planFrom)
	if err != nil {
		return fmt.Errorf("plan snapshot of %s: %w", r.table.Name, err)
	}
	cp = r.cp // read whole, or holding the entries a lazy plan read
	r.run.SnapshotID = p.SnapshotID
	r.planned(p)
	r.noteRemaps(p)
	schema, tc, err := r.pinotModel()
	if err != nil {
		return err
	}
	ctx = pinot.WithGuard(ctx, r.keeper.guard)
	existing, err := r.servedSegments(ctx, schema, tc)
	if err != nil {
		return err
	}
	lin, err := r.lineage(ctx)
	if err != nil {
		return err
	}
	bases := r.unitBases(p.Build, lin.Hidden)
	t := target{src: src, uuid: uuid, plan: p, schema: schema, tc: tc, old: cp, served: existing, bases: bases, lineage: lin}
	sw, err := r.planSwap(ctx, t)
	if err != nil {
		return err
	}
	replacing := p.Replacing || len(sw.orphans) > 0 || touchesOpen(p.Build, bases, lin.Open)
	r.describe(t, cp, replacing)
	if replacing {
		err = r.replace(ctx, t, sw)
	} else if t, err = r.revertAbandoned(ctx, t); err == nil {
		err = r.appendBatches(ctx, t)
	}
	if err == nil {
		if r.lazy == nil && !r.w.opts.RunsOnce { // a lazy run's map holds only what it read
			if r.ix.units == nil && r.w.checkpoints.fits(len(r.cp.Files)) { // built by the run that read the map, not the next
				r.ix.units = r.w.deps.Planner.UnitIndex(r.cp.Files)
			}
			r.w.checkpoints.put(r.table.Name, r.cp, r.ix)
		} else { // not cached, so runEnded cannot count it: the store's count after the run's commits
			r.w.metrics.CheckpointFiles(r.table.Name, r.base.FileCount)
		}
		r.observe(ctx, src.Table.Metadata(), r.cp.SnapshotID)
	}
	return err
}

// loadCheckpoint returns the checkpoint the store summarises as sum: this
// replica's cached copy when it committed it last, else the store's, whose
// file map is read whole unless the run plans from the store's file index
// (loadIndexed: the map then starts empty). The run owns the returned file
// map (commitDelta changes it in place).
func (r *runner) loadCheckpoint(ctx context.Context, sum checkpoint.CheckpointSummary) (checkpoint.Checkpoint, error) {
	if cp, ix, ok := r.w.checkpoints.take(r.table.Name, sum); ok { // with its unit index, built before it was put
		r.cp, r.ix, r.base = cp, ix, sum
		return cp, nil
	}
	if cp, ok, err := r.loadIndexed(ctx, sum); ok || err != nil {
		return cp, err
	}
	cp, err := r.w.deps.Store.GetCheckpoint(ctx, r.table.Name)
	if err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
		return cp, fmt.Errorf("read checkpoint: %w", err)
	}
	if cp.Files == nil {
		cp.Files = map[string]checkpoint.FileState{}
	}
	if cp.Rows == 0 { // written before checkpoints kept their row total
		for _, fs := range cp.Files {
			cp.Rows += fs.Rows
		}
	}
	r.cp, r.base = cp, cp.Summary()
	return cp, nil
}

// segmentRefs returns the reference counts of files, the run's
// checkpoint (the map commitDelta keeps them in step with), building them
// on first use.
func (r *runner) segmentRefs(files map[string]checkpoint.FileState) segmentRefs {
	if r.ix.refs == nil {
		r.ix.refs = newSegmentRefs(files)
	}
	return r.ix.refs
}

// unitIndex is the UnitIndex of the checkpoint the run plans from: nil
// when none was built (the first run of a replica, or a run that reads
// the whole map without keeping it, walks the files instead; a run planned
// from the store's file index reads small units there) or when the run
// plans from a changed copy of its checkpoint (a rebuild for a schema
// change).
func (r *runner) unitIndex() *plan.UnitIndex {
	if r.rebuildTag != "" {
		return nil
	}
	return r.ix.units
}

// phase logs the step the run enters (debug level): plan, build, push,
// swap, commit. Crash tests read it to know where a run was killed.
func (r *runner) phase(name string) {
	r.w.enterPhase(r.run.ID, name)
	r.w.log.Debug("run phase", slog.String(attrTable, r.table.Name), slog.String(attrRun, r.run.ID), slog.String("phase", name))
}

// target is what a run works towards and what it starts from.
type target struct {
	src    *Source
	uuid   string
	plan   *plan.Plan
	schema *spec.Schema
	tc     *spec.TableConfig
	old    checkpoint.Checkpoint // the checkpoint planned from
	served map[string]bool       // segments Pinot served when the run began
	bases  map[string]string     // unit key → segment base, where not the key
	// lineage is what Pinot's segment lineage said when the run began
	// (its open replacements: one may be this run's, left by a dead run).
	lineage pinot.Lineage
	// planned caps, by unit key, the segments a unit may upload: set while
	// a streamed replacement is open, whose To list names them (I9).
	planned map[string]int
}

// pinotModel decodes the schema and table config stored with the table.
func (r *runner) pinotModel() (*spec.Schema, *spec.TableConfig, error) {
	var s spec.Schema
	if err := json.Unmarshal(r.table.SchemaJSON, &s); err != nil {
		return nil, nil, fmt.Errorf("decode stored Pinot schema of %s: %w", r.table.Name, err)
	}
	var tc spec.TableConfig
	if err := json.Unmarshal(r.table.TableConfigJSON, &tc); err != nil {
		return nil, nil, fmt.Errorf("decode stored table config of %s: %w", r.table.Name, err)
	}
	return &s, &tc, nil
}

// servedSegments lists what Pinot serves for the table, creating the
// table (and schema) when Pinot has none.
func (r *runner) servedSegments(ctx context.Context, schema *spec.Schema, tc *spec.TableConfig) (map[string]bool, error) {
	up := r.w.deps.Uploader
	names, err := up.ListSegments(ctx, r.table.Name)
	if errors.Is(err, pinot.ErrTableMissing) {
		if err := up.EnsureTable(ctx, schema, tc); err != nil {
			return nil, fmt.Errorf("create Pinot table %s: %w", r.table.Name, err)
		}
		names, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list Pinot segments: %w", err)
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out, nil
}

// recheckBase re-reads the stored checkpoint under the renewed lease and
// fails with ErrCheckpointMoved unless it is still the run's base.
func (r *runner) recheckBase(ctx context.Context) error {
	if err := r.keeper.guard(ctx, pinot.Write{Op: "re-read checkpoint", Table: r.table.Name, Destructive: true}); err != nil {
		return err
	}
	cur, err := r.w.deps.Store.GetCheckpointSummary(ctx, r.table.Name)
	if err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
		return fmt.Errorf("re-read checkpoint: %w", err)
	}
	if !sameCheckpoint(cur, r.base) {
		return fmt.Errorf("%w: planned from snapshot %d (token %d), the store now holds snapshot %d (token %d)",
			ErrCheckpointMoved, r.base.SnapshotID, r.base.LeaseToken, cur.SnapshotID, cur.LeaseToken)
	}
	return nil
}

// sameCheckpoint compares what identifies a commit.
func sameCheckpoint(a, b checkpoint.CheckpointSummary) bool {
	return a.LeaseToken == b.LeaseToken && a.CommittedAt.Equal(b.CommittedAt) && a.SnapshotID == b.SnapshotID &&
		a.MetadataLocation == b.MetadataLocation && a.FileCount == b.FileCount
}

// workDir makes the run's scratch directory under the replica's own part
// of the work directory (removed whole at start-up: a dead run's files).
func workDir(root, owner, table, runID string) (string, error) {
	dir := filepath.Join(root, safeDirName(owner), safeDirName(table), runID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create work dir: %w", err)
	}
	return dir, nil
}

var unsafePathChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// safeDirName turns a name into one path element.
func safeDirName(s string) string {
	return unsafePathChars.ReplaceAllString(s, "_")
}
