package plan

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
)

// File is one live data file of the snapshot that a unit builds.
type File struct {
	Path string
	// Tasks are the file's scan tasks with the delete files that apply
	// attached (one task spanning the whole file).
	Tasks []table.FileScanTask
	// DeleteFingerprint identifies the delete files that apply ("" none).
	DeleteFingerprint string
	// Partition is the canonical partition key, spec id included ("" when
	// the file's spec is unpartitioned).
	Partition string
	// DataSeq is the file's data sequence number.
	DataSeq int64
	// Rows is the file's record count (before deletes).
	Rows      int64
	SizeBytes int64
	// KeyBounds are the file's bounds of the table's key fields (P2),
	// recorded in its checkpoint entry.
	KeyBounds checkpoint.KeyBounds
}

// Unit is what one build turns into segments: one data file, or several
// small files of one partition coalesced (P6). Its segments are Key_0,
// Key_1, ...
type Unit struct {
	Key   string
	Files []File
}

// SegmentName is the name of the unit's segment idx.
func (u Unit) SegmentName(idx int) string { return fmt.Sprintf("%s_%d", u.Key, idx) }

// Coalesced reports whether the unit holds several files.
func (u Unit) Coalesced() bool { return len(u.Files) > 1 }

// FileStates returns the checkpoint entries of the unit's files once it
// was built into segments holding rows rows. Every file lists the unit's
// segments; a coalesced unit's files carry its key as Group, and its rows
// are recorded on its first file (the others record 0), so that the rows
// of a checkpoint still add up.
func (u Unit) FileStates(segments []string, rows int64) map[string]checkpoint.FileState {
	out := make(map[string]checkpoint.FileState, len(u.Files))
	for i, f := range u.Files {
		fs := checkpoint.FileState{
			DeleteFingerprint: f.DeleteFingerprint, Segments: slices.Clone(segments), SizeBytes: f.SizeBytes,
			Partition: f.Partition, DataSeq: f.DataSeq, KeyBounds: f.KeyBounds,
		}
		if i == 0 {
			fs.Rows = rows
		}
		if u.Coalesced() {
			fs.Group = u.Key
		}
		out[f.Path] = fs
	}
	return out
}

// Plan is what a run must do to make Pinot match the snapshot.
type Plan struct {
	SnapshotID     int64
	SequenceNumber int64
	SchemaID       int
	// Build are the units to build, sorted by Key.
	Build []Unit
	// Keep are files Pinot already holds as they should be, with the
	// checkpoint's state (Partition and DataSeq refreshed from the
	// snapshot). Read only: when every checkpointed file is kept as
	// recorded it is the checkpoint's own Files map.
	// Nil in a plan from an unread file map (PlanLazy).
	Keep map[string]checkpoint.FileState
	// KeptFiles counts the files kept (len(Keep) when Keep is set).
	KeptFiles int
	// Drop are files of the checkpoint no longer live (sorted), except
	// those a remapped group retires.
	Drop []string
	// Remaps are the groups of checkpointed files that replace snapshots
	// rewrote and whose new files take over their segments: nothing is
	// built or pushed for them (P11). Sorted by their first old file.
	Remaps []Remap
	// RemapFallback says why groups that replace snapshots rewrote are
	// rebuilt instead of remapped ("" when none is).
	RemapFallback string
	// Refresh are kept files whose checkpoint entry should record key
	// bounds the plan had to read from their manifests (P2): the entry as
	// kept, KeyBounds replaced. A run writes them with its commit, so
	// later plans decide those files from the checkpoint alone.
	Refresh map[string]checkpoint.FileState
	// Replacing: Build or Drop touch something Pinot holds (a dropped
	// file, a changed file, a regrouped or merged member), so the run must swap
	// atomically. Pure additions leave it false.
	Replacing bool
	// LiveFiles counts the data files of the snapshot.
	LiveFiles int
	// Merged counts the checkpoint files in Build that a merge of small
	// units packs again (P10): unchanged, rebuilt only to merge.
	Merged int
	// Incremental: planned by folding the manifests added since the
	// checkpoint (false: full-state diff).
	Incremental bool
	// Fallback says why the full-state diff ran ("" when Incremental, or
	// when the table has no snapshot).
	Fallback string
	// KeyIndex counts the plan's use of data files' key indexes (P12).
	KeyIndex KeyIndexStats
	// FoldedByDifference counts the snapshots whose removed data files
	// the fold found as the files no longer live, without reading their
	// manifests of DELETED entries (P15).
	FoldedByDifference int
}

