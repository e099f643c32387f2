package watcher_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments/read"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// icebergRows are the rows (id → v) iceberg-go's own scan reads from the
// lake's current snapshot, every delete applied: the reference.
func icebergRows(t *testing.T, l *lake) map[int64]string {
	t.Helper()
	at, err := l.load().Scan().ToArrowTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	out := map[int64]string{}
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		ids, vs := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
		for i := 0; i < ids.Len(); i++ {
			if _, dup := out[ids.Value(i)]; dup {
				t.Fatalf("iceberg-go's scan gives id %d twice", ids.Value(i))
			}
			out[ids.Value(i)] = vs.Value(i)
		}
	}
	return out
}

// servedRows are the rows (id → v) of every segment the sink serves.
func servedRows(t *testing.T, up *pinot.LocalDir, root string) map[int64]string {
	t.Helper()
	names, err := up.ListSegments(context.Background(), "events")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]string{}
	for _, n := range names {
		seg, err := read.Open(filepath.Join(root, "events", n+".tar.gz"))
		if err != nil {
			t.Fatal(err)
		}
		ids, err := seg.ReadColumn("id")
		if err != nil {
			t.Fatal(err)
		}
		vs, err := seg.ReadColumn("v")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < seg.TotalDocs; i++ {
			id := ids.Values[i].(int64)
			if _, dup := out[id]; dup {
				t.Fatalf("id %d served twice", id)
			}
			out[id] = vs.Values[i].(string)
		}
	}
	return out
}

// deleteUses counts, over the data files of the lake's current snapshot
// as iceberg-go plans them, the delete files that apply to each (what
// reading them per data file costs), and the distinct delete files (a
// deletion vector by its file and offset: a Puffin file holds several).
func deleteUses(t *testing.T, l *lake) (uses, distinct int) {
	t.Helper()
	tasks, err := l.load().Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, task := range tasks {
		for _, df := range slices.Concat(task.DeleteFiles, task.EqualityDeleteFiles) {
			uses++
			seen[df.FilePath()] = true
		}
		for _, df := range task.DeletionVectorFiles {
			uses++
			seen[fmt.Sprintf("%s@%d", df.FilePath(), *df.ContentOffset())] = true
		}
	}
	return uses, len(seen)
}

// syncDeletes runs w once and checks that Pinot then holds exactly
// iceberg-go's rows; it returns the delete files the run read.
func syncDeletes(t *testing.T, w *watcher.Watcher, l *lake, up *pinot.LocalDir, root string) int64 {
	t.Helper()
	before := w.DeleteCacheStats().Reads
	run, err := w.RunOnce(context.Background(), "events", "test", nil)
	if err != nil || run.Status != checkpoint.RunCompleted {
		t.Fatalf("run: %v (%+v)", err, run)
	}
	want, got := icebergRows(t, l), servedRows(t, up, root)
	if !maps.Equal(want, got) {
		t.Fatalf("Pinot holds %d rows, iceberg-go's scan %d; they differ (B1)", len(got), len(want))
	}
	return w.DeleteCacheStats().Reads - before
}

// Many equality delete files (a CDC writer's upserts, each deleting keys
// held by every data file) and position deletes (a merge-on-read
// DELETE) apply to every data file: a run gives exactly iceberg-go's rows
// (B1), reading each delete file once although it applies to every data
// file (B2) and merging the keys of the files that apply together, and
// the next run reads only the delete file it adds, the others still
// decoded. Built locally and through the work queue.
func TestIcebergBuilder_ReadsEachDeleteFileOnce(t *testing.T) {
	t.Run("local", func(t *testing.T) { testDeletesReadOnce(t, checkpoint.NewMemory(), nil, 0) })
	t.Run("work queue", func(t *testing.T) {
		store := checkpoint.NewMemory()
		testDeletesReadOnce(t, store, store, 0)
	})
	// Options.DeleteCacheBytes (watcher.deleteCacheBytes) is the budget:
	// one too small to keep any delete file reads them for every build.
	t.Run("budget too small to keep them", func(t *testing.T) { testDeletesReadOnce(t, checkpoint.NewMemory(), nil, 64) })
}

