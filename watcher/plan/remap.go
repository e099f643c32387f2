package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
)

// Remap is a group of checkpointed files that replace snapshots rewrote
// (a compaction) into new files: the new files take over the group's
// segments, which Pinot keeps as they are (P11).
type Remap struct {
	// Key is the group's key, the Group of its new files.
	Key string
	// Old are the checkpointed files the group retires (sorted).
	Old []string
	// Files are the checkpoint entries of the new files.
	Files map[string]checkpoint.FileState
	// Segments are the segments the new files own (sorted).
	Segments []string
	// Rows is what the segments hold.
	Rows int64
}

// replaceStep is what one replace snapshot did to the data files: the
// files it removed and added, each with its partition key.
type replaceStep struct {
	id             int64
	removed, added []stepFile
	// delRemoved and delAdded are the delete files it removed and added
	// (rewrite_position_delete_files, deletes folded into a compaction).
	delRemoved []liveDelete
	delAdded   map[string]bool
}

// stepFile is a data file a replace step removed or added: its path, its
// partition key, and its number in the history's file table (index).
type stepFile struct {
	path, partition string
	id              int32
}

// history is what the snapshots since the checkpointed one did, as far as
// remapping needs: every snapshot's operation and the data files of each
// replace snapshot, oldest first. It is read the same way whichever path
// plans (P1): from the snapshot chain and the manifests the replace
// snapshots wrote (which a fold reads anyway).
type history struct {
	ops   map[int64]table.Operation
	steps []replaceStep
	// files numbers every data file of the steps (and, once linked, the
	// checkpoint files of the units they touch) and records the step that
	// added or removed it.
	files fileTable
	// delAdded are the delete files replace steps added; delRemoved those
	// they removed that no earlier step added (deletes Pinot's rows
	// reflect, when the checkpoint held them).
	delAdded   map[string]bool
	delRemoved []*liveDelete
	// reason says why no group is remapped although replace snapshots
	// are in the chain ("" when steps hold them all).
	reason string
}

// history reads the replace snapshots since the checkpoint; removedBy are
// the data files the fold found some of them removed (P15), which it does
// not read again. It returns nil
// when nothing can be remapped: no checkpoint, another table, a backfill
// part-way, or a checkpointed snapshot that is not an ancestor (the rows
// Pinot holds cannot be traced to the current files).
func (j *job) history(ctx context.Context, cp checkpoint.Checkpoint, removedBy map[int64][]stepFile) (*history, error) {
	if cp.SnapshotID == 0 || cp.Backfill != nil || cp.TableUUID != j.meta.TableUUID().String() {
		return nil, nil
	}
	between, ok := table.AncestorsBetween(j.snap.SnapshotID, cp.SnapshotID, j.meta.SnapshotByID)
	if !ok {
		return nil, nil
	}
	h := &history{ops: make(map[int64]table.Operation, len(between))}
	for i := len(between) - 1; i >= 0; i-- {
		s := between[i]
		var op table.Operation
		if s.Summary != nil {
			op = s.Summary.Operation
		}
		h.ops[s.SnapshotID] = op
		if op != table.OpReplace || h.reason != "" {
			continue
		}
		step, err := j.replaceStep(ctx, s, removedBy)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			h.steps, h.reason = nil, fmt.Sprintf("read replace snapshot %d: %v", s.SnapshotID, err)
			continue
		}
		if len(step.removed)+len(step.added)+len(step.delRemoved)+len(step.delAdded) > 0 {
			h.steps = append(h.steps, step)
		}
	}
	h.index()
	return h, nil
}

// index numbers the steps' files and records the step that added or
// removed each (the latest, as steps are oldest first).
func (h *history) index() {
	n := 0
	for _, s := range h.steps {
		n += len(s.removed) + len(s.added)
	}
	h.files, h.delAdded = newFileTable(n), map[string]bool{}
	for i := range h.steps {
		s := &h.steps[i]
		for j := range s.delRemoved {
			if d := &s.delRemoved[j]; !h.delAdded[d.path] {
				h.delRemoved = append(h.delRemoved, d)
			}
		}
		for p := range s.delAdded {
			h.delAdded[p] = true
		}
		for k := range s.added {
			id := h.files.add(s.added[k].path)
			s.added[k].id, h.files.addedAt[id] = id, int32(i)
		}
		for k := range s.removed {
			id := h.files.add(s.removed[k].path)
			s.removed[k].id, h.files.removedAt[id] = id, int32(i)
		}
	}
}

