package plan_test

import (
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// remapLake is a table of six appended files, synced: its checkpoint
// holds one unit per file (or, coalescing, units of several).
func remapLake(t *testing.T, cfg lakeConfig, opts plan.Options) (*lake, *plan.Planner, checkpoint.Checkpoint) {
	t.Helper()
	l := newLake(t, cfg)
	p := plan.New(opts)
	for i := 0; i < 6; i++ {
		l.appendRows(10)
	}
	return l, p, commit(checkpoint.Checkpoint{}, l.load(), plans(t, p, l.load(), checkpoint.Checkpoint{}), nil)
}

// wantRemap checks that a plan only remaps: nothing built or dropped, no
// replacement, the checkpoint's files gone and the live ones owning their
// segments, with the rows the table has (P11, checked by reading).
func wantRemap(t *testing.T, l *lake, cp checkpoint.Checkpoint, got *plan.Plan, groups int) checkpoint.Checkpoint {
	t.Helper()
	if len(got.Build) != 0 || len(got.Drop) != 0 || got.Replacing || len(got.Remaps) != groups || got.RemapFallback != "" {
		t.Fatalf("P11: want %d remapped groups and nothing else, got %d built, %d dropped, replacing %v, %d remaps, "+
			"fallback %q", groups, len(got.Build), len(got.Drop), got.Replacing, len(got.Remaps), got.RemapFallback)
	}
	checkRemaps(t, l.load(), cp, got)
	next := commit(cp, l.load(), got, nil)
	checkLive(t, l.load(), next, got)
	segs := map[string]bool{}
	for _, fs := range cp.Files {
		for _, s := range fs.Segments {
			segs[s] = true
		}
	}
	for path, fs := range next.Files {
		for _, s := range fs.Segments {
			if !segs[s] {
				t.Fatalf("P11: file %s owns segment %s, which the checkpoint did not hold", path, s)
			}
		}
	}
	return next
}

// P11, P1: a bin-pack compaction of every file into one, after a
// merge-on-read delete that the compaction applies: the new file owns
// the old segments; both ways plan the same.
func TestPlanner_Plan_RemapsBinPack(t *testing.T) {
	for _, cfg := range []lakeConfig{{version: 2}, {version: 3, partitioned: true}} {
		t.Run(cfg.String(), func(t *testing.T) {
			l, p, cp := remapLake(t, cfg, plan.Options{})
			l.deleteRows(idRange(2, 5), table.WriteModeMergeOnRead)
			cp = commit(cp, l.load(), plans(t, p, l.load(), cp), nil)
			for i := 0; i < 4; i++ { // every partition once
				l.compact(rand.New(rand.NewPCG(uint64(i), 1)), binPack)
			}
			got := plans(t, p, l.load(), cp)
			wantRemap(t, l, cp, got, len(got.Remaps))
			if len(got.Remaps) == 0 {
				t.Fatal("P11: no group remapped")
			}
		})
	}
}

// P11: a sort-like rewrite (many files into several new ones), and a
// compaction of the compaction's output before the next run: one group
// whose new files own the segments of the six original files. With
// coalescing on, the old units are coalesced; the group takes them whole.
func TestPlanner_Plan_RemapsSortAndChainedCompactions(t *testing.T) {
	for _, opts := range []plan.Options{{}, {CoalesceBelowBytes: 4 << 10, TargetSegmentBytes: 6 << 10}} {
		l, p, cp := remapLake(t, lakeConfig{version: 2}, opts)
		rng := rand.New(rand.NewPCG(1, 2))
		l.compact(rng, sortLike)
		got := plans(t, p, l.load(), cp)
		if len(got.Remaps) != 1 || len(got.Remaps[0].Files) < 2 || len(got.Remaps[0].Old) != 6 {
			t.Fatalf("P11: want one group of 6 files rewritten into several, got %+v (fallback %q)", got.Remaps, got.RemapFallback)
		}
		wantRemap(t, l, cp, got, 1)
		l.compact(rng, sortLike)
		l.compact(rng, binPack)
		wantRemap(t, l, cp, plans(t, p, l.load(), cp), 1)
	}
}

// P11: an equality delete committed while the compaction ran, which keeps
// its starting data sequence number, still applies to the new files.
// Synced before the compaction commits, Pinot's rows reflect the delete,
// but what it deletes in the new files is not known without reading them;
// synced before the delete, the delete changes rows. Either way the group
// is rebuilt with the delete, the plan says why, and Pinot then holds the
// table's rows.
func TestPlanner_Plan_EqualityDeleteDuringCompactionRebuilds(t *testing.T) {
	for _, syncBetween := range []bool{true, false} {
		l, p, cp := remapLake(t, lakeConfig{version: 2}, plan.Options{})
		tbl := l.load()
		g, _ := l.compactionGroup(rand.New(rand.NewPCG(3, 4)), tbl)
		gr := l.rewriteGroup(tbl, g, false)
		l.eqDelete([]int64{12, 41})
		reason := "(delete) applies to compacted file"
		if syncBetween {
			cp = commit(cp, l.load(), plans(t, p, l.load(), cp), nil)
			reason = "not known without reading"
		}
		l.commitRewrite(gr, tbl.CurrentSnapshot().SequenceNumber)
		got := plans(t, p, l.load(), cp)
		if len(got.Remaps) != 0 || !strings.Contains(got.RemapFallback, reason) || len(got.Drop) != 6 || !got.Replacing {
			t.Fatalf("P11 (synced between: %v): want the compacted group rebuilt because %q, got %d remaps, %d dropped, "+
				"fallback %q", syncBetween, reason, len(got.Remaps), len(got.Drop), got.RemapFallback)
		}
		// The compacted files kept the old data sequence number, so the delete applies to those that hold
		// a deleted key (P2; the others are ruled out by their key index, P12).
		carrying := 0
		for _, u := range got.Build {
			for _, f := range u.Files {
				carrying += len(f.Tasks[0].EqualityDeleteFiles)
			}
		}
		if carrying == 0 {
			t.Fatalf("P2 (synced between: %v): no compacted file is read with the delete", syncBetween)
		}
		next := commit(cp, l.load(), got, nil)
		checkLive(t, l.load(), next, got)
		checkRows(t, l.load())
	}
}

// P11: a replace that loses a row is not trusted; a compaction that
// rewrites a file appended since the checkpoint neither (its rows are
// not in Pinot); a delete committed after the compaction rebuilds the
// group. Each plan says why.
func TestPlanner_Plan_RemapFallbacks(t *testing.T) {
	cases := []struct {
		name   string
		change func(l *lake)
		reason string
	}{
		{"mislabelled", func(l *lake) { l.compact(rand.New(rand.NewPCG(5, 6)), mislabel) }, "changed rows"},
		{"unsynced", func(l *lake) { l.appendRows(5); l.compact(rand.New(rand.NewPCG(5, 6)), binPack) }, "added since the checkpoint"},
		{"deleted-after", func(l *lake) {
			l.compact(rand.New(rand.NewPCG(5, 6)), binPack)
			l.deleteRows(idRange(7, 9), table.WriteModeMergeOnRead)
		}, "(delete) applies to compacted file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, p, cp := remapLake(t, lakeConfig{version: 2}, plan.Options{})
			tc.change(l)
			got := plans(t, p, l.load(), cp)
			if len(got.Remaps) != 0 || !strings.Contains(got.RemapFallback, tc.reason) || !got.Replacing {
				t.Fatalf("P11: want a rebuild because %q, got %d remaps, fallback %q", tc.reason, len(got.Remaps), got.RemapFallback)
			}
			next := commit(cp, l.load(), got, nil)
			checkLive(t, l.load(), next, got)
		})
	}
}

