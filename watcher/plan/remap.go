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
	removed, added map[string]string
	// delRemoved and delAdded are the delete files it removed and added
	// (rewrite_position_delete_files, deletes folded into a compaction).
	delRemoved []liveDelete
	delAdded   map[string]bool
}

// history is what the snapshots since the checkpointed one did, as far as
// remapping needs: every snapshot's operation and the data files of each
// replace snapshot, oldest first. It is read the same way whichever path
// plans (P1): from the snapshot chain and the manifests the replace
// snapshots wrote (which a fold reads anyway).
type history struct {
	ops   map[int64]table.Operation
	steps []replaceStep
	// addedAt and removedAt index the steps by file: the step that added
	// or removed it.
	addedAt, removedAt map[string]int
	// delAdded are the delete files replace steps added; delRemoved those
	// they removed that no earlier step added (deletes Pinot's rows
	// reflect, when the checkpoint held them).
	delAdded   map[string]bool
	delRemoved []*liveDelete
	// reason says why no group is remapped although replace snapshots
	// are in the chain ("" when steps hold them all).
	reason string
}

// history reads the replace snapshots since the checkpoint. It returns nil
// when nothing can be remapped: no checkpoint, another table, a backfill
// part-way, or a checkpointed snapshot that is not an ancestor (the rows
// Pinot holds cannot be traced to the current files).
func (j *job) history(ctx context.Context, cp checkpoint.Checkpoint) (*history, error) {
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
		step, err := j.replaceStep(ctx, s)
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

// index fills addedAt and removedAt.
func (h *history) index() {
	h.addedAt, h.removedAt, h.delAdded = map[string]int{}, map[string]int{}, map[string]bool{}
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
		for p := range s.added {
			h.addedAt[p] = i
		}
		for p := range s.removed {
			h.removedAt[p] = i
		}
	}
}

