package watcher

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// The segment references a run keeps in step with its commits are the
// ones a fresh count of the committed file map gives, whatever the deltas
// (coalesced members sharing segments, paths deleted and set at once,
// entries replaced, most of the map deleted at once), so orphan detection without a pass over the files
// judges as one with it.
func TestSegmentRefs_ApplyDeltaMatchesRecount(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	files := map[string]checkpoint.FileState{}
	refs := newSegmentRefs(files)
	seg := func() []string {
		out := []string{}
		for range rng.IntN(3) {
			out = append(out, fmt.Sprint("t_s", rng.IntN(40)))
		}
		return out
	}
	for step := range 500 {
		d := checkpoint.CheckpointDelta{Set: map[string]checkpoint.FileState{}}
		for range rng.IntN(4) {
			d.Delete = append(d.Delete, fmt.Sprint("f", rng.IntN(60)))
		}
		if step%25 == 24 { // most of the map at once (a remap): the indexes are counted again
			for path := range files {
				if rng.IntN(5) > 0 {
					d.Delete = append(d.Delete, path)
				}
			}
		}
		shared := seg()
		for range rng.IntN(5) {
			s := shared
			if rng.IntN(2) == 0 {
				s = seg()
			}
			d.Set[fmt.Sprint("f", rng.IntN(60))] = checkpoint.FileState{Segments: s}
		}
		applyDelta(files, fileIndexes{refs: refs}, d)
		if want := newSegmentRefs(files); !maps.Equal(refs, want) {
			t.Fatalf("step %d: refs %v, recount %v", step, refs, want)
		}
	}
}

// orphanCandidates names exactly the served segments of the table's
// prefix that no file lists and no unit of the plan builds.
func TestOrphanCandidates_ByReferences(t *testing.T) {
	files := map[string]checkpoint.FileState{
		"a": {Segments: []string{"t_u1_0"}, Group: "t_u1"}, "b": {Segments: []string{"t_u1_0"}, Group: "t_u1"},
		"c": {Segments: []string{"t_c_0", "t_c_1"}},
	}
	served := map[string]bool{"t_u1_0": true, "t_c_0": true, "t_c_1": true, "t_dead_0": true, "other_x": true, "t_new_0": true}
	tg := target{old: checkpoint.Checkpoint{Files: files}, served: served}
	tg.plan = &plan.Plan{Build: []plan.Unit{{Key: "t_new"}}}
	got := orphanCandidates(tg, newSegmentRefs(files), "t_")
	if len(got) != 1 || got[0] != "t_dead_0" {
		t.Fatalf("orphan candidates %v, want [t_dead_0]", got)
	}
	applyDelta(files, fileIndexes{refs: newSegmentRefs(files)}, checkpoint.CheckpointDelta{Delete: []string{"c"}})
	refs := newSegmentRefs(files)
	applyDelta(files, fileIndexes{refs: refs}, checkpoint.CheckpointDelta{Delete: []string{"a"}})
	if got := orphanCandidates(tg, refs, "t_"); len(got) != 3 {
		t.Fatalf("after dropping c and a: candidates %v, want t_c_0, t_c_1, t_dead_0 (b still lists t_u1_0)", got)
	}
}
