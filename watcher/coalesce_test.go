package watcher_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	if n, ids := segmentRows(t, up, root); n != 1 || len(ids) != 40 {
		t.Fatalf("four small files: want one segment of 40 rows, got %d segments, %d ids", n, len(ids))
	}
	assertOneUnit(t, store, 4, 40)

	l.deleteWhere(iceberg.LessThan(iceberg.Reference("id"), int64(3)))
	if _, err := w.RunOnce(context.Background(), "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	n, ids := segmentRows(t, up, root)
	if n != 1 || len(ids) != 37 || ids[2] || !ids[3] || !ids[39] {
		t.Fatalf("after deleting ids 0..2: want one segment of ids 3..39, got %d segments, %d ids", n, len(ids))
	}
}

// P10 through a real run: a writer adding one small file per snapshot
// leaves one segment per run until the table holds three; the next run
// merges them into one segment by an atomic replace and adds its own
// file's segment, the checkpoint maps the three files to the merged
// segment, and Pinot holds every row once.
func TestWatcher_RunOnce_MergesSmallSegmentsAcrossRuns(t *testing.T) {
	l, w, store, up, root := mergingWatcher(t, nil)
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
		if n, ids := segmentRows(t, up, root); n != i || len(ids) != 10*i {
			t.Fatalf("after %d runs: %d segments, %d ids; want %d and %d", i, n, len(ids), i, 10*i)
		}
	}
	run := sync()
	if run.SegmentsGenerated != 2 || run.SegmentsDeleted != 3 {
		t.Fatalf("the merging run must push the merged segment and its file's, and retire three: %+v", run)
	}
	n, ids := segmentRows(t, up, root)
	if n != 2 || len(ids) != 40 || !ids[0] || !ids[39] {
		t.Fatalf("after the merge: %d segments, %d ids; want two segments of ids 0..39", n, len(ids))
	}
	cp, err := store.GetCheckpoint(context.Background(), "events")
	if err != nil {
		t.Fatal(err)
	}
	members := map[string]int{}
	for _, fs := range cp.Files {
		members[fs.Group]++
	}
	if len(cp.Files) != 4 || len(members) != 2 || members[""] != 1 {
		t.Fatalf("checkpoint after the merge: want three files in one unit and one on its own, got %v", members)
	}
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

// P10 and bad input: a merge re-reads files that were converted long ago.
// When one of them can no longer be read, only the merge fails (with
// continueOnFileError): the run's new file still lands, the old segments
// keep serving their rows, and the error names the file.
func TestWatcher_RunOnce_UnreadableFileFailsOnlyTheMerge(t *testing.T) {
	l, w, store, up, root := mergingWatcher(t, map[string]string{watcher.KeyContinueOnFileError: "true"})
	for range 3 {
		l.appendRows(10)
		if _, err := w.RunOnce(context.Background(), "events", "test", nil); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := store.GetCheckpoint(context.Background(), "events")
	if err != nil {
		t.Fatal(err)
	}
	var gone string
	for path := range cp.Files {
		gone = path
		break
	}
	if err := os.Remove(strings.TrimPrefix(gone, "file://")); err != nil {
		t.Fatal(err)
	}
	l.appendRows(10)
	run, err := w.RunOnce(context.Background(), "events", "test", nil)
	if err == nil && run.FilesFailed == 0 {
		t.Fatalf("the merge of a missing file did not fail: %+v", run)
	}
	if !strings.Contains(run.Error+fmt.Sprint(err), filepath.Base(gone)) {
		t.Fatalf("the failure does not name %s: %q, %v", gone, run.Error, err)
	}
	if n, ids := segmentRows(t, up, root); n != 4 || len(ids) != 40 {
		t.Fatalf("after the failed merge: %d segments, %d ids; want the 3 old segments and the new file's, 40 ids", n, len(ids))
	}
}

// mergingWatcher is a watcher that coalesces small files and merges three
// small units (P10), over a new lake's table with the task config given,
// pushing to a local segment directory under root.
func mergingWatcher(t *testing.T, taskConfig map[string]string) (*lake, *watcher.Watcher, checkpoint.Store, *pinot.LocalDir, string) {
	t.Helper()
	l := newLake(t, iceberg.Properties{"format-version": "2"})
	store := checkpoint.NewMemory()
	root := t.TempDir()
	up := pinot.NewLocalDir(root)
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{}, Uploader: up,
		Planner: plan.New(plan.Options{CoalesceBelowBytes: 1 << 20, TargetSegmentBytes: 4 << 20, MergeSmallUnits: 3})},
		watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir()})
	if err := store.CreateTable(context.Background(), realTable(t, l, taskConfig)); err != nil {
		t.Fatal(err)
	}
	return l, w, store, up, root
}
