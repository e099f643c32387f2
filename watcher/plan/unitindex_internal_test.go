package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/floehq/floe/checkpoint"
)

// P10 with an index: the small units a merge considers, read from a
// UnitIndex kept in step with the file map entry by entry, are those the
// pass over the whole map finds, for any map of grouped and lone files,
// sized and unsized, and any files the run leaves or groups it breaks.
func TestUnitIndex_SmallUnitsMatchPass(t *testing.T) {
	const below = 1000
	rng := rand.New(rand.NewPCG(5, 6))
	p := New(Options{CoalesceBelowBytes: below, MergeSmallUnits: 4})
	files := map[string]checkpoint.FileState{}
	idx := p.UnitIndex(files)
	for step := range 400 {
		for range 1 + rng.IntN(6) {
			path := fmt.Sprint("f", rng.IntN(80))
			old, had := files[path]
			if rng.IntN(4) == 0 {
				if had {
					idx.Apply(path, old, true, checkpoint.FileState{}, false)
					delete(files, path)
				}
				continue
			}
			now := randomEntry(rng, below)
			idx.Apply(path, old, had, now, true)
			files[path] = now
		}
		c := newComparison(nil)
		for path := range files {
			if rng.IntN(10) == 0 {
				c.leave[path] = true
			}
		}
		c.broken[fmt.Sprint("g", rng.IntN(8))] = true
		parts := map[string]bool{"": true, fmt.Sprint("p", rng.IntN(3)): true}
		cp := checkpoint.Checkpoint{Files: files}
		if got, want := describe(idx.smallUnits(c, cp, parts)), describe(p.smallUnits(c, cp, parts)); got != want {
			t.Fatalf("step %d: index\n%s\npass\n%s", step, got, want)
		}
		if fresh := describe(newUnitIndex(below, files).smallUnits(c, cp, parts)); fresh != describe(idx.smallUnits(c, cp, parts)) {
			t.Fatalf("step %d: the index kept in step differs from one built afresh", step)
		}
	}
}

// A Planner that merges nothing builds no index; one made for other
// options is not used (PlanIndexed).
func TestUnitIndex_OnlyForMerges(t *testing.T) {
	if New(Options{CoalesceBelowBytes: 100}).UnitIndex(nil) != nil || New(Options{MergeSmallUnits: 4}).UnitIndex(nil) != nil {
		t.Fatal("an index for a Planner without merges")
	}
}

// randomEntry is a file entry of one of a few groups (one partition per
// group, as coalescing and merges make them) or on its own.
func randomEntry(rng *rand.Rand, below int64) checkpoint.FileState {
	fs := checkpoint.FileState{SizeBytes: []int64{0, below / 10, below / 4, below / 2}[rng.IntN(4)]} // sums hit below exactly
	if rng.IntN(8) == 0 {
		fs.SizeBytes = below + rng.Int64N(below)
	}
	if g := rng.IntN(10); g < 8 {
		fs.Group = fmt.Sprint("g", g)
		fs.Partition = fmt.Sprint("p", g%3)
		return fs
	}
	fs.Partition = []string{"", "p0", "p1", "p2"}[rng.IntN(4)]
	return fs
}

func describe(m map[string][]*smallUnit) string {
	var lines []string
	for part, units := range m {
		for _, u := range units {
			lines = append(lines, fmt.Sprintf("%q %q %d %v", part, u.key, u.bytes, u.paths))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
