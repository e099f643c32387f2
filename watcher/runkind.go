package watcher

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// What a run did, on its record (checkpoint.Run): its kind, with the
// reason in its log, and its counts, each named for one thing. Files
// added are new to Pinot; files rebuilt were in Pinot already and are
// converted again (a merge, a regrouped unit, new deletes, a schema
// rebuild), so their rows are rebuilt, not new; files removed left the
// snapshot and their rows left Pinot. The page, the CLI, the API and the
// metrics use these names.

// runShape is what the plan says the run will do, counted against the
// checkpoint it planned from.
type runShape struct {
	rebuilt   map[string]bool // Build files the checkpoint held
	changed   int             // of those, files whose delete files changed
	merged    int             // of those, files a merge packs again (P10)
	removed   int
	remapped  int
	replacing bool // the run swaps atomically
	batches   int  // commits of a run that only adds files
}

// shapeOf counts the plan against cp, the checkpoint the run read (not
// the empty one a schema rebuild plans from).
func (r *runner) shapeOf(t target, cp checkpoint.Checkpoint, replacing bool) runShape {
	p := t.plan
	s := runShape{rebuilt: map[string]bool{}, merged: p.Merged, removed: len(p.Drop), replacing: replacing}
	for _, u := range p.Build {
		for _, f := range u.Files {
			if old, ok := cp.Files[f.Path]; ok {
				s.rebuilt[f.Path] = true
				if old.DeleteFingerprint != f.DeleteFingerprint {
					s.changed++
				}
			}
		}
	}
	for _, g := range p.Remaps {
		s.remapped += len(g.Files)
	}
	if r.rebuildTag != "" { // planned from nothing: removed files are the checkpoint's not live
		s.removed = removedFiles(cp, p)
	}
	if !replacing {
		s.batches = len(batches(p.Build, r.w.opts.BatchFiles, r.w.opts.BatchBytes))
	}
	return s
}

// removedFiles counts the files of cp that the plan neither builds, keeps
// nor remaps.
func removedFiles(cp checkpoint.Checkpoint, p *plan.Plan) int {
	live := map[string]bool{}
	for _, u := range p.Build {
		for _, f := range u.Files {
			live[f.Path] = true
		}
	}
	for _, g := range p.Remaps {
		for _, old := range g.Old {
			live[old] = true
		}
	}
	n := 0
	for path := range cp.Files {
		if _, kept := p.Keep[path]; !kept && !live[path] {
			n++
		}
	}
	return n
}

// describe puts the plan's kind and file counts on the run record and
// says in the run's log what kind of run this is and why.
func (r *runner) describe(t target, cp checkpoint.Checkpoint, replacing bool) {
	s := r.shapeOf(t, cp, replacing)
	r.rebuilt = s.rebuilt
	p := t.plan
	r.run.LiveFiles, r.run.FilesDiscovered = p.LiveFiles, p.LiveFiles
	r.run.FilesRemoved, r.run.FilesRemapped = s.removed, s.remapped
	kind, why := r.kindOf(p, s)
	r.run.Kind = kind
	r.w.log.Info("run kind: "+string(kind), slog.String(attrTable, r.table.Name), slog.String(attrRun, r.run.ID),
		slog.String("reason", why))
}

// kindOf names the run's kind and the reason for it.
func (r *runner) kindOf(p *plan.Plan, s runShape) (checkpoint.RunKind, string) {
	others := len(s.rebuilt) - s.changed - s.merged
	switch {
	case r.rebuildTag != "":
		return checkpoint.RunSchemaRebuild, "the schema change (" + orNone(r.run.SchemaChange) +
			") rebuilds every segment under new names in one atomic replacement"
	case s.replacing && s.merged > 0 && s.removed == 0 && s.changed == 0 && others == 0:
		return checkpoint.RunMerge, fileCount(s.merged) + " of small units already in Pinot packed again into larger " +
			"segments (their rows are rebuilt, not new; watcher.mergeSmallUnits), besides " +
			fileCount(unitFileCount(p.Build)-len(s.rebuilt)) + " added, in one atomic replacement"
	case s.replacing:
		return checkpoint.RunReplace, replaceReason(s, others)
	case len(p.Build) == 0 && s.remapped > 0:
		return checkpoint.RunRemap, "a compaction's " + fileCount(s.remapped) + " take over the segments of the files " +
			"they replaced; nothing is built or pushed"
	case len(p.Build) == 0:
		return checkpoint.RunNone, "the snapshot changed nothing Pinot serves; only the checkpoint moves"
	case s.batches > 1 || r.base.Backfill != nil:
		return checkpoint.RunBackfill, fmt.Sprintf("%s added in %d batches; Pinot serves each batch as it commits "+
			"(watcher.batchFiles, watcher.batchBytes)", fileCount(unitFileCount(p.Build)), max(s.batches, 1))
	default:
		return checkpoint.RunAppend, fileCount(unitFileCount(p.Build)) + " added in one commit"
	}
}

// replaceReason lists what a replacing run takes out of Pinot.
func replaceReason(s runShape, others int) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fileCount(n)+" "+what)
		}
	}
	add(s.removed, "removed from the snapshot")
	add(s.changed, "rebuilt for new or changed delete files")
	add(others, "rebuilt because a unit they share segments with changed")
	add(s.merged, "merged into larger segments")
	if len(parts) == 0 {
		parts = append(parts, "segments an earlier run left behind (or a replacement it left open) are swapped out")
	}
	return strings.Join(parts, ", ") + ": one atomic replacement"
}

// fileCount says "1 file", "3 files".
func fileCount(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

func orNone(s string) string {
	if s == "" {
		return "none recorded"
	}
	return s
}

// unitFileCount counts the data files of units.
func unitFileCount(units []plan.Unit) int {
	n := 0
	for _, u := range units {
		n += len(u.Files)
	}
	return n
}

// countBuilt adds a built unit's files and rows to the run's counts:
// added or rebuilt by whether the checkpoint held the file. Rows come
// per file when the builder reports them, else the unit's.
func (r *runner) countBuilt(bu builtUnit) {
	var rebuiltRows int64
	rebuilt := 0
	for _, f := range bu.unit.Files {
		if r.rebuilt[f.Path] {
			rebuilt++
			rebuiltRows += bu.fileRows[f.Path]
		}
	}
	switch {
	case rebuilt == len(bu.unit.Files):
		rebuiltRows = bu.rows
	case rebuilt == 0 || bu.fileRows == nil:
		rebuiltRows = 0
	}
	r.run.FilesRebuilt += rebuilt
	r.run.FilesAdded += len(bu.unit.Files) - rebuilt
	r.run.RowsRebuilt += rebuiltRows
	r.run.RowsAdded += bu.rows - rebuiltRows
}
