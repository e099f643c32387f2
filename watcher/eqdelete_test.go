package watcher_test

import (
	"context"
	"iter"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
)

// upsert commits, in one snapshot, an equality delete of ids (key: id)
// and new rows with the same ids, as a CDC writer does.
func (l *lake) upsert(ids []int64) {
	ctx := context.Background()
	tbl := l.load()
	tx := tbl.NewTransaction()
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		l.t.Fatal(err)
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer rb.Release()
	for _, id := range ids {
		rb.Field(0).(*array.Int64Builder).Append(id)
		rb.Field(1).(*array.StringBuilder).Append("upserted")
	}
	rows := rb.NewRecordBatch()
	defer rows.Release()
	var added []iceberg.DataFile
	for df, err := range table.WriteRecords(ctx, tbl, sc, one(rows)) {
		if err != nil {
			l.t.Fatalf("write upserted rows: %v", err)
		}
		added = append(added, df)
	}
	keySchema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64,
		Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"1"})}}, nil)
	kb := array.NewRecordBuilder(memory.DefaultAllocator, keySchema)
	defer kb.Release()
	kb.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
	keys := kb.NewRecordBatch()
	defer keys.Release()
	files, err := tx.WriteEqualityDeletes(ctx, []int{1}, one(keys))
	if err != nil {
		l.t.Fatalf("write equality deletes: %v", err)
	}
	if err := tx.NewRowDelta(nil).AddRows(added...).AddDeletes(files...).Commit(ctx); err != nil {
		l.t.Fatalf("commit upsert: %v", err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		l.t.Fatalf("commit upsert: %v", err)
	}
}

func one(b arrow.RecordBatch) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) { yield(b, nil) }
}

// A run after an upsert rebuilds only the segments of the files holding
// an upserted key (their id ranges are disjoint): the other segments stay
// in Pinot untouched, and the rows are exact (every id once, the upserted
// rows from the new file); the checkpoint then records every file's key
// bounds, the untouched ones' too (Plan.Refresh) (plan P2).
func TestWatcher_RunOnce_EqualityDeleteRebuildsOnlyHitSegments(t *testing.T) {
	l := newLake(t, iceberg.Properties{"format-version": "2"})
	store := checkpoint.NewMemory()
	root := t.TempDir()
	up := pinot.NewLocalDir(root)
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{}, Uploader: up},
		watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir()})
	ctx := context.Background()
	if err := store.CreateTable(ctx, realTable(t, l, nil)); err != nil {
		t.Fatal(err)
	}
	for range 6 {
		l.appendRows(100) // ids [0,100), [100,200), ... [500,600)
	}
	if _, err := w.RunOnce(ctx, "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	before, err := up.ListSegments(ctx, "events")
	if err != nil || len(before) != 6 {
		t.Fatalf("first run: %d segments (%v), want 6", len(before), err)
	}
	l.upsert([]int64{150, 151, 420, 9999})
	run, err := w.RunOnce(ctx, "events", "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	after, err := up.ListSegments(ctx, "events")
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, s := range before {
		if slices.Contains(after, s) {
			kept++
		}
	}
	// Built: the files of ids 100-199 and 400-499 again, and the upserted rows' file.
	if run.SegmentsGenerated != 3 || run.SegmentsDeleted != 2 || kept != 4 || len(after) != 7 {
		t.Fatalf("want 3 segments built (2 hit files + the new file), 2 replaced, 4 untouched; got built %d, "+
			"deleted %d, untouched %d, %d segments", run.SegmentsGenerated, run.SegmentsDeleted, kept, len(after))
	}
	if run.Rows != 98+99+4 {
		t.Fatalf("the run wrote %d rows, want the 2 hit files' 98 and 99 left and the 4 upserted", run.Rows)
	}
	cp, err := store.GetCheckpoint(ctx, "events")
	if err != nil {
		t.Fatal(err)
	}
	for path, fs := range cp.Files {
		if _, ok := fs.KeyBounds[1]; !ok {
			t.Fatalf("file %s records no key bounds of id after the run (Plan.Refresh not committed)", path)
		}
	}
	_, ids := segmentRows(t, store, up, root)
	if len(ids) != 601 || !ids[150] || !ids[420] || !ids[9999] || !ids[599] {
		t.Fatalf("Pinot holds %d ids, want 0..599 and 9999 once each", len(ids))
	}
}