// countingQueue counts the items published on a work queue.
type countingQueue struct {
	checkpoint.WorkQueue
	published atomic.Int64
}

func (q *countingQueue) Publish(ctx context.Context, items []checkpoint.WorkItem) ([]checkpoint.WorkItem, error) {
	q.published.Add(int64(len(items)))
	return q.WorkQueue.Publish(ctx, items)
}

// testDeletesReadOnce is TestIcebergBuilder_ReadsEachDeleteFileOnce on a
// store and, when work is set, builds through that work queue; budget is
// the delete cache's (0: the default, which keeps them all; else one that
// keeps none, so every build reads its delete files again).
func testDeletesReadOnce(t *testing.T, store checkpoint.Store, work checkpoint.WorkQueue, budget int64) {
	l := newLake(t, iceberg.Properties{"format-version": "2", "write.delete.mode": "merge-on-read"})
	root := t.TempDir()
	up := pinot.NewLocalDir(root)
	deps := watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{}, Uploader: up}
	var queue *countingQueue
	if work != nil {
		queue = &countingQueue{WorkQueue: work}
		deps.Work = queue
	}
	w := watcher.New(deps, watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir(), BuildParallelism: 2,
		DeleteCacheBytes: budget})
	ctx := context.Background()
	if err := store.CreateTable(ctx, realTable(t, l, map[string]string{watcher.KeyMaxRowsPerSegment: "1000"})); err != nil {
		t.Fatal(err)
	}
	const files = 6
	for i := range int64(files) { // file i holds the ids ≡ i mod 6: every file's bounds span every key
		var ids []int64
		for id := i; id < 600; id += files {
			ids = append(ids, id)
		}
		l.appendIDs(ids)
	}
	if n := syncDeletes(t, w, l, up, root); n != 0 {
		t.Fatalf("a run without deletes read %d delete files", n)
	}
	for k := range int64(5) { // each upsert's keys hit every file
		var ids []int64
		for id := 10 * k; id < 10*k+files; id++ {
			ids = append(ids, id)
		}
		l.upsert(append(ids, 1000+k))
	}
	l.deleteWhere(iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(590)))
	uses, distinct := deleteUses(t, l)
	if distinct < 6 || uses < 3*distinct {
		t.Fatalf("the scenario must apply several delete files to several data files: %d uses of %d files", uses, distinct)
	}
	n := syncDeletes(t, w, l, up, root)
	if budget > 0 {
		if n <= int64(distinct) {
			t.Fatalf("with a %d-byte delete cache the run read %d delete files, want more than the %d distinct ones "+
				"(none can be kept)", budget, n, distinct)
		}
		return
	}
	if n != int64(distinct) {
		t.Fatalf("the run read %d delete files, want each of the %d once (iceberg-go's scan per data file reads %d)", n, distinct, uses)
	}
	if st := w.DeleteCacheStats(); st.Unions == 0 {
		t.Fatalf("the data files share their equality delete files: their keys must be merged once (%+v)", st)
	}
	if queue != nil && queue.published.Load() < files {
		t.Fatalf("%d units went through the work queue, want at least the %d data files'", queue.published.Load(), files)
	}
	l.upsert([]int64{100, 101, 102, 103, 104, 105})
	if n := syncDeletes(t, w, l, up, root); n != 1 {
		t.Fatalf("the next run read %d delete files, want only the new one", n)
	}
}

// The builder's reference mode (ScanDeletes: iceberg-go's scan applies
// every delete, per data file) gives the same rows as floe's own
// application of the same deletes (B1), to the rows of iceberg-go's scan
// (ScanOnly) and to those of floe's Parquet source (where the keys are
// Pinot columns that hold them unchanged: id long → LONG), and reads
// nothing into the cache. Format 2 deletes by position delete files,
// format 3 by deletion vectors, which floe decodes and applies too.
func TestIcebergBuilder_ScanDeletesMatchesOwnDeletes(t *testing.T) {
	for _, version := range []string{"2", "3"} {
		t.Run("v"+version, func(t *testing.T) { testScanDeletesMatchesOwn(t, version) })
	}
}