// replaceStep reads the data files snapshot s removed and added: the
// entries of s in the data manifests s wrote (as foldSnapshot does). When
// the fold found the files s removed by difference (removedBy holds s), it
// takes those and reads no manifest of only DELETED data entries.
func (j *job) replaceStep(ctx context.Context, s table.Snapshot, removedBy map[int64][]stepFile) (replaceStep, error) {
	step := replaceStep{id: s.SnapshotID, delAdded: map[string]bool{}}
	h, err := j.head(ctx, s)
	if err != nil {
		return step, err
	}
	removed, derived := removedBy[s.SnapshotID]
	if derived {
		step.removed = slices.Clone(removed)
	}
	for _, m := range h.ms {
		data := m.ManifestContent() == iceberg.ManifestContentData
		if m.SnapshotID() != s.SnapshotID || (m.AddedDataFiles() == 0 && m.DeletedDataFiles() == 0) ||
			(derived && data && m.AddedDataFiles() == 0) {
			continue
		}
		es, err := j.entries(ctx, m)
		if err != nil {
			return step, err
		}
		if data {
			step.added = slices.Grow(step.added, presize(m.AddedDataFiles()))
			if !derived {
				step.removed = slices.Grow(step.removed, presize(m.DeletedDataFiles()))
			}
		}
		for _, e := range es {
			if e.snapshotID != s.SnapshotID || (derived && data && e.status == iceberg.EntryStatusDELETED) {
				continue
			}
			if err := step.record(m.ManifestContent(), e); err != nil {
				return step, err
			}
		}
	}
	return step, nil
}

// record notes an entry the step's snapshot wrote.
func (step *replaceStep) record(content iceberg.ManifestContent, e entry) error {
	path := e.df.FilePath()
	switch {
	case content == iceberg.ManifestContentData && e.status == iceberg.EntryStatusADDED:
		step.added = append(step.added, stepFile{path: path, partition: e.partition})
	case content == iceberg.ManifestContentData && e.status == iceberg.EntryStatusDELETED:
		step.removed = append(step.removed, stepFile{path: path, partition: e.partition})
	case e.status == iceberg.EntryStatusADDED:
		step.delAdded[path] = true
	case e.status == iceberg.EntryStatusDELETED:
		d, err := newLiveDelete(e)
		if err != nil {
			return err
		}
		step.delRemoved = append(step.delRemoved, d)
	}
	return nil
}

// remapping is what remap found: the groups remapped and, for the groups
// that could not be, why.
type remapping struct {
	groups []Remap
	// files is the history's file table; old and new mark, by its
	// numbers, the checkpointed files the groups retire and the live
	// files they own.
	files    *fileTable
	old, new []bool
	reasons  []string
	// h and idx decide rewritten delete files (remap_deletes.go); the
	// reasons they could not be trusted are by data file.
	h              *history
	idx            *deleteIndex
	rewriteReasons map[string]string
}

func (rm *remapping) retires(path string) bool { return rm != nil && rm.files.marked(rm.old, path) }
func (rm *remapping) owns(path string) bool    { return rm != nil && rm.files.marked(rm.new, path) }

