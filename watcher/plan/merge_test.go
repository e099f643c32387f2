package plan_test

import (
	"strings"
	"testing"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// smallUnitsOf counts the checkpoint's units (groups, or files on their
// own) and the files they hold.
func unitsOf(cp checkpoint.Checkpoint) map[string]int {
	out := map[string]int{}
	for path, fs := range cp.Files {
		key := fs.Group
		if key == "" {
			key = path
		}
		out[key]++
	}
	return out
}

// P10, P8: a writer that adds one small file per snapshot gets one small
// unit per run until the partition holds MergeSmallUnits of them; the next
// run packs them into one unit (Replacing, the old units gone from Keep)
// and its own file into another, and the cycle starts again.
func TestPlanner_Plan_MergesSmallUnitsAcrossRuns(t *testing.T) {
	l := newLake(t, lakeConfig{version: 2})
	p := plan.New(plan.Options{CoalesceBelowBytes: 1 << 20, TargetSegmentBytes: 4 << 20, MergeSmallUnits: 4})
	var cp checkpoint.Checkpoint
	for run := 1; run <= 4; run++ {
		l.appendRows(10)
		got := plans(t, p, l.load(), cp)
		if got.Replacing || len(got.Build) != 1 || len(got.Build[0].Files) != 1 {
			t.Fatalf("run %d, %d small units before it: want a pure addition of the new file, got %+v", run, run-1, got)
		}
		cp = commit(cp, l.load(), got, nil)
	}
	if n := len(unitsOf(cp)); n != 4 {
		t.Fatalf("after 4 runs the checkpoint has %d units, want 4", n)
	}
	l.appendRows(10)
	merged := plans(t, p, l.load(), cp)
	if !merged.Replacing || len(merged.Build) != 2 || len(merged.Keep) != 0 || len(unitFilesOf(merged)) != 5 {
		t.Fatalf("P10: the fifth run must pack the 4 small units into one unit and its file into another, replacing: %+v", merged)
	}
	header := cp
	header.Files = nil
	lazy, read, reason, err := p.PlanLazy(t.Context(), tableName, l.load(), header, checkpoint.CountFiles(cp.Files), mapFiles(cp.Files))
	if err != nil || reason != "" || lazy.Merged != 4 || len(read) != 4 {
		t.Fatalf("P14: the merge from the unread map: merged %v, read %d entries, reason %q, err %v; want 4 merged, 4 read",
			lazy, len(read), reason, err)
	}
	var packed plan.Unit
	for _, u := range merged.Build {
		if len(u.Files) == 4 {
			packed = u
		}
	}
	if !strings.HasPrefix(packed.Key, "events_g") {
		t.Fatalf("P10: no unit of the 4 merged files: %+v", merged.Build)
	}
	cp = commit(cp, l.load(), merged, nil)
	if units := unitsOf(cp); len(units) != 2 || len(cp.Files) != 5 {
		t.Fatalf("after the merge: %d units over %d files, want 2 over 5", len(units), len(cp.Files))
	}
	l.appendRows(10)
	next := plans(t, p, l.load(), cp)
	if next.Replacing || len(next.Build) != 1 || len(next.Keep) != 5 {
		t.Fatalf("the run after a merge adds its file alone: %+v", next)
	}
}

// P10: the merge takes at most TargetSegmentBytes of small units in one
// run, and waits while the run builds more than TargetSegmentBytes anyway
// (a large append stays a pure addition, batched).
func TestPlanner_Plan_MergeIsBounded(t *testing.T) {
	l := newLake(t, lakeConfig{version: 2})
	var cp checkpoint.Checkpoint
	for range 2 {
		l.appendRows(10)
		cp = commit(cp, l.load(), plans(t, plan.New(plan.Options{}), l.load(), cp), nil)
	}
	var size int64
	for _, fs := range cp.Files {
		size = max(size, fs.SizeBytes)
	}
	opts := func(target int64) plan.Options {
		return plan.Options{CoalesceBelowBytes: size + 1, TargetSegmentBytes: target, MergeSmallUnits: 2}
	}
	l.appendRows(10)
	if got := plans(t, plan.New(opts(size*3/2)), l.load(), cp); got.Replacing {
		t.Fatalf("P10: room for one small unit only is no merge: %+v", got)
	}
	if got := plans(t, plan.New(opts(4*size)), l.load(), cp); !got.Replacing || len(unitFilesOf(got)) != 3 {
		t.Fatalf("P10: with room, the two small units merge with the run's file: %+v", got)
	}
	l.appendRows(5000)
	got := plans(t, plan.New(opts(4*size)), l.load(), cp)
	if got.Replacing || len(unitFilesOf(got)) != 2 {
		t.Fatalf("P10: a run that builds more than TargetSegmentBytes must not merge: %+v", got)
	}
}

func unitFilesOf(p *plan.Plan) []string {
	var out []string
	for _, u := range p.Build {
		for _, f := range u.Files {
			out = append(out, f.Path)
		}
	}
	return out
}

// P10: merges take units of one size tier only, so a merged unit is not
// read again each time a new small unit appears beside it: with
// MergeSmallUnits 2, a unit of two files and a unit of one stay apart;
// the next one-file unit merges with that one-file unit.
func TestPlanner_Plan_MergesBySizeTier(t *testing.T) {
	l := newLake(t, lakeConfig{version: 2})
	p := plan.New(plan.Options{CoalesceBelowBytes: 1 << 20, TargetSegmentBytes: 4 << 20, MergeSmallUnits: 2})
	var cp checkpoint.Checkpoint
	step := func() *plan.Plan {
		t.Helper()
		l.appendRows(10)
		got := plans(t, p, l.load(), cp)
		cp = commit(cp, l.load(), got, nil)
		return got
	}
	step()
	step()
	if got := step(); !got.Replacing || len(got.Build) != 2 || len(unitFilesOf(got)) != 3 {
		t.Fatalf("two one-file units of one tier merge, the run's file is a unit of its own: %+v", got)
	}
	if got := step(); got.Replacing {
		t.Fatalf("a two-file unit and a one-file unit are of different tiers and must not merge: %+v", got)
	}
	if got := step(); !got.Replacing || len(unitFilesOf(got)) != 3 || len(got.Keep) != 2 {
		t.Fatalf("the two one-file units merge, the two-file unit is kept: %+v", got)
	}
	if n := len(unitsOf(cp)); n != 3 {
		t.Fatalf("%d units after five runs, want 3 (2 files, 2 files, 1 file)", n)
	}
}

func TestTier(t *testing.T) {
	for _, c := range []struct {
		bytes int64
		base  int
		want  int
	}{{0, 8, 0}, {1, 8, 0}, {7, 8, 0}, {8, 8, 1}, {63, 8, 1}, {64, 8, 2}, {16 << 20, 8, 8}, {1023, 2, 9}, {1024, 2, 10}} {
		if got := plan.Tier(c.bytes, c.base); got != c.want {
			t.Errorf("Tier(%d, %d) = %d, want %d", c.bytes, c.base, got, c.want)
		}
	}
}

// P10: a merge looks only at the partitions the run builds files of: a
// run adding to one partition merges that partition's small units and
// leaves the others' alone, though they hold as many.
func TestPlanner_Plan_MergesOnlyPartitionsWithNewFiles(t *testing.T) {
	l := newLake(t, lakeConfig{version: 2, partitioned: true})
	p := plan.New(plan.Options{CoalesceBelowBytes: 1 << 20, TargetSegmentBytes: 4 << 20, MergeSmallUnits: 2})
	var cp checkpoint.Checkpoint
	for range 2 {
		l.appendRows(3) // one file in each of the three partitions
		got := plans(t, p, l.load(), cp)
		if got.Replacing {
			t.Fatalf("one small unit per partition is no merge: %+v", got)
		}
		cp = commit(cp, l.load(), got, nil)
	}
	l.appendRows(1) // the first partition only
	got := plans(t, p, l.load(), cp)
	parts := map[string]bool{}
	for _, u := range got.Build {
		for _, f := range u.Files {
			parts[f.Partition] = true
		}
	}
	if !got.Replacing || len(unitFilesOf(got)) != 3 || len(parts) != 1 || len(got.Keep) != 4 {
		t.Fatalf("P10: the run must merge the two units of the partition it adds to and keep the other partitions' four files: %+v", got)
	}
}