func testScanDeletesMatchesOwn(t *testing.T, version string) {
	l := newLake(t, iceberg.Properties{"format-version": version, "write.delete.mode": "merge-on-read"})
	ctx := context.Background()
	for i := range int64(4) {
		var ids []int64
		for id := i; id < 400; id += 4 {
			ids = append(ids, id)
		}
		l.appendIDs(ids)
	}
	l.upsert([]int64{1, 2, 3, 4, 50, 51})
	l.deleteWhere(iceberg.LessThan(iceberg.Reference("id"), int64(20)))
	l.upsert([]int64{21, 22, 23, 24, 25})
	l.deleteWhere(iceberg.EqualTo(iceberg.Reference("id"), int64(101))) // a second delete of one file: v3 merges its DV
	if version == "3" {
		if dvs := deletionVectors(t, l); dvs < 4 {
			t.Fatalf("the format 3 table must delete by deletion vectors, its scan tasks carry %d", dvs)
		}
	}
	if direct, withDeletes := readsDirect(t, l); direct != withDeletes || withDeletes < 4 {
		t.Fatalf("%d of the %d data files with deletes are read with floe's Parquet source, want all", direct, withDeletes)
	}
	for _, b := range []watcher.IcebergBuilder{{ScanDeletes: true}, {ScanOnly: true}, {}} {
		store := checkpoint.NewMemory()
		root := t.TempDir()
		up := pinot.NewLocalDir(root)
		w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: b, Uploader: up},
			watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir()})
		if err := store.CreateTable(ctx, realTable(t, l, nil)); err != nil {
			t.Fatal(err)
		}
		n := syncDeletes(t, w, l, up, root)
		if _, distinct := deleteUses(t, l); (b.ScanDeletes && n != 0) || (!b.ScanDeletes && n != int64(distinct)) {
			t.Fatalf("%+v: %d delete files read into the cache, %d apply", b, n, distinct)
		}
	}
}

// deletionVectors counts the deletion vectors of the lake's scan tasks.
func deletionVectors(t *testing.T, l *lake) int {
	t.Helper()
	tasks, err := l.load().Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, task := range tasks {
		n += len(task.DeletionVectorFiles)
	}
	return n
}

// readsDirect plans the lake's current snapshot whole and counts, among
// its data files with deletes, those the builder reads with floe's
// Parquet source (floe applying their deletes to it).
func readsDirect(t *testing.T, l *lake) (direct, withDeletes int) {
	t.Helper()
	ctx := context.Background()
	tbl := l.load()
	rec := realTable(t, l, nil)
	p, err := plan.New(plan.Options{}).Plan(ctx, "events", tbl, checkpoint.Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	var sc spec.Schema
	if err := json.Unmarshal(rec.SchemaJSON, &sc); err != nil {
		t.Fatal(err)
	}
	for _, u := range p.Build {
		for _, f := range u.Files {
			if f.DeleteFingerprint == "" {
				continue
			}
			withDeletes++
			req := watcher.BuildRequest{Table: rec, Schema: &sc, Source: tbl, SnapshotID: p.SnapshotID, Unit: u, OutDir: t.TempDir()}
			ok, err := watcher.ReadsDirect(ctx, req, f)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				direct++
			}
		}
	}
	return direct, withDeletes
}