// remap finds the groups of files the replace snapshots since the
// checkpoint rewrote and checks each before trusting it (P11). Files of
// one replace snapshot and one partition form a group with every file of
// the checkpoint's units they touch, and groups that share a file (a
// later compaction of a compaction's output) join.
func (j *job) remap(lv *live, cp checkpoint.Checkpoint, idx *deleteIndex, h *history) *remapping {
	if h == nil || (len(h.steps) == 0 && h.reason == "") {
		return nil
	}
	rm := &remapping{h: h, idx: idx, rewriteReasons: map[string]string{}}
	if h.reason != "" {
		rm.reasons = append(rm.reasons, h.reason)
		return rm
	}
	comps := h.link(cp)
	rm.files = &h.files
	rm.old, rm.new = make([]bool, len(h.files.paths)), make([]bool, len(h.files.paths))
	for _, comp := range comps {
		g := h.files.split(comp, lv)
		r, reason := j.remapGroup(g, lv, idx, h)
		switch {
		case reason != "":
			rm.reasons = append(rm.reasons, reason)
		case r != nil:
			rm.groups = append(rm.groups, *r)
			for _, id := range g.old {
				rm.old[id] = true
			}
			for _, id := range g.fresh {
				rm.new[id] = true
			}
		}
	}
	return rm
}

// groupFiles sorts the files of one component, by their numbers in the
// history's file table, each in path order.
type groupFiles struct {
	old, kept, fresh, between []int32 // in the checkpoint and gone / live; not in it and live / gone
}

func (ft *fileTable) split(comp []int32, lv *live) groupFiles {
	var g groupFiles
	for _, id := range comp {
		inCP := ft.inCP[id]
		switch live := lv.has(ft.paths[id]); {
		case inCP && !live:
			g.old = append(g.old, id)
		case inCP:
			g.kept = append(g.kept, id)
		case live:
			g.fresh = append(g.fresh, id)
		default:
			g.between = append(g.between, id)
		}
	}
	return g
}

// remapGroup checks one component and returns its Remap, nil when there
// is nothing to remap (no checkpointed file or no new file in it), or the
// reason the component is rebuilt instead.
func (j *job) remapGroup(g groupFiles, lv *live, idx *deleteIndex, h *history) (*Remap, string) {
	ft := &h.files
	if len(g.old) == 0 {
		return nil, "" // nothing Pinot holds: the new files are built
	}
	if len(g.kept) > 0 {
		return nil, fmt.Sprintf("the compaction of %s rewrote only part of its unit (%s stays)",
			ft.paths[g.old[0]], ft.paths[g.kept[0]])
	}
	if reason := h.lineage(g); reason != "" {
		return nil, reason
	}
	if len(g.fresh) == 0 {
		return nil, ft.emptied(g.old)
	}
	out, newRows, reason := j.remapFiles(g, lv, idx, h)
	if reason != "" {
		return nil, reason
	}
	segs := map[string]bool{}
	out.Old = make([]string, len(g.old))
	for i, id := range g.old {
		out.Old[i] = ft.paths[id]
		out.Rows += ft.rows[id]
		for _, s := range ft.segments[id] {
			segs[s] = true
		}
	}
	if out.Rows != newRows {
		return nil, fmt.Sprintf("%d files rewritten as replace hold %d rows in Pinot, their %d new files %d "+
			"(a snapshot labelled replace changed rows)", len(g.old), out.Rows, len(g.fresh), newRows)
	}
	out.Segments = slices.Sorted(maps.Keys(segs))
	out.Key = remapKey(j.tableName, out.Files)
	shareOut(out, ft.pathsOf(g.fresh))
	return out, ""
}

// remapFiles makes the checkpoint entries of a group's new files and
// sums their rows, or says why the group is rebuilt: its new files span
// partitions, or their deletes cannot be counted or decided.
func (j *job) remapFiles(g groupFiles, lv *live, idx *deleteIndex, h *history) (*Remap, int64, string) {
	ft := &h.files
	part := lv.files[ft.paths[g.fresh[0]]].partition
	out := &Remap{Files: make(map[string]checkpoint.FileState, len(g.fresh))}
	var newRows int64
	for _, id := range g.fresh {
		path := ft.paths[id]
		f := lv.files[path]
		if f.partition != part {
			return nil, 0, fmt.Sprintf("the compaction of %s moved rows between partitions", ft.paths[g.old[0]])
		}
		rows, reason := h.rowsAfterDeletes(path, f, idx)
		if reason != "" {
			return nil, 0, reason
		}
		newRows += rows
		fp, known := idx.fingerprint(path, f.partition, f.dataSeq, f.bounds)
		if !known {
			return nil, 0, fmt.Sprintf("the key bounds of compacted file %s do not decide which equality deletes reach it", path)
		}
		out.Files[path] = checkpoint.FileState{DeleteFingerprint: fp, Rows: rows, SizeBytes: f.size,
			Partition: f.partition, DataSeq: f.dataSeq, KeyBounds: f.bounds}
	}
	return out, newRows, ""
}

