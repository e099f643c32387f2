package watcher_test

import (
	"context"
	"iter"
	"path/filepath"
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
	_, ids := segmentRows(t, up, root)
	if len(ids) != 601 || !ids[150] || !ids[420] || !ids[9999] || !ids[599] {
		t.Fatalf("Pinot holds %d ids, want 0..599 and 9999 once each", len(ids))
	}
}

// appendIDs appends one data file holding the rows of ids (v "v").
func (l *lake) appendIDs(ids []int64) {
	vs := make([]string, len(ids))
	for i := range vs {
		vs[i] = "v"
	}
	l.appendNullable(ids, vs)
}

// Where every file's id range holds the upserted keys (file i holds the
// ids ≡ i mod 6), the files' key indexes decide: only the files holding
// an upserted key are rebuilt, the run's log says how many files the key
// index ruled out, the indexes are kept under the work directory, and the
// rows are exact (plan P12).
func TestWatcher_RunOnce_KeyIndexRebuildsOnlyFilesHoldingKeys(t *testing.T) {
	l := newLake(t, iceberg.Properties{"format-version": "2"})
	store := checkpoint.NewMemory()
	root, work := t.TempDir(), t.TempDir()
	up := pinot.NewLocalDir(root)
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{}, Uploader: up},
		watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: work})
	ctx := context.Background()
	if err := store.CreateTable(ctx, realTable(t, l, nil)); err != nil {
		t.Fatal(err)
	}
	for i := range int64(6) {
		var ids []int64
		for id := i; id < 600; id += 6 {
			ids = append(ids, id)
		}
		l.appendIDs(ids)
	}
	if _, err := w.RunOnce(ctx, "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	l.upsert([]int64{150, 151, 9999}) // held by the files of residues 0 and 1
	run, err := w.RunOnce(ctx, "events", "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.SegmentsGenerated != 3 || run.SegmentsDeleted != 2 {
		t.Fatalf("want the 2 files holding 150 and 151 rebuilt and the upserted rows' file built; got built %d, "+
			"deleted %d", run.SegmentsGenerated, run.SegmentsDeleted)
	}
	runs, err := store.ListRuns(ctx, "events", 1)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v %+v", err, runs)
	}
	var logged map[string]string
	for _, line := range runs[0].Log {
		if line.Msg == "equality deletes checked against key indexes" {
			logged = line.Attrs
		}
	}
	if logged["ruled_out"] != "4" || logged["unavailable"] != "0" {
		t.Fatalf("run log's key index line %v, want 4 files ruled out (of 6 whose bounds hold a key)", logged)
	}
	kept, err := filepath.Glob(filepath.Join(work, watcher.KeyIndexDirName, "*.fki"))
	if err != nil || len(kept) != 6 {
		t.Fatalf("%d key index files under the work directory (%v), want one per file consulted (6)", len(kept), err)
	}
	_, ids := segmentRows(t, up, root)
	if len(ids) != 601 || !ids[150] || !ids[151] || !ids[9999] || !ids[599] {
		t.Fatalf("Pinot holds %d ids, want 0..599 and 9999 once each", len(ids))
	}
}