// P11: a remapped group is a unit: a delete in one of its files rebuilds
// it from its current files under new names, retiring all its segments.
func TestPlanner_Plan_DeleteRebuildsRemappedGroup(t *testing.T) {
	l, p, cp := remapLake(t, lakeConfig{version: 2}, plan.Options{})
	l.compact(rand.New(rand.NewPCG(7, 8)), sortLike)
	cp = wantRemap(t, l, cp, plans(t, p, l.load(), cp), 1)
	l.deleteRows(iceberg.EqualTo(iceberg.Reference("id"), int64(30)), table.WriteModeMergeOnRead)
	got := plans(t, p, l.load(), cp)
	var built int
	for _, u := range got.Build {
		built += len(u.Files)
	}
	if !got.Replacing || built != len(cp.Files) || len(got.Keep) != 0 || len(got.Remaps) != 0 {
		t.Fatalf("P11: want the whole group of %d files rebuilt, got %d built, %d kept", len(cp.Files), built, len(got.Keep))
	}
	checkLive(t, l.load(), commit(cp, l.load(), got, nil), got)
}

// P15, P11, P1: a compaction of the whole table is folded by difference
// (the files it removed are the checkpoint's files no longer live, its
// manifest of DELETED entries unread) and remapped; the full-state diff,
// which reads that manifest, plans the same. A checkpoint that also holds
// a file the table no longer has is not: the files found removed then
// outnumber the summary's deleted-data-files, the fold reads the
// manifest, and the plan falls back with the checkpoint's fault named.
func TestPlanner_Plan_CompactionFoldsByDifference(t *testing.T) {
	l, p, cp := remapLake(t, lakeConfig{version: 2}, plan.Options{})
	l.compact(rand.New(rand.NewPCG(9, 10)), binPack)
	got := plans(t, p, l.load(), cp)
	if got.FoldedByDifference != 1 || !got.Incremental {
		t.Fatalf("P15: want the compaction folded by difference, got %d (incremental %v, fallback %q)",
			got.FoldedByDifference, got.Incremental, got.Fallback)
	}
	wantRemap(t, l, cp, got, 1)

	extra := cp
	extra.Files = maps.Clone(cp.Files)
	extra.Files["file:///lake/gone.parquet"] = checkpoint.FileState{Segments: []string{"gone_0"}, Rows: 1, DataSeq: 1}
	got = plans(t, plan.New(plan.Options{}), l.load(), extra)
	if got.FoldedByDifference != 0 || got.Incremental || !strings.Contains(got.Fallback, "checkpoint incomplete") {
		t.Fatalf("P15: want no fold by difference and the full diff for a checkpoint with a file not live, got %d "+
			"(incremental %v, fallback %q)", got.FoldedByDifference, got.Incremental, got.Fallback)
	}
}