// eqDelete commits one equality delete file on the fields ids of the
// lake's schema (id long, v string), holding rows.
func (l *lake) eqDelete(ids []int, rows [][2]any) {
	ctx := context.Background()
	tbl := l.load()
	tx := tbl.NewTransaction()
	var fields []arrow.Field
	for _, id := range ids {
		f := arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64}
		if id == 2 {
			f = arrow.Field{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true}
		}
		f.Metadata = arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{fmt.Sprint(id)})
		fields = append(fields, f)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, r := range rows {
		for i, id := range ids {
			switch v := r[id-1].(type) {
			case int64:
				b.Field(i).(*array.Int64Builder).Append(v)
			case string:
				b.Field(i).(*array.StringBuilder).Append(v)
			case nil:
				b.Field(i).AppendNull()
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	files, err := tx.WriteEqualityDeletes(ctx, ids, one(rec))
	if err != nil {
		l.t.Fatalf("write equality deletes: %v", err)
	}
	if err := tx.NewRowDelta(nil).AddDeletes(files...).Commit(ctx); err != nil {
		l.t.Fatalf("commit equality deletes: %v", err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		l.t.Fatalf("commit equality deletes: %v", err)
	}
}

// Equality deletes on another field (v, a string) and on two fields
// together (id and v: a row goes only when both equal) apply alongside
// the id deletes, each list of fields compared on its own, and give
// exactly iceberg-go's rows (B1).
func TestIcebergBuilder_EqualityDeletesOnSeveralFields(t *testing.T) {
	l := newLake(t, iceberg.Properties{"format-version": "2"})
	store := checkpoint.NewMemory()
	root := t.TempDir()
	up := pinot.NewLocalDir(root)
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{}, Uploader: up},
		watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir()})
	if err := store.CreateTable(context.Background(), realTable(t, l, nil)); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		l.appendRows(50) // ids 0..149, v "v<id>"
	}
	syncDeletes(t, w, l, up, root)
	l.eqDelete([]int{2}, [][2]any{{nil, "v3"}, {nil, "v77"}, {nil, "none"}})
	l.eqDelete([]int{1, 2}, [][2]any{{int64(10), "v10"}, {int64(11), "not v11"}, {int64(120), "v120"}})
	l.upsert([]int64{5, 140})
	_, distinct := deleteUses(t, l)
	if n := syncDeletes(t, w, l, up, root); n != int64(distinct) {
		t.Fatalf("read %d delete files, want %d", n, distinct)
	}
	got := servedRows(t, up, root)
	for _, id := range []int64{3, 77, 10, 120} {
		if _, ok := got[id]; ok {
			t.Errorf("id %d must be deleted", id)
		}
	}
	if got[11] != "v11" || got[5] != "upserted" || len(got) != 150-4 {
		t.Errorf("rows: id 11 %q, id 5 %q, %d rows; want v11, upserted, 146", got[11], got[5], len(got))
	}
}

// appendNullable appends one data file of ids whose v is null where vs
// holds "".
func (l *lake) appendNullable(ids []int64, vs []string) {
	tbl := l.load()
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		l.t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		if vs[i] == "" {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(vs[i])
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	at := array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
	defer at.Release()
	if _, err := tbl.AppendTable(context.Background(), at, int64(len(ids)), nil); err != nil {
		l.t.Fatal(err)
	}
}

// A null in an equality delete deletes the rows whose field is null, and
// only those (B1): the rows equal iceberg-go's.
func TestIcebergBuilder_EqualityDeleteOfNull(t *testing.T) {
	l := newLake(t, iceberg.Properties{"format-version": "2"})
	store := checkpoint.NewMemory()
	root := t.TempDir()
	up := pinot.NewLocalDir(root)
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{}, Uploader: up},
		watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir()})
	if err := store.CreateTable(context.Background(), realTable(t, l, nil)); err != nil {
		t.Fatal(err)
	}
	l.appendNullable([]int64{1, 2, 3, 4}, []string{"a", "", "b", ""})
	l.eqDelete([]int{2}, [][2]any{{nil, nil}, {nil, "b"}})
	syncDeletes(t, w, l, up, root)
	if got := servedRows(t, up, root); len(got) != 1 || got[1] != "a" {
		t.Fatalf("rows %v, want only id 1 (the null and \"b\" rows deleted)", got)
	}
}
