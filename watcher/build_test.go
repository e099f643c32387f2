package watcher_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/parquettest"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// realTable returns the lake's table registered with the schema floe
// infers for it.
func realTable(t *testing.T, l *lake, taskConfig map[string]string) checkpoint.Table {
	t.Helper()
	res, err := schema.Infer(l.load().Schema(), schema.Options{Name: "events"})
	if err != nil {
		t.Fatal(err)
	}
	sj, _ := json.Marshal(res.Schema)
	tj, _ := json.Marshal(schema.TableConfig(res, schema.TableOptions{}))
	return checkpoint.Table{Name: "events", Connection: "c", Namespace: "ns", Source: "events",
		TaskConfig: taskConfig, SchemaJSON: sj, TableConfigJSON: tj}
}

// segmentRows counts the segments the sink serves and the ids they hold
// (each once: servedRows).
func segmentRows(t *testing.T, up *pinot.LocalDir, root string) (int, map[int64]bool) {
	t.Helper()
	names, err := up.ListSegments(context.Background(), "events")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int64]bool{}
	for id := range servedRows(t, up, root) {
		ids[id] = true
	}
	return len(names), ids
}

// A file larger than maxRowsPerSegment becomes ceil(rows/max) segments
// of even size (the count a streamed replacement names before the build,
// I9), cut inside the batches that cross a segment's end, with every row
// exactly once.
func TestIcebergBuilder_SplitsLargeFiles(t *testing.T) {
	l := newLake(t)
	store := checkpoint.NewMemory()
	root := t.TempDir()
	up := pinot.NewLocalDir(root)
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{BatchRows: 100}, Uploader: up},
		watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir(), MaxRowsPerSegment: 1 << 30})
	if err := store.CreateTable(context.Background(), realTable(t, l, map[string]string{watcher.KeyMaxRowsPerSegment: "240"})); err != nil {
		t.Fatal(err)
	}
	l.appendRows(1000)
	run, err := w.RunOnce(context.Background(), "events", "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	n, ids := segmentRows(t, up, root)
	if n != 5 || len(ids) != 1000 || run.SegmentsGenerated != 5 || run.Rows != 1000 {
		t.Fatalf("want 5 segments of 200 rows holding ids 0..999: %d segments, %d ids, run %+v", n, len(ids), run)
	}
	cp, _ := store.GetCheckpoint(context.Background(), "events")
	for path, fs := range cp.Files {
		want := []string{}
		for i := 0; i < 5; i++ {
			want = append(want, plan.SegmentName("events", path, "", i))
		}
		if fmt.Sprint(fs.Segments) != fmt.Sprint(want) {
			t.Fatalf("checkpoint segments %v, want %v", fs.Segments, want)
		}
	}
}

// A deletion vector that removes more than a segment's worth of a
// multi-segment file's rows streams its replacement as planned: the run
// plans the file's rows less the DV's (I9), the build gives exactly those
// segments, nothing falls back to a whole build, and Pinot holds exactly
// Iceberg's rows.
func TestIcebergBuilder_DeletionVectorStreamsAsPlanned(t *testing.T) {
	l := newLake(t, iceberg.Properties{"format-version": "3", "write.delete.mode": "merge-on-read"})
	store := checkpoint.NewMemory()
	root := t.TempDir()
	up := pinot.NewLocalDir(root)
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{BatchRows: 100}, Uploader: up},
		watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir()})
	if err := store.CreateTable(context.Background(), realTable(t, l, map[string]string{watcher.KeyMaxRowsPerSegment: "240"})); err != nil {
		t.Fatal(err)
	}
	l.appendRows(1000)
	if _, err := w.RunOnce(context.Background(), "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	l.deleteWhere(iceberg.LessThan(iceberg.Reference("id"), int64(500)))
	run, err := w.RunOnce(context.Background(), "events", "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := store.GetRun(context.Background(), "events", run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range stored.Log {
		if strings.Contains(line.Msg, "cannot end as planned") {
			t.Fatalf("the replacement fell back to a whole build: %s %v", line.Msg, line.Attrs)
		}
	}
	n, ids := segmentRows(t, up, root)
	if n != 3 || len(ids) != 500 || run.SegmentsGenerated != 3 {
		t.Fatalf("want 3 segments holding the 500 rows the DV leaves: %d segments, %d ids, run %+v", n, len(ids), run)
	}
	for id := range ids {
		if id < 500 {
			t.Fatalf("id %d served, the DV deleted it", id)
		}
	}
}