// Options tune a Planner.
type Options struct {
	// CoalesceBelowBytes: data files smaller than this are coalesced
	// with other small files of their partition into one unit (0: never).
	CoalesceBelowBytes int64
	// TargetSegmentBytes caps the data file bytes of a coalesced unit
	// (0: DefaultTargetSegmentBytes; never below CoalesceBelowBytes).
	TargetSegmentBytes int64
	// MergeSmallUnits: when one size tier of a partition holds this many
	// checkpointed units smaller than CoalesceBelowBytes, a run packs them
	// again into one (P10; 0: never).
	MergeSmallUnits int
	// CacheBytes bounds the cache of decoded manifests and manifest lists
	// (and of equality delete keys) shared by every plan of the Planner
	// (0: DefaultCacheBytes; negative: no cache).
	CacheBytes int64
	// EqualityDeletesWholePartition applies every equality delete to
	// every older file of its partition, whatever its keys, as floe did
	// before it compared keys with key bounds (P2). For benchmarks that
	// measure the difference; never set in production.
	EqualityDeletesWholePartition bool
	// KeyIndexDir keeps data files' key indexes across processes (P12;
	// "": in the cache only, rebuilt by each process on demand).
	KeyIndexDir string
	// NoKeyIndex decides equality deletes by key bounds alone, as floe
	// did before it kept key indexes. For benchmarks that measure the
	// difference; never set in production.
	NoKeyIndex bool
}

// Defaults.
const (
	DefaultCacheBytes         = 64 << 20
	DefaultTargetSegmentBytes = 256 << 20
)

// Planner plans runs. It caches immutable manifests (by path) across the
// plans of every table it serves; it is safe for concurrent use.
type Planner struct {
	opts  Options
	cache *cache
}

// New returns a Planner.
func New(opts Options) *Planner {
	if opts.CacheBytes == 0 {
		opts.CacheBytes = DefaultCacheBytes
	}
	if opts.TargetSegmentBytes <= 0 {
		opts.TargetSegmentBytes = DefaultTargetSegmentBytes
	}
	opts.TargetSegmentBytes = max(opts.TargetSegmentBytes, opts.CoalesceBelowBytes)
	return &Planner{opts: opts, cache: newCache(opts.CacheBytes)}
}

// Plan diffs the table's current snapshot against the checkpoint. It
// folds the manifests added since the checkpointed snapshot when that is
// an ancestor and the checkpoint can be trusted, else it diffs the full
// live state; both give the same plan (P1).
func (p *Planner) Plan(ctx context.Context, tableName string, tbl *table.Table, cp checkpoint.Checkpoint) (*Plan, error) {
	return p.PlanIndexed(ctx, tableName, tbl, cp, nil)
}

// PlanIndexed is Plan with idx, the UnitIndex of cp's files (nil: none),
// which lets a merge find the small units of the partitions the run
// builds without walking every file of cp; an index made for other
// Options is not used. The plan is the same either way.
func (p *Planner) PlanIndexed(ctx context.Context, tableName string, tbl *table.Table, cp checkpoint.Checkpoint,
	idx *UnitIndex) (*Plan, error) {
	snap := tbl.CurrentSnapshot()
	if snap == nil {
		return dropAll(cp), nil
	}
	return p.planSnapshot(ctx, tableName, tbl, snap, cp, idx)
}

// planSnapshot is PlanIndexed of snapshot snap of tbl.
func (p *Planner) planSnapshot(ctx context.Context, tableName string, tbl *table.Table, snap *table.Snapshot,
	cp checkpoint.Checkpoint, idx *UnitIndex) (*Plan, error) {
	j, err := p.newJob(ctx, tableName, tbl, snap)
	if err != nil {
		return nil, err
	}
	if idx != nil && idx.below == p.opts.CoalesceBelowBytes {
		j.units = idx
	}
	var out *Plan
	lv, reason, err := j.fold(ctx, cp)
	if err == nil && reason == "" {
		out, reason, err = j.diff(ctx, lv, cp)
	}
	if err != nil {
		return nil, err
	}
	if reason != "" {
		if lv, err = j.full(ctx); err != nil {
			return nil, err
		}
		if out, _, err = j.diff(ctx, lv, cp); err != nil {
			return nil, err
		}
		out.Fallback = reason
	}
	out.Incremental = reason == ""
	return out, nil
}

// dropAll is the plan of a table without a snapshot: nothing is live.
func dropAll(cp checkpoint.Checkpoint) *Plan {
	out := &Plan{Keep: map[string]checkpoint.FileState{}}
	for path := range cp.Files {
		out.Drop = append(out.Drop, path)
	}
	slices.Sort(out.Drop)
	out.Replacing = len(out.Drop) > 0
	return out
}
