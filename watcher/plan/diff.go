package plan

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/floehq/floe/checkpoint"
)

// candidate is a live data file the run must build.
type candidate struct {
	path string
	f    liveFile
	fp   string
}

// comparison is what comparing the live files with the checkpoint found.
type comparison struct {
	pool      []candidate
	leave     map[string]bool // checkpoint files that are not kept
	broken    map[string]bool // coalesced units of the checkpoint that lost or changed a member
	merging   map[string]bool // checkpoint files a merge rebuilds (P10)
	remapped  *remapping      // groups whose new files take over their segments (P11)
	refresh   map[string]checkpoint.FileState
	drop      []string
	live      int
	replacing bool
}

func newComparison(rm *remapping) *comparison {
	return &comparison{leave: map[string]bool{}, broken: map[string]bool{}, merging: map[string]bool{}, remapped: rm}
}

// gone handles a checkpoint file no longer live: a remapped group retires
// it without touching Pinot (P11); else it is dropped.
func (c *comparison) gone(path string, old checkpoint.FileState) {
	if c.remapped.retires(path) {
		c.leave[path] = true
		return
	}
	c.drop = append(c.drop, path)
	c.leaves(path, old)
}

// rebuild puts a live file in the pool; old is its checkpoint state, if
// any, which then is not kept.
func (c *comparison) rebuild(path string, f liveFile, fp string, old checkpoint.FileState, inCheckpoint bool) {
	if inCheckpoint && c.remapped.deletesRewritten(path, f, old.DeleteFingerprint, fp) {
		c.refreshFingerprint(path, old, fp, f.bounds)
		return
	}
	c.pooled(path, f, fp, old, inCheckpoint)
}

// pooled puts a file in the pool of files to build.
func (c *comparison) pooled(path string, f liveFile, fp string, old checkpoint.FileState, inCheckpoint bool) {
	c.pool = append(c.pool, candidate{path: path, f: f, fp: fp})
	if inCheckpoint {
		c.leaves(path, old)
	}
}

// leaves marks a checkpoint file as not kept: Pinot holds it, so the plan
// replaces (P8), and a unit it belongs to is broken (P6).
func (c *comparison) leaves(path string, old checkpoint.FileState) {
	c.leave[path], c.replacing = true, true
	if old.Group != "" {
		c.broken[old.Group] = true
	}
}

// diff compares the live state with the checkpoint. Both planning paths
// end here, so they give the same plan for the same live state (P1). It
// returns a reason instead of a plan when a fold cannot find the manifest
// entries of the checkpointed files it must rebuild, or finds them
// without the partition and data sequence number it needs.
func (j *job) diff(ctx context.Context, lv *live, cp checkpoint.Checkpoint) (*Plan, string, error) {
	classes := j.classes
	if j.p.opts.EqualityDeletesWholePartition {
		classes = nil
	}
	idx, err := newDeleteIndex(lv.deletes, classes)
	if err != nil {
		return nil, "", fmt.Errorf("snapshot %d of table %s: %w", j.snap.SnapshotID, j.tableName, err)
	}
	idx.probe = j.newKeyProbe(ctx, classes)
	h, err := j.history(ctx, cp, lv.removedBy)
	if err != nil {
		return nil, "", err
	}
	rm := j.remap(lv, cp, idx, h)
	out := j.newPlan()
	out.FoldedByDifference = len(lv.removedBy)
	var c *comparison
	if lv.base != nil {
		var (
			reason     string
			unresolved []candidate
		)
		if c, unresolved, reason = j.compareFold(lv, cp, idx, rm); reason != "" {
			return nil, reason, nil
		}
		if reason, err := j.settle(ctx, lv, cp, idx, c, unresolved); reason != "" || err != nil {
			return nil, reason, err
		}
	} else {
		c = compareAll(lv, cp, idx, rm, j.keyIDs)
	}
	if rm != nil {
		reasons := rm.reasons
		if r := rm.deleteRewriteFallback(); r != "" {
			reasons = append(slices.Clone(reasons), r)
		}
		out.Remaps, out.RemapFallback = rm.groups, strings.Join(reasons, "; ")
	}
	if j.lazy != nil && len(c.broken) > 0 {
		return nil, "a coalesced unit lost or changed a member (its members are in the whole map)", nil
	}
	c.regroup(lv, cp)
	if err := j.p.merge(c, lv, cp, j.smallSource(ctx, cp)); err != nil {
		var fb lazyFallback
		if errors.As(err, &fb) {
			return nil, string(fb), nil
		}
		return nil, "", err
	}
	if j.lazy != nil {
		out.KeptFiles = lv.baseSize() - len(c.leave)
	} else {
		out.Keep = keep(lv, cp, c)
		out.KeptFiles = len(out.Keep)
	}
	out.Drop, out.LiveFiles, out.Replacing, out.Merged = c.drop, c.live, c.replacing, len(c.merging)
	for path, fs := range c.refresh {
		if !c.leave[path] { // a file regrouped or merged records its bounds when built
			if out.Refresh == nil {
				out.Refresh = map[string]checkpoint.FileState{}
			}
			out.Refresh[path] = fs
		}
	}
	slices.Sort(out.Drop)
	files, reason, err := j.buildFiles(ctx, lv, idx, c.pool)
	if reason != "" || err != nil {
		return nil, reason, err
	}
	out.Build = j.p.coalesce(j.tableName, files, c.merging)
	out.KeyIndex = idx.probe.Stats()
	return out, "", nil
}

