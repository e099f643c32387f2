package watcher

import "github.com/floehq/floe/checkpoint"

// segmentRefs counts, per segment name, the checkpoint entries that list
// it: the segments the checkpoint accounts for. A run builds it once from
// its checkpoint (one pass over the file map) and keeps it in step with
// every commit (applyDelta), and the checkpoint cache keeps it with the
// checkpoint, so a run of `floe serve` finds orphan segments without a
// pass over the table's files.
type segmentRefs map[string]int

func newSegmentRefs(files map[string]checkpoint.FileState) segmentRefs {
	refs := segmentRefs{}
	for _, fs := range files {
		refs.add(fs.Segments, 1)
	}
	return refs
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

// applyDelta applies d to files (deletions, then sets: a path in both is
// set) and keeps refs, when not nil, in step.
func applyDelta(files map[string]checkpoint.FileState, refs segmentRefs, d checkpoint.CheckpointDelta) {
	for _, p := range d.Delete {
		if old, ok := files[p]; ok && refs != nil {
			refs.add(old.Segments, -1)
		}
		delete(files, p)
	}
	for p, fs := range d.Set {
		if refs != nil {
			if old, ok := files[p]; ok {
				refs.add(old.Segments, -1)
			}
			refs.add(fs.Segments, 1)
		}
		files[p] = fs
	}
}
