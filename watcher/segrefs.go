package watcher

import (
	"maps"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// segmentRefs counts, per segment name, the checkpoint entries that list
// it: the segments the checkpoint accounts for. A run builds it once from
// its checkpoint (one pass over the file map) and keeps it in step with
// every commit (applyDelta), and the checkpoint cache keeps it with the
// checkpoint, so a run of `floe serve` finds orphan segments without a
// pass over the table's files.
type segmentRefs map[string]int

func newSegmentRefs(files map[string]checkpoint.FileState) segmentRefs {
	refs := segmentRefs{}
	refs.recount(files)
	return refs
}

// recount counts the references of files anew.
func (s segmentRefs) recount(files map[string]checkpoint.FileState) {
	clear(s)
	for _, fs := range files {
		s.add(fs.Segments, 1)
	}
}

func (s segmentRefs) add(names []string, n int) {
	for _, name := range names {
		if c := s[name] + n; c > 0 {
			s[name] = c
		} else {
			delete(s, name)
		}
	}
}

// fileIndexes are what a run knows of its checkpoint's file map beyond
// the map: each nil until built.
type fileIndexes struct {
	refs  segmentRefs
	units *plan.UnitIndex
}

// applyDelta applies d to files (deletions, then sets: a path in both is
// set) and keeps the indexes that are built in step: entry by entry, or,
// when d deletes at least half the map (a compaction's remap), by
// indexing what stays again.
func applyDelta(files map[string]checkpoint.FileState, ix fileIndexes, d checkpoint.CheckpointDelta) {
	if len(d.Delete) > 1 && 2*len(d.Delete) >= len(files) {
		for _, p := range d.Delete {
			delete(files, p)
		}
		maps.Copy(files, d.Set)
		if ix.refs != nil {
			ix.refs.recount(files)
		}
		if ix.units != nil {
			ix.units.Reset(files)
		}
		return
	}
	for _, p := range d.Delete {
		old, ok := files[p]
		if !ok {
			continue
		}
		if ix.refs != nil {
			ix.refs.add(old.Segments, -1)
		}
		if ix.units != nil {
			ix.units.Apply(p, old, true, checkpoint.FileState{}, false)
		}
		delete(files, p)
	}
	for p, fs := range d.Set {
		old, had := files[p]
		if ix.refs != nil {
			if had {
				ix.refs.add(old.Segments, -1)
			}
			ix.refs.add(fs.Segments, 1)
		}
		if ix.units != nil {
			ix.units.Apply(p, old, had, fs, true)
		}
		files[p] = fs
	}
}
