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
	cp, _ := store.GetCheckpoint(context.Background(), "events")
	var rows int64
	for path, fs := range cp.Files {
		if fs.Group == "" || len(fs.Segments) != 1 {
			t.Fatalf("file %s is not recorded as a member of the unit: %+v", path, fs)
		}
		rows += fs.Rows
	}
	if len(cp.Files) != 4 || rows != 40 {
		t.Fatalf("checkpoint: %d files holding %d rows, want 4 and 40", len(cp.Files), rows)
	}

	l.deleteWhere(iceberg.LessThan(iceberg.Reference("id"), int64(3)))
	if _, err := w.RunOnce(context.Background(), "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	n, ids := segmentRows(t, store, up, root)
	if n != 1 || len(ids) != 37 || ids[2] || !ids[3] || !ids[39] {
		t.Fatalf("after deleting ids 0..2: want one segment of ids 3..39, got %d segments, %d ids", n, len(ids))
	}
}
