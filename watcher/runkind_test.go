package watcher_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// What a run record says it did, over one-file appends and the merge of
// their small units (P10): each append adds one file of 10 rows whatever
// the table holds (files added are not the snapshot's live files), and the
// merging run is a merge whose rebuilt rows are not counted as added, with
// the reason in its log.
func TestWatcher_RunOnce_RecordsWhatTheRunDid(t *testing.T) {
	l, w, store, _, _ := mergingWatcher(t, nil)
	ctx := context.Background()
	sync := func() checkpoint.Run {
		t.Helper()
		l.appendRows(10)
		if _, err := w.RunOnce(ctx, "events", "test", nil); err != nil {
			t.Fatal(err)
		}
		runs, err := store.ListRuns(ctx, "events", 1)
		if err != nil || len(runs) != 1 || runs[0].Status != checkpoint.RunCompleted {
			t.Fatalf("stored run: %+v, %v", runs, err)
		}
		return runs[0]
	}
	for i := 1; i <= 3; i++ {
		r := sync()
		if r.Kind != checkpoint.RunAppend || r.FilesAdded != 1 || r.FilesRebuilt != 0 || r.RowsAdded != 10 ||
			r.RowsRebuilt != 0 || r.LiveFiles != i || r.FilesDiscovered != i || r.FilesRemoved != 0 {
			t.Fatalf("append %d: want kind append, 1 file and 10 rows added, %d live files; got %+v", i, i, counts(r))
		}
	}
	r := sync()
	if r.Kind != checkpoint.RunMerge || r.FilesAdded != 1 || r.FilesRebuilt != 3 || r.RowsAdded != 10 ||
		r.RowsRebuilt != 30 || r.Rows != 40 || r.LiveFiles != 4 || r.SegmentsDeleted != 3 {
		t.Fatalf("merging run: want kind merge, 1 file and 10 rows added, 3 files and 30 rows rebuilt, 3 segments replaced; got %+v", counts(r))
	}
	if !logHas(r, "run kind: merge", "3 files of small units already in Pinot") {
		t.Fatalf("the merging run's log does not say why it is a merge: %+v", r.Log)
	}
	if !logHas(r, "sync completed", "") || outcomeAttr(r, "rows_rebuilt") != "30" || outcomeAttr(r, "kind") != "merge" {
		t.Fatalf("the outcome line does not carry the counts: %+v", r.Log)
	}
}

// A copy-on-write delete in a coalesced unit of two files: the file is
// removed, its rewrite (7 rows) added, and the other member rebuilt with
// it (10 rows served before): a replace, and its log says why.
func TestWatcher_RunOnce_RecordsAReplace(t *testing.T) {
	l, w, store, _, _ := mergingWatcher(t, nil)
	ctx := context.Background()
	for range 2 {
		l.appendRows(10)
	}
	if _, err := w.RunOnce(ctx, "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	l.deleteWhere(iceberg.LessThan(iceberg.Reference("id"), int64(3)))
	if _, err := w.RunOnce(ctx, "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	runs, err := store.ListRuns(ctx, "events", 1)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %+v, %v", runs, err)
	}
	r := runs[0]
	if r.Kind != checkpoint.RunReplace || r.FilesRemoved != 1 || r.FilesAdded != 1 || r.RowsAdded != 7 ||
		r.FilesRebuilt != 1 || r.RowsRebuilt != 10 || r.LiveFiles != 2 {
		t.Fatalf("the delete's run: want kind replace, 1 file removed, 1 file of 7 rows added, 1 of 10 rows rebuilt; got %+v", counts(r))
	}
	if !logHas(r, "run kind: replace", "1 file removed from the snapshot") ||
		!logHas(r, "run kind: replace", "a unit they share segments with changed") {
		t.Fatalf("the replacing run's log does not say why: %+v", r.Log)
	}
}

type runCounts struct {
	Kind                                                   checkpoint.RunKind
	Added, Rebuilt, Removed, Live, Discovered, Built, Gone int
	RowsAdded, RowsRebuilt, Rows                           int64
}

