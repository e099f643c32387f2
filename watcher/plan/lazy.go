package plan

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
)

// Files reads a checkpoint's file map entry by entry: a store's index of
// one table's map (checkpoint.FileIndex).
type Files interface {
	// LookupFiles returns the entries of paths the map holds.
	LookupFiles(ctx context.Context, paths []string) (map[string]checkpoint.FileState, error)
	// SmallUnits returns the units of the partitions parts whose members
	// all record a size and add up to less than below bytes.
	SmallUnits(ctx context.Context, parts []string, below int64) ([]checkpoint.StoredUnit, error)
}

// lazyBase is what a plan from an unread file map knows of it: its counts
// and where to read entries.
type lazyBase struct {
	files  Files
	counts checkpoint.FileCounts
}

// PlanLazy is PlanIndexed of a checkpoint whose file map the caller has not
// read (P14): cp is its header (Files is ignored) and counts the map's
// counts. The plan reads from files only the entries it names: the files
// the snapshots since the checkpoint added or removed and the members of
// the small units a merge takes. It returns them with the plan; they are
// the caller's map of the checkpoint for the run (every entry the plan
// names is among them), and Plan.Keep is nil (KeptFiles counts it). It
// plans only a fold whose snapshots since the checkpoint add and remove
// data files, with no live delete file, no replace snapshot, no backfill
// part-way, no coalesced unit losing a member and no file built with
// deletes or recorded without its data sequence number or partition;
// anything else (or an index that disagrees with the map) returns a reason
// instead, and the caller plans from the whole map. Where it plans, the
// plan is the one PlanIndexed makes from the whole map.
func (p *Planner) PlanLazy(ctx context.Context, tableName string, tbl *table.Table, cp checkpoint.Checkpoint,
	counts checkpoint.FileCounts, files Files) (*Plan, map[string]checkpoint.FileState, string, error) {
	snap := tbl.CurrentSnapshot()
	if snap == nil {
		return nil, nil, "the table has no snapshot", nil
	}
	j, err := p.newJob(ctx, tableName, tbl, snap)
	if err != nil {
		return nil, nil, "", err
	}
	if reason := j.lazyReason(cp, counts); reason != "" {
		return nil, nil, reason, nil
	}
	j.lazy = &lazyBase{files: files, counts: counts}
	cp.Files = map[string]checkpoint.FileState{}
	lv, reason, err := j.fold(ctx, cp)
	if err != nil || reason != "" {
		return nil, nil, reason, err
	}
	if len(lv.deletes) > 0 {
		return nil, nil, "the snapshot has live delete files", nil
	}
	cp.Files = lv.base
	out, reason, err := j.diff(ctx, lv, cp)
	if err != nil || reason != "" {
		return nil, nil, reason, err
	}
	out.Incremental = true
	return out, lv.base, "", nil
}

// lazyReason says why a plan needs the whole file map of cp, whose counts
// are counts ("" when it does not).
func (j *job) lazyReason(cp checkpoint.Checkpoint, counts checkpoint.FileCounts) string {
	if reason := j.trust(cp); reason != "" {
		return reason
	}
	switch {
	case cp.Backfill != nil:
		return "a backfill is part-way"
	case counts.WithDeletes > 0:
		return fmt.Sprintf("%d checkpointed files were built with deletes applied", counts.WithDeletes)
	case j.meta.Version() >= 2 && counts.NoDataSeq > 0:
		return fmt.Sprintf("%d checkpointed files have no data sequence number", counts.NoDataSeq)
	case j.allPartitioned() && counts.Unpartitioned > 0:
		return fmt.Sprintf("%d checkpointed files have no partition", counts.Unpartitioned)
	}
	between, ok := table.AncestorsBetween(j.snap.SnapshotID, cp.SnapshotID, j.meta.SnapshotByID)
	if !ok {
		return "the checkpointed snapshot is not an ancestor"
	}
	for _, s := range between {
		if s.Summary != nil && s.Summary.Operation == table.OpReplace {
			return fmt.Sprintf("snapshot %d is a replace (a remap reads the whole map)", s.SnapshotID)
		}
	}
	return ""
}

// resolveBase reads the checkpoint entries of the files the fold saw added
// or removed: lv.gone held every removed path, it keeps those the
// checkpoint has. A file the checkpoint already holds that the fold saw
// added is a reason to plan from the whole map.
func (j *job) resolveBase(ctx context.Context, lv *live) (string, error) {
	paths := slices.Collect(maps.Keys(lv.gone))
	for path := range lv.files {
		paths = append(paths, path)
	}
	base, err := j.lazy.files.LookupFiles(ctx, paths)
	if err != nil {
		return "", fmt.Errorf("read checkpointed files: %w", err)
	}
	for path := range lv.gone {
		if _, ok := base[path]; !ok {
			delete(lv.gone, path)
		}
	}
	for path := range lv.files {
		if _, ok := base[path]; ok {
			return fmt.Sprintf("file %s is checkpointed and added again", path), nil
		}
	}
	lv.base, lv.size = base, j.lazy.counts.Files
	return "", nil
}

// lazyFallback is an error of a plan from an unread map that is a reason
// to plan from the whole map instead: the index and the map disagree.
type lazyFallback string

func (e lazyFallback) Error() string { return string(e) }

// lazySmallUnits is smallUnits read from the store's index: the small
// units of parts that no file of the run leaves or regroups.
func (j *job) lazySmallUnits(ctx context.Context, c *comparison, parts map[string]bool) (map[string][]*smallUnit, error) {
	stored, err := j.lazy.files.SmallUnits(ctx, slices.Sorted(maps.Keys(parts)), j.p.opts.CoalesceBelowBytes)
	if err != nil {
		return nil, fmt.Errorf("read small units: %w", err)
	}
	return untouched(c, stored), nil
}

// lazyMembers reads the entries of the members of units, the small units
// a merge takes, into cp's map (mergeUnit reads them there). A member the
// map does not hold is a reason to plan from the whole map.
func (j *job) lazyMembers(ctx context.Context, cp checkpoint.Checkpoint, units []*smallUnit) error {
	var paths []string
	for _, u := range units {
		paths = append(paths, u.paths...)
	}
	got, err := j.lazy.files.LookupFiles(ctx, paths)
	if err != nil {
		return fmt.Errorf("read small units' files: %w", err)
	}
	for _, p := range paths {
		fs, ok := got[p]
		if !ok {
			return lazyFallback(fmt.Sprintf("the file index lists file %s in a small unit, the checkpoint does not hold it", p))
		}
		cp.Files[p] = fs
	}
	return nil
}