// Deletes are applied, copy-on-write (the file is rewritten) and
// merge-on-read (a position delete file applies to the old file, whose
// segment is rebuilt): Pinot ends up with exactly the live rows.
func TestIcebergBuilder_AppliesDeletes(t *testing.T) {
	for name, props := range map[string]iceberg.Properties{
		"copy-on-write": {},
		"merge-on-read": {"write.delete.mode": "merge-on-read", "format-version": "2"},
	} {
		t.Run(name, func(t *testing.T) { testDeletes(t, props) })
	}
}

func testDeletes(t *testing.T, props iceberg.Properties) {
	l := newLake(t, props)
	store := checkpoint.NewMemory()
	root := t.TempDir()
	up := pinot.NewLocalDir(root)
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{}, Uploader: up},
		watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir()})
	if err := store.CreateTable(context.Background(), realTable(t, l, nil)); err != nil {
		t.Fatal(err)
	}
	l.appendRows(100)
	if _, err := w.RunOnce(context.Background(), "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	l.deleteWhere(iceberg.LessThan(iceberg.Reference("id"), int64(40)))
	run, err := w.RunOnce(context.Background(), "events", "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, ids := segmentRows(t, up, root)
	if len(ids) != 60 || ids[39] || !ids[40] {
		t.Fatalf("want ids 40..99 after the delete, got %d ids (run %+v)", len(ids), run)
	}
	// Delete the rest: a merge-on-read table keeps a data file whose rows
	// are all deleted, which must leave no segment and no error.
	l.deleteWhere(iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(40)))
	if run, err = w.RunOnce(context.Background(), "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	if n, ids := segmentRows(t, up, root); n != 0 || len(ids) != 0 {
		t.Fatalf("after deleting every row: %d segments, %d ids (run %+v)", n, len(ids), run)
	}
	cp, _ := store.GetCheckpoint(context.Background(), "events")
	for path, fs := range cp.Files { // merge-on-read keeps the fully deleted file
		if len(fs.Segments) != 0 || fs.Rows != 0 {
			t.Fatalf("file %s with every row deleted holds %+v", path, fs)
		}
	}
	// A file with nothing to hold is not rebuilt by the next run.
	if run, err = w.RunOnce(context.Background(), "events", "test", nil); err != nil || run.SegmentsGenerated != 0 {
		t.Fatalf("idle run: %+v, %v", run, err)
	}
}

type noIDRow struct {
	ID int64  `parquet:"id"`
	V  string `parquet:"v"`
}

// A data file written without Iceberg field ids and registered with
// add_files is read with floe's Parquet source, its columns bound by the
// table's name mapping, not through the slower Iceberg scan; every row
// lands once.
func TestIcebergBuilder_ReadsFilesWithoutFieldIDsDirectly(t *testing.T) {
	l := newLake(t)
	rows := make([]noIDRow, 500)
	for i := range rows {
		rows[i] = noIDRow{ID: int64(i), V: fmt.Sprint("v", i)}
	}
	path := parquettest.WriteFile(t, filepath.Join(t.TempDir(), "noids.parquet"), rows)
	tx := l.load().NewTransaction()
	if err := tx.AddFiles(context.Background(), []string{"file://" + path}, nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	tbl := l.load()
	if tbl.NameMapping() == nil {
		t.Fatal("add_files left the table without a name mapping")
	}
	rec := realTable(t, l, nil)
	p, err := plan.New(plan.Options{}).Plan(context.Background(), "events", tbl, checkpoint.Checkpoint{})
	if err != nil || len(p.Build) != 1 {
		t.Fatalf("plan: %d units, %v", len(p.Build), err)
	}
	var sc spec.Schema
	if err := json.Unmarshal(rec.SchemaJSON, &sc); err != nil {
		t.Fatal(err)
	}
	req := watcher.BuildRequest{Table: rec, Schema: &sc, Source: tbl, SnapshotID: p.SnapshotID, Unit: p.Build[0], OutDir: t.TempDir()}
	direct, err := watcher.ReadsDirect(context.Background(), req, p.Build[0].Files[0])
	if err != nil || !direct {
		t.Fatalf("file without field ids: read directly = %v, %v; want the Parquet source", direct, err)
	}

	store := checkpoint.NewMemory()
	root := t.TempDir()
	up := pinot.NewLocalDir(root)
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, Builder: watcher.IcebergBuilder{}, Uploader: up},
		watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir()})
	if err := store.CreateTable(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.RunOnce(context.Background(), "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	if _, ids := segmentRows(t, up, root); len(ids) != 500 || !ids[0] || !ids[499] {
		t.Fatalf("want ids 0..499, got %d ids", len(ids))
	}
}