// compareAll compares every live file (full-state diff). A kept file
// whose checkpoint entry lacks the bounds of a key field is refreshed.
func compareAll(lv *live, cp checkpoint.Checkpoint, idx *deleteIndex, rm *remapping, keyIDs []int) *comparison {
	c := newComparison(rm)
	for path, f := range lv.files {
		c.live++
		if rm.owns(path) {
			continue
		}
		fp, _ := idx.fingerprint(path, f.partition, f.dataSeq, f.bounds)
		old, ok := cp.Files[path]
		switch {
		case !ok || old.DeleteFingerprint != fp:
			c.rebuild(path, f, fp, old, ok)
		case !recordsAll(old.KeyBounds, keyIDs):
			c.refreshBounds(path, old, f.bounds)
		}
	}
	for path, old := range cp.Files {
		if _, ok := lv.files[path]; !ok {
			c.gone(path, old)
		}
	}
	return c
}

// compareFold compares the files the fold read from manifests, the
// checkpoint files it removed, and those checkpoint files whose
// fingerprint can have changed: the ones a live delete file may apply to
// and the ones that had delete files. Every other checkpoint file is kept
// without work, so a plan that only adds files costs one pass over the
// checkpoint. A checkpoint written before files recorded their data
// sequence number and partition is not folded (P5): the full-state diff
// records them. Checkpoint files whose recorded key bounds lack a field an
// equality delete that reaches them compares are returned unresolved
// (settle decides them from their manifest entries).
func (j *job) compareFold(lv *live, cp checkpoint.Checkpoint, idx *deleteIndex, rm *remapping) (*comparison, []candidate, string) {
	c := newComparison(rm)
	c.leave = make(map[string]bool, len(lv.gone)) // every gone file leaves
	c.live = lv.baseSize() - len(lv.gone)
	var unresolved []candidate
	for path, f := range lv.files {
		old, ok := cp.Files[path]
		if !ok {
			c.live++
		}
		if rm.owns(path) {
			continue
		}
		fp, _ := idx.fingerprint(path, f.partition, f.dataSeq, f.bounds)
		if !ok || old.DeleteFingerprint != fp {
			c.rebuild(path, f, fp, old, ok)
		}
	}
	for path := range lv.gone {
		if rm.retires(path) { // most files of a compaction: no need of their entries
			c.leave[path] = true
			continue
		}
		c.gone(path, cp.Files[path])
	}
	seqs, parts, noDeletes := j.meta.Version() >= 2, j.allPartitioned(), idx.empty()
	if j.lazy != nil { // the counts showed every file would be skipped (lazyReason, no live delete file)
		return c, nil, ""
	}
	for path, fs := range cp.Files {
		if seqs && fs.DataSeq < 1 || parts && fs.Partition == "" {
			return nil, nil, fmt.Sprintf("checkpoint has no data sequence number or partition for file %s "+
				"(written before they were recorded)", path)
		}
		if fs.DeleteFingerprint == "" && (noDeletes || !idx.mayApply(path, fs.Partition)) {
			continue
		}
		if _, ok := lv.files[path]; ok || lv.gone[path] {
			continue
		}
		f := liveFile{partition: fs.Partition, dataSeq: fs.DataSeq, size: fs.SizeBytes, bounds: fs.KeyBounds}
		fp, known := idx.fingerprint(path, fs.Partition, fs.DataSeq, fs.KeyBounds)
		switch {
		case !known:
			unresolved = append(unresolved, candidate{path: path, f: f})
		case fp != fs.DeleteFingerprint:
			c.rebuild(path, f, fp, fs, true)
		}
	}
	return c, unresolved, ""
}

// settle decides the checkpoint files compareFold could not from their
// recorded key bounds (recorded before an equality delete compared those
// fields): it looks up their manifest entries, as resolve does for files
// to rebuild, and rebuilds those whose fingerprint changed.
func (j *job) settle(ctx context.Context, lv *live, cp checkpoint.Checkpoint, idx *deleteIndex, c *comparison,
	unresolved []candidate) (string, error) {
	if len(unresolved) == 0 {
		return "", nil
	}
	resolved, reason, err := j.resolve(ctx, lv, unresolved)
	if reason != "" || err != nil {
		return reason, err
	}
	slices.SortFunc(unresolved, func(a, b candidate) int { return strings.Compare(a.path, b.path) })
	for _, u := range unresolved {
		e := resolved[u.path]
		if e.partition != u.f.partition || e.seq != u.f.dataSeq {
			return mismatch(u, e), nil
		}
		fs := cp.Files[u.path]
		if fp, _ := idx.fingerprint(u.path, e.partition, e.seq, e.bounds); fp != fs.DeleteFingerprint {
			c.rebuild(u.path, e.liveFile(), fp, fs, true)
			continue
		}
		c.refreshBounds(u.path, fs, e.bounds)
	}
	return "", nil
}