// shareOut gives the group's segments to its new files in order, each
// segment to one file (sorted by path, a contiguous share each), so that
// the checkpoint's entries grow with the group's segments, not with
// segments × files (10,000 files compacted into 100 would otherwise list
// a million names). Every use of a file's segments takes the union over
// the files it retires or keeps, and a group is always rebuilt whole, so
// the shares add up to the group.
func shareOut(g *Remap, files []string) {
	n, k := len(files), len(g.Segments)
	for i, path := range files {
		fs := g.Files[path]
		fs.Group = g.Key
		fs.Segments = slices.Clone(g.Segments[i*k/n : (i+1)*k/n])
		g.Files[path] = fs
	}
}

// emptied is the reason for a group of checkpointed files that replace
// snapshots removed without new files: none when they held no row (the
// drop changes nothing Pinot serves).
func (ft *fileTable) emptied(old []int32) string {
	var rows int64
	for _, id := range old {
		rows += ft.rows[id]
	}
	if rows == 0 {
		return ""
	}
	return fmt.Sprintf("replace snapshots removed %d files holding %d rows in Pinot and added none in their "+
		"partition (rows moved between partitions, or a snapshot labelled replace changed rows)", len(old), rows)
}

// lineage checks that the group's rows come from the checkpoint by
// replace snapshots only: every file a replace removed was in the
// checkpoint or added by an earlier replace, and every file of the group
// that is gone was removed by a replace.
func (h *history) lineage(g groupFiles) string {
	ft := &h.files
	for _, ids := range [2][]int32{g.old, g.between} {
		for _, id := range ids {
			at := ft.removedAt[id]
			if at < 0 {
				return fmt.Sprintf("file %s of a compacted group was removed by a snapshot that is not a replace", ft.paths[id])
			}
			if ft.inCP[id] {
				continue
			}
			if from := ft.addedAt[id]; from < 0 || from >= at {
				return fmt.Sprintf("replace snapshot %d rewrote file %s, which Pinot does not hold (added since the checkpoint)",
					h.steps[at].id, ft.paths[id])
			}
		}
	}
	return ""
}

// rowsAfterDeletes is a new file's record count less the rows its delete
// files delete, when every one of them can be counted from its manifest
// entry alone: a deletion vector of the file or a position delete file
// that references only it. An equality delete, a position delete file of
// the partition, or a delete file that a snapshot other than a replace
// committed since the checkpoint (rows changed after the compaction)
// gives a reason instead.
func (h *history) rowsAfterDeletes(path string, f liveFile, idx *deleteIndex) (int64, string) {
	rows := f.df.Count()
	pos, eq, dv, _ := idx.forFile(path, f.partition, f.dataSeq, f.bounds)
	for _, d := range slices.Concat(pos, eq, dv) {
		if op, ok := h.ops[d.snapshotID]; ok && op != table.OpReplace {
			return 0, fmt.Sprintf("delete file %s of snapshot %d (%s) applies to compacted file %s",
				d.path, d.snapshotID, op, path)
		}
		if !countable(d, path) {
			return 0, fmt.Sprintf("delete file %s applies to compacted file %s; the rows it deletes are not known "+
				"without reading the file", d.path, path)
		}
		rows -= d.df.Count()
	}
	return rows, ""
}

// remapKey is the key of a remapped group: <table>_r<first 10 bytes of
// SHA-256 of its files' "path NUL fingerprint" lines, sorted, joined by
// newlines>. It names the group in the checkpoint, never a segment: the
// group's segments keep their names. Format: never change.
func remapKey(tableName string, files map[string]checkpoint.FileState) string {
	lines := make([]string, 0, len(files))
	for path, fs := range files {
		lines = append(lines, path+"\x00"+fs.DeleteFingerprint)
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return SegmentPrefix(tableName) + "r" + hex.EncodeToString(sum[:10])
}
