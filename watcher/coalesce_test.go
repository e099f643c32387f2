package watcher_test

import (
	"context"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// Small files coalesce into one segment; a merge-on-read delete in one of
// them rebuilds that segment from every member, and Pinot holds exactly
// the live rows (I2) under one set of segments per unit.
func TestWatcher_RunOnce_CoalescesSmallFiles(t *testing.T) {
	l := newLake(t, iceberg.Properties{"write.delete.mode": "merge-on-read", "format-version": "2"})
	store := checkpoint.NewMemory()
	root := t.TempDir()
	up := pinot.NewLocalDir(root)
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{}, Uploader: up,
		Planner: plan.New(plan.Options{CoalesceBelowBytes: 1 << 20, TargetSegmentBytes: 1 << 20})},
		watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir()})
	if err := store.CreateTable(context.Background(), realTable(t, l, nil)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		l.appendRows(10)
	}
	if _, err := w.RunOnce(context.Background(), "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	if n, ids := segmentRows(t, store, up, root); n != 1 || len(ids) != 40 {
		t.Fatalf("four small files: want one segment of 40 rows, got %d segments, %d ids", n, len(ids))
	}
	assertOneUnit(t, store, 4, 40)

	l.deleteWhere(iceberg.LessThan(iceberg.Reference("id"), int64(3)))
	if _, err := w.RunOnce(context.Background(), "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	n, ids := segmentRows(t, store, up, root)
	if n != 1 || len(ids) != 37 || ids[2] || !ids[3] || !ids[39] {
		t.Fatalf("after deleting ids 0..2: want one segment of ids 3..39, got %d segments, %d ids", n, len(ids))
	}
}

// P10 through a real run: a writer adding one small file per snapshot
// leaves one segment per run until the table holds three; the next run
// merges them with its own file into one segment by an atomic replace,
// the checkpoint maps every file to it, and Pinot holds every row once.
func TestWatcher_RunOnce_MergesSmallSegmentsAcrossRuns(t *testing.T) {
	l := newLake(t, iceberg.Properties{"format-version": "2"})
	store := checkpoint.NewMemory()
	root := t.TempDir()
	up := pinot.NewLocalDir(root)
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{}, Uploader: up,
		Planner: plan.New(plan.Options{CoalesceBelowBytes: 1 << 20, TargetSegmentBytes: 4 << 20, MergeSmallUnits: 3})},
		watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir()})
	if err := store.CreateTable(context.Background(), realTable(t, l, nil)); err != nil {
		t.Fatal(err)
	}
	sync := func() checkpoint.Run {
		t.Helper()
		l.appendRows(10)
		run, err := w.RunOnce(context.Background(), "events", "test", nil)
		if err != nil || run.Status != checkpoint.RunCompleted {
			t.Fatalf("run: %+v, %v", run, err)
		}
		return run
	}
	for i := 1; i <= 3; i++ {
		sync()
		if n, ids := segmentRows(t, store, up, root); n != i || len(ids) != 10*i {
			t.Fatalf("after %d runs: %d segments, %d ids; want %d and %d", i, n, len(ids), i, 10*i)
		}
	}
	run := sync()
	if run.SegmentsGenerated != 1 || run.SegmentsDeleted != 3 {
		t.Fatalf("the merging run must push one segment and retire three: %+v", run)
	}
	n, ids := segmentRows(t, store, up, root)
	if n != 1 || len(ids) != 40 || !ids[0] || !ids[39] {
		t.Fatalf("after the merge: %d segments, %d ids; want one segment of ids 0..39", n, len(ids))
	}
	assertOneUnit(t, store, 4, 40)
}

// assertOneUnit checks that the checkpoint maps its files, all members of
// one coalesced unit, to that unit's one segment, and that their rows add
// up to rows.
func assertOneUnit(t *testing.T, store checkpoint.Store, files int, rows int64) {
	t.Helper()
	cp, err := store.GetCheckpoint(context.Background(), "events")
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	group := ""
	for path, fs := range cp.Files {
		if fs.Group == "" || len(fs.Segments) != 1 || group != "" && fs.Group != group {
			t.Fatalf("file %s is not recorded as a member of the one unit %q: %+v", path, group, fs)
		}
		group, n = fs.Group, n+fs.Rows
	}
	if len(cp.Files) != files || n != rows {
		t.Fatalf("checkpoint: %d files holding %d rows, want %d and %d", len(cp.Files), n, files, rows)
	}
}