// refreshBounds records a kept file's key bounds read from its manifest
// entry (Plan.Refresh).
func (c *comparison) refreshBounds(path string, fs checkpoint.FileState, kb checkpoint.KeyBounds) {
	if c.refresh == nil {
		c.refresh = map[string]checkpoint.FileState{}
	}
	fs.KeyBounds = kb
	c.refresh[path] = fs
}

// recordsAll reports whether kb records every one of ids.
func recordsAll(kb checkpoint.KeyBounds, ids []int) bool {
	for _, id := range ids {
		if _, ok := kb[id]; !ok {
			return false
		}
	}
	return true
}

// mismatch is the reason to fall back when a checkpointed file's manifest
// entry disagrees with the checkpoint.
func mismatch(c candidate, e entry) string {
	return fmt.Sprintf("checkpoint has partition %q, data sequence number %d for file %s; the snapshot has %q, %d",
		c.f.partition, c.f.dataSeq, c.path, e.partition, e.seq)
}

// regroup puts the kept members of broken coalesced units in the pool: a
// unit whose member changed or went away is rebuilt from its remaining
// live members (P6).
func (c *comparison) regroup(lv *live, cp checkpoint.Checkpoint) {
	if len(c.broken) == 0 {
		return
	}
	for path, fs := range cp.Files {
		if fs.Group == "" || !c.broken[fs.Group] || c.leave[path] || !lv.has(path) {
			continue
		}
		c.rebuildKept(path, fs, lv)
	}
}

// rebuildKept puts a checkpointed file that is live and unchanged in the
// pool (its unit is rebuilt), as the snapshot has it when the plan read
// its manifest entry, else as the checkpoint recorded it.
func (c *comparison) rebuildKept(path string, fs checkpoint.FileState, lv *live) {
	f, ok := lv.files[path]
	if !ok {
		f = liveFile{partition: fs.Partition, dataSeq: fs.DataSeq, size: fs.SizeBytes}
	}
	fp := fs.DeleteFingerprint
	if r, ok := c.refresh[path]; ok { // delete files rewritten: built, it records the new fingerprint
		fp = r.DeleteFingerprint
	}
	c.pooled(path, f, fp, fs, true)
}

// keep is the checkpoint's files minus those not kept, with the partition
// and data sequence number the snapshot has for files read from
// manifests. When every checkpoint file is kept as recorded it is the
// checkpoint's own map (read only): no copy of a large table's map for a
// plan that only adds files.
func keep(lv *live, cp checkpoint.Checkpoint, c *comparison) map[string]checkpoint.FileState {
	stale := func(path string, fs checkpoint.FileState) (liveFile, bool) {
		f, ok := lv.files[path]
		return f, ok && (f.partition != fs.Partition || f.dataSeq != fs.DataSeq)
	}
	if len(c.leave) == 0 && cp.Files != nil {
		clean := true
		for path := range lv.files {
			if fs, ok := cp.Files[path]; ok {
				if _, isStale := stale(path, fs); isStale {
					clean = false
					break
				}
			}
		}
		if clean {
			return cp.Files
		}
	}
	out := make(map[string]checkpoint.FileState, max(0, len(cp.Files)-len(c.leave))) // c.leave are checkpoint files
	for path, fs := range cp.Files {
		if c.leave[path] {
			continue
		}
		if f, ok := stale(path, fs); ok {
			fs.Partition, fs.DataSeq = f.partition, f.dataSeq
		}
		out[path] = fs
	}
	return out
}

// buildFiles turns the pool into Files with their scan tasks. Files the
// fold knows only from the checkpoint are looked up in the snapshot's
// manifests first.
func (j *job) buildFiles(ctx context.Context, lv *live, idx *deleteIndex, pool []candidate) ([]File, string, error) {
	resolved, reason, err := j.resolve(ctx, lv, pool)
	if reason != "" || err != nil {
		return nil, reason, err
	}
	out := make([]File, 0, len(pool))
	for _, c := range pool {
		if c.f.df == nil {
			e := resolved[c.path]
			if e.partition != c.f.partition || e.seq != c.f.dataSeq {
				return nil, mismatch(c, e), nil
			}
			c.f.df, c.f.bounds = e.df, e.bounds
		}
		df := c.f.df
		out = append(out, File{
			Path: c.path, Tasks: tasksOf(idx.task(df, c.f.partition, c.f.dataSeq, c.f.bounds)), DeleteFingerprint: c.fp,
			Partition: c.f.partition, DataSeq: c.f.dataSeq, Rows: df.Count(), SizeBytes: df.FileSizeBytes(),
			KeyBounds: c.f.bounds,
		})
	}
	return out, "", nil
}