func counts(r checkpoint.Run) runCounts {
	return runCounts{r.Kind, r.FilesAdded, r.FilesRebuilt, r.FilesRemoved, r.LiveFiles, r.FilesDiscovered,
		r.SegmentsGenerated, r.SegmentsDeleted, r.RowsAdded, r.RowsRebuilt, r.Rows}
}

// logHas reports whether a line of the run's log has msg and an attribute
// holding part.
func logHas(r checkpoint.Run, msg, part string) bool {
	for _, l := range r.Log {
		if l.Msg != msg {
			continue
		}
		if part == "" {
			return true
		}
		for _, v := range l.Attrs {
			if strings.Contains(v, part) {
				return true
			}
		}
	}
	return false
}

// outcomeAttr is an attribute of the run's outcome line.
func outcomeAttr(r checkpoint.Run, key string) string {
	for _, l := range r.Log {
		if l.Msg == "sync completed" {
			return l.Attrs[key]
		}
	}
	return ""
}

// A dropped column rebuilds every segment: a schema-rebuild whose old
// files' rows are rebuilt and whose new file's rows are added.
func TestWatcher_RunOnce_RecordsASchemaRebuild(t *testing.T) {
	e := newEvolving(t, nil, iceberg.NestedField{Name: "score", Type: iceberg.PrimitiveTypes.Float64})
	e.appendRows(0, 6)
	e.appendRows(6, 9)
	e.mustSync()
	e.alter(func(u *table.UpdateSchema) { u.DeleteColumn([]string{"score"}) })
	e.appendRows(9, 12)
	r := e.mustSync()
	if r.Kind != checkpoint.RunSchemaRebuild || r.FilesRebuilt != 2 || r.RowsRebuilt != 9 || r.FilesAdded != 1 ||
		r.RowsAdded != 3 || r.LiveFiles != 3 || r.FilesRemoved != 0 {
		t.Fatalf("the drop's run: want kind schema-rebuild, 2 files and 9 rows rebuilt, 1 file and 3 rows added; got %+v", counts(r))
	}
	runs, err := e.store.ListRuns(t.Context(), "events", 1)
	if err != nil || len(runs) != 1 || !logHas(runs[0], "run kind: schema-rebuild", "rebuilds every segment") {
		t.Fatalf("the stored run's log does not say why: %+v, %v", runs, err)
	}
}

// Files added batch by batch make a backfill; the same files in one
// batch an append.
func TestWatcher_RunOnce_RecordsABackfill(t *testing.T) {
	for _, c := range []struct {
		batchFiles int
		want       checkpoint.RunKind
	}{{1, checkpoint.RunBackfill}, {64, checkpoint.RunAppend}} {
		l := newLake(t, iceberg.Properties{"format-version": "2"})
		store := checkpoint.NewMemory()
		w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{},
			Uploader: pinot.NewLocalDir(t.TempDir()), Planner: plan.New(plan.Options{})},
			watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir(), BatchFiles: c.batchFiles})
		if err := store.CreateTable(context.Background(), realTable(t, l, nil)); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			l.appendRows(10)
		}
		r, err := w.RunOnce(context.Background(), "events", "test", nil)
		if err != nil || r.Kind != c.want || r.FilesAdded != 3 || r.RowsAdded != 30 || r.LiveFiles != 3 {
			t.Fatalf("batches of %d files: want kind %s, 3 files and 30 rows added; got %+v, %v", c.batchFiles, c.want, counts(r), err)
		}
	}
}

// A compaction whose new file takes over the segments is a remap: nothing
// converted, one file remapped.
func TestWatcher_RunOnce_RecordsARemap(t *testing.T) {
	h := newRemapHarness(t)
	for range 4 {
		h.lake.appendRows(10)
	}
	h.sync(t)
	compactAll(t, h.lake)
	r, _ := h.sync(t)
	if r.Kind != checkpoint.RunRemap || r.FilesRemapped != 1 || r.FilesAdded != 0 || r.FilesRebuilt != 0 ||
		r.RowsAdded != 0 || r.LiveFiles != 1 || r.FilesRemoved != 0 {
		t.Fatalf("the compaction's run: want kind remap, 1 file remapped, nothing converted; got %+v (remapped %d)", counts(r), r.FilesRemapped)
	}
}