// replaceStep reads the data files snapshot s removed and added: the
// entries of s in the data manifests s wrote (as foldSnapshot does).
func (j *job) replaceStep(ctx context.Context, s table.Snapshot) (replaceStep, error) {
	step := replaceStep{id: s.SnapshotID, removed: map[string]string{}, added: map[string]string{},
		delAdded: map[string]bool{}}
	ms, err := j.manifests(ctx, s)
	if err != nil {
		return step, err
	}
	for _, m := range ms {
		if m.SnapshotID() != s.SnapshotID || (m.AddedDataFiles() == 0 && m.DeletedDataFiles() == 0) {
			continue
		}
		es, err := j.entries(ctx, m)
		if err != nil {
			return step, err
		}
		for _, e := range es {
			if e.snapshotID != s.SnapshotID {
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
		step.added[path] = e.partition
	case content == iceberg.ManifestContentData && e.status == iceberg.EntryStatusDELETED:
		step.removed[path] = e.partition
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
	groups  []Remap
	old     map[string]bool // checkpointed files the groups retire
	new     map[string]bool // live files the groups own
	reasons []string
	// h and idx decide rewritten delete files (remap_deletes.go); the
	// reasons they could not be trusted are by data file.
	h              *history
	idx            *deleteIndex
	rewriteReasons map[string]string
}

func (rm *remapping) retires(path string) bool { return rm != nil && rm.old[path] }
func (rm *remapping) owns(path string) bool    { return rm != nil && rm.new[path] }

// remap finds the groups of files the replace snapshots since the
// checkpoint rewrote and checks each before trusting it (P11). Files of
// one replace snapshot and one partition form a group with every file of
// the checkpoint's units they touch, and groups that share a file (a
// later compaction of a compaction's output) join.
func (j *job) remap(lv *live, cp checkpoint.Checkpoint, idx *deleteIndex, h *history) *remapping {
	if h == nil || (len(h.steps) == 0 && h.reason == "") {
		return nil
	}
	rm := &remapping{old: map[string]bool{}, new: map[string]bool{}, h: h, idx: idx, rewriteReasons: map[string]string{}}
	if h.reason != "" {
		rm.reasons = append(rm.reasons, h.reason)
		return rm
	}
	comps := components(h, cp)
	for _, comp := range comps {
		g, reason := j.remapGroup(comp, lv, cp, idx, h)
		switch {
		case reason != "":
			rm.reasons = append(rm.reasons, reason)
		case g != nil:
			rm.groups = append(rm.groups, *g)
			for _, p := range g.Old {
				rm.old[p] = true
			}
			for p := range g.Files {
				rm.new[p] = true
			}
		}
	}
	return rm
}

// components links the files of every replace step by partition, and
// every checkpointed file among them with the members of its unit, and
// returns the linked sets, each sorted, in the order of their first path.
func components(h *history, cp checkpoint.Checkpoint) [][]string {
	uf := unionFind{}
	units := map[string]bool{}
	for _, s := range h.steps {
		first := map[string]string{}
		for _, files := range []map[string]string{s.removed, s.added} {
			for path, part := range files { // any order links the same sets
				if f, ok := first[part]; ok {
					uf.union(f, path)
				} else {
					first[part] = path
					uf.find(path)
				}
				if fs, ok := cp.Files[path]; ok {
					units[unitOf(path, fs)] = true
				}
			}
		}
	}
	members := map[string]string{}
	for path, fs := range cp.Files {
		u := unitOf(path, fs)
		if !units[u] {
			continue
		}
		if m, ok := members[u]; ok {
			uf.union(m, path)
		} else {
			members[u] = path
			uf.find(path)
		}
	}
	return uf.sets()
}

// unitOf names the unit a checkpointed file belongs to.
func unitOf(path string, fs checkpoint.FileState) string {
	if fs.Group != "" {
		return fs.Group
	}
	return "\x00" + path
}

// groupFiles sorts the files of one component.
type groupFiles struct {
	old, kept, fresh, between []string // in the checkpoint and gone / live; not in it and live / gone
}

func splitGroup(comp []string, lv *live, cp checkpoint.Checkpoint) groupFiles {
	var g groupFiles
	for _, path := range comp {
		_, inCP := cp.Files[path]
		switch live := lv.has(path); {
		case inCP && !live:
			g.old = append(g.old, path)
		case inCP:
			g.kept = append(g.kept, path)
		case live:
			g.fresh = append(g.fresh, path)
		default:
			g.between = append(g.between, path)
		}
	}
	return g
}

// remapGroup checks one component and returns its Remap, nil when there
// is nothing to remap (no checkpointed file or no new file in it), or the
// reason the component is rebuilt instead.
func (j *job) remapGroup(comp []string, lv *live, cp checkpoint.Checkpoint, idx *deleteIndex, h *history) (*Remap, string) {
	g := splitGroup(comp, lv, cp)
	if len(g.old) == 0 {
		return nil, "" // nothing Pinot holds: the new files are built
	}
	if len(g.kept) > 0 {
		return nil, fmt.Sprintf("the compaction of %s rewrote only part of its unit (%s stays)", g.old[0], g.kept[0])
	}
	if reason := h.lineage(g, cp); reason != "" {
		return nil, reason
	}
	if len(g.fresh) == 0 {
		return nil, emptied(g.old, cp)
	}
	part := lv.files[g.fresh[0]].partition
	out := &Remap{Files: make(map[string]checkpoint.FileState, len(g.fresh))}
	var newRows int64
	for _, path := range g.fresh {
		f := lv.files[path]
		if f.partition != part {
			return nil, fmt.Sprintf("the compaction of %s moved rows between partitions", g.old[0])
		}
		rows, reason := h.rowsAfterDeletes(path, f, idx)
		if reason != "" {
			return nil, reason
		}
		newRows += rows
		fp, known := idx.fingerprint(path, f.partition, f.dataSeq, f.bounds)
		if !known {
			return nil, fmt.Sprintf("the key bounds of compacted file %s do not decide which equality deletes reach it", path)
		}
		out.Files[path] = checkpoint.FileState{DeleteFingerprint: fp, Rows: rows, SizeBytes: f.size,
			Partition: f.partition, DataSeq: f.dataSeq, KeyBounds: f.bounds}
	}
	segs := map[string]bool{}
	for _, path := range g.old {
		out.Rows += cp.Files[path].Rows
		for _, s := range cp.Files[path].Segments {
			segs[s] = true
		}
	}
	if out.Rows != newRows {
		return nil, fmt.Sprintf("%d files rewritten as replace hold %d rows in Pinot, their %d new files %d "+
			"(a snapshot labelled replace changed rows)", len(g.old), out.Rows, len(g.fresh), newRows)
	}
	out.Old, out.Segments = g.old, slices.Sorted(maps.Keys(segs))
	out.Key = remapKey(j.tableName, out.Files)
	shareOut(out, g.fresh)
	return out, ""
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
func emptied(old []string, cp checkpoint.Checkpoint) string {
	var rows int64
	for _, path := range old {
		rows += cp.Files[path].Rows
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
func (h *history) lineage(g groupFiles, cp checkpoint.Checkpoint) string {
	for _, path := range slices.Concat(g.old, g.between) {
		at, ok := h.removedAt[path]
		if !ok {
			return fmt.Sprintf("file %s of a compacted group was removed by a snapshot that is not a replace", path)
		}
		if _, inCP := cp.Files[path]; inCP {
			continue
		}
		if from, ok := h.addedAt[path]; !ok || from >= at {
			return fmt.Sprintf("replace snapshot %d rewrote file %s, which Pinot does not hold (added since the checkpoint)",
				h.steps[at].id, path)
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

// unionFind links file paths into sets.
type unionFind map[string]string

func (u unionFind) find(x string) string {
	p, ok := u[x]
	if !ok {
		u[x] = x
		return x
	}
	if p == x {
		return x
	}
	root := u.find(p)
	u[x] = root
	return root
}

func (u unionFind) union(a, b string) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	u[rb] = ra
}

// sets returns the linked sets, each sorted, ordered by their first path.
func (u unionFind) sets() [][]string {
	by := map[string][]string{}
	for x := range u {
		r := u.find(x)
		by[r] = append(by[r], x)
	}
	out := make([][]string, 0, len(by))
	for _, s := range by {
		slices.Sort(s)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}
