package watcher_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/lakefixture"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
)

// lake is a real Iceberg table in a SQL catalog on sqlite.
type lake struct {
	t     *testing.T
	cat   *sqlcat.Catalog
	ident table.Identifier
	next  int64
}

func newLake(t *testing.T, props ...iceberg.Properties) *lake {
	t.Helper()
	dir := t.TempDir()
	// One connection: the test and the watchers' goroutines share it.
	cat := lakefixture.OpenT(t, lakefixture.Options{Name: "test", DBPath: filepath.Join(dir, "cat.db"), Warehouse: "file://" + dir,
		BusyTimeout: 10 * time.Second, OneConn: true}).Catalog
	ctx := context.Background()
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.PrimitiveTypes.String})
	l := &lake{t: t, cat: cat, ident: table.Identifier{"ns", "events"}}
	var opts []catalog.CreateTableOpt
	for _, p := range props {
		opts = append(opts, catalog.WithProperties(p))
	}
	if _, err := cat.CreateTable(ctx, l.ident, sc, opts...); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *lake) load() *table.Table {
	tbl, err := l.cat.LoadTable(context.Background(), l.ident)
	if err != nil {
		l.t.Fatal(err)
	}
	return tbl
}

func (l *lake) records(n int) arrow.Table {
	tbl := l.load()
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		l.t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Field(0).(*array.Int64Builder).Append(l.next)
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("v", l.next))
		l.next++
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
}

func (l *lake) appendRows(n int) {
	at := l.records(n)
	defer at.Release()
	if _, err := l.load().AppendTable(context.Background(), at, int64(n), nil); err != nil {
		l.t.Fatal(err)
	}
}

func (l *lake) overwrite(n int) {
	at := l.records(n)
	defer at.Release()
	if _, err := l.load().OverwriteTable(context.Background(), at, int64(n), nil); err != nil {
		l.t.Fatal(err)
	}
}

// loader serves the lake's table to the watcher.
type loader struct{ l *lake }

func (ld loader) LoadTable(ctx context.Context, _ checkpoint.Table) (*watcher.Source, error) {
	tbl, err := ld.l.cat.LoadTable(ctx, ld.l.ident) // watcher goroutines: return errors, never t.Fatal
	if err != nil {
		return nil, err
	}
	return &watcher.Source{Table: tbl, MetadataLocation: tbl.MetadataLocation()}, nil
}

// fakeBuilder writes a placeholder tarball per file and records calls. It
// stands in for the segment builder, which has its own tests against Pinot.
type fakeBuilder struct {
	mu    sync.Mutex
	built []string
	fail  map[string]bool // file base names that fail
	err   string          // their error ("" = corrupt parquet footer)
}

func (b *fakeBuilder) Build(_ context.Context, req watcher.BuildRequest) (watcher.BuildResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	res := watcher.BuildResult{FileRows: map[string]int64{}}
	for _, f := range req.Unit.Files {
		if b.fail[filepath.Base(f.Path)] {
			return watcher.BuildResult{}, errors.New(cmp.Or(b.err, "corrupt parquet footer"))
		}
	}
	for _, f := range req.Unit.Files {
		b.built = append(b.built, f.Path)
		res.FileRows[f.Path] = f.Rows
		res.Rows += f.Rows
	}
	name := req.SegmentName(0)
	p := filepath.Join(req.OutDir, name+".tar.gz")
	if err := os.WriteFile(p, []byte(req.Unit.Key), 0o644); err != nil {
		return watcher.BuildResult{}, err
	}
	res.Segments = []pinot.Segment{{Name: name, TarPath: p}}
	return res, nil
}

// flakyUploader fails EndReplace while failNext is set, after doing the
// work: it models a swap Pinot applied but whose answer never arrived.
type flakyUploader struct {
	*pinot.LocalDir
	failNext bool
}

func (u *flakyUploader) EndReplace(ctx context.Context, table, id string) error {
	if err := u.LocalDir.EndReplace(ctx, table, id); err != nil {
		return err
	}
	if u.failNext {
		u.failNext = false
		return errors.New("connection reset after upload")
	}
	return nil
}

type harness struct {
	lake    *lake
	store   checkpoint.Store
	builder *fakeBuilder
	up      *flakyUploader
	w       *watcher.Watcher
}

func newHarness(t *testing.T, taskConfig map[string]string) *harness {
	t.Helper()
	h := &harness{lake: newLake(t), store: checkpoint.NewMemory(), builder: &fakeBuilder{fail: map[string]bool{}}}
	h.up = &flakyUploader{LocalDir: pinot.NewLocalDir(t.TempDir())}
	h.w = watcher.New(watcher.Deps{Store: h.store, Loader: loader{h.lake}, Builder: h.builder, Uploader: h.up},
		watcher.Options{Owner: "test", LeaseTTL: time.Minute, BuildParallelism: 2, WorkDir: t.TempDir()})
	tbl := checkpoint.Table{Name: "events", Connection: "c", Namespace: "ns", Source: "events", TaskConfig: taskConfig,
		SchemaJSON: []byte(`{"schemaName":"events"}`), TableConfigJSON: []byte(`{"tableName":"events","tableType":"OFFLINE"}`)}
	if err := h.store.CreateTable(context.Background(), tbl); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *harness) sync(t *testing.T) checkpoint.Run {
	t.Helper()
	run, err := h.w.RunOnce(context.Background(), "events", "test", nil)
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return run
}

// assertConsistent checks I2: Pinot holds exactly the segments of the
// checkpoint, which holds exactly the live files of the snapshot.
func (h *harness) assertConsistent(t *testing.T) checkpoint.Checkpoint {
	t.Helper()
	ctx := context.Background()
	cp, err := h.store.GetCheckpoint(ctx, "events")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, fs := range cp.Files {
		want = append(want, fs.Segments...)
	}
	slices.Sort(want)
	want = slices.Compact(want) // a coalesced unit's members list its segments each
	got, err := h.up.ListSegments(ctx, "events")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Pinot holds %v, checkpoint says %v", got, want)
	}
	tasks, err := h.lake.load().Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for _, tk := range tasks {
		if _, ok := cp.Files[tk.File.FilePath()]; !ok {
			t.Fatalf("live file %s missing from checkpoint", tk.File.FilePath())
		}
		rows += tk.File.Count()
	}
	if len(tasks) != len(cp.Files) {
		t.Fatalf("checkpoint has %d files, snapshot %d", len(cp.Files), len(tasks))
	}
	var cpRows int64
	for _, fs := range cp.Files {
		cpRows += fs.Rows
	}
	if cpRows != rows {
		t.Fatalf("checkpoint rows %d, snapshot rows %d", cpRows, rows)
	}
	if cp.Rows != cpRows {
		t.Fatalf("checkpoint row total %d, its files hold %d", cp.Rows, cpRows)
	}
	if cp.SnapshotID != h.lake.load().CurrentSnapshot().SnapshotID {
		t.Fatalf("checkpoint at snapshot %d, table at %d", cp.SnapshotID, h.lake.load().CurrentSnapshot().SnapshotID)
	}
	return cp
}

func TestWatcher_RunOnce_IncrementalAppends(t *testing.T) {
	h := newHarness(t, nil)
	h.lake.appendRows(10)
	run := h.sync(t)
	if run.Status != checkpoint.RunCompleted || run.SegmentsGenerated != 1 || run.Rows != 10 {
		t.Fatalf("first run: %+v", run)
	}
	h.assertConsistent(t)

	run = h.sync(t) // nothing new
	if run.Status != checkpoint.RunCompleted || run.SegmentsGenerated != 0 {
		t.Fatalf("no-op run: %+v", run)
	}
	if runs, _ := h.store.ListRuns(context.Background(), "events", 10); len(runs) != 1 {
		t.Fatalf("a check without a new snapshot must not enter the run history: %d runs", len(runs))
	}
	h.lake.appendRows(5)
	run = h.sync(t)
	if run.SegmentsGenerated != 1 || run.Rows != 5 || run.FilesDiscovered != 2 {
		t.Fatalf("incremental run must build only the new file: %+v", run)
	}
	if len(h.builder.built) != 2 {
		t.Fatalf("built %d files in total, want 2 (no rebuilds)", len(h.builder.built))
	}
	h.assertConsistent(t)
}

func TestWatcher_RunOnce_OverwriteSwapsSegments(t *testing.T) {
	h := newHarness(t, nil)
	h.lake.appendRows(10)
	h.lake.appendRows(10)
	h.sync(t)
	before := h.assertConsistent(t)
	h.lake.overwrite(3)
	run := h.sync(t)
	if run.SegmentsDeleted != 2 || run.SegmentsGenerated != 1 {
		t.Fatalf("overwrite must replace both old segments with one: %+v", run)
	}
	after := h.assertConsistent(t)
	for path := range before.Files {
		if _, ok := after.Files[path]; ok {
			t.Fatalf("overwritten file %s still in checkpoint", path)
		}
	}
}

// I2: a push that Pinot applied but whose answer was lost fails the run
// without moving the checkpoint (I1); the next run converges.
func TestWatcher_RunOnce_LostPushAnswerConverges(t *testing.T) {
	h := newHarness(t, nil)
	h.lake.appendRows(10)
	h.sync(t)
	h.lake.overwrite(4)
	h.up.failNext = true
	old, _ := h.store.GetCheckpoint(context.Background(), "events")
	if _, err := h.w.RunOnce(context.Background(), "events", "test", nil); err == nil {
		t.Fatal("want the run to fail")
	}
	cp, _ := h.store.GetCheckpoint(context.Background(), "events")
	if cp.SnapshotID != old.SnapshotID {
		t.Fatal("checkpoint moved although the push failed (I1)")
	}
	h.sync(t)
	h.assertConsistent(t)
}

// I6: a bad file fails the run with its name; the checkpoint stays.
func TestWatcher_RunOnce_BadFileFailsRun(t *testing.T) {
	h := newHarness(t, nil)
	h.lake.appendRows(10)
	h.sync(t)
	h.lake.appendRows(3)
	files := liveFiles(t, h.lake)
	bad := filepath.Base(files[len(files)-1])
	for _, f := range files {
		if _, ok := mustCheckpoint(t, h.store).Files[f]; !ok {
			bad = filepath.Base(f)
		}
	}
	h.builder.fail[bad] = true
	run, err := h.w.RunOnce(context.Background(), "events", "test", nil)
	if err == nil || !strings.Contains(err.Error(), bad) || run.Status != checkpoint.RunFailed {
		t.Fatalf("want a failed run naming %s, got %v (%+v)", bad, err, run)
	}
	if len(mustCheckpoint(t, h.store).Files) != 1 {
		t.Fatal("checkpoint changed after a failed run")
	}
}

func TestWatcher_RunOnce_ContinueOnFileError(t *testing.T) {
	h := newHarness(t, map[string]string{watcher.KeyContinueOnFileError: "true"})
	h.lake.appendRows(10)
	h.lake.appendRows(3)
	files := liveFiles(t, h.lake)
	h.builder.fail[filepath.Base(files[0])] = true
	run := h.sync(t)
	if run.FilesFailed != 1 || run.SegmentsGenerated != 1 || !strings.Contains(run.Error, filepath.Base(files[0])) {
		t.Fatalf("want one file skipped and named: %+v", run)
	}
	cp := mustCheckpoint(t, h.store)
	if _, ok := cp.Files[files[0]]; ok || len(cp.Files) != 1 {
		t.Fatalf("checkpoint must hold only the good file: %v", cp.Files)
	}
}

// I4: a table leased by another replica is skipped, not run twice.
func TestWatcher_RunOnce_LeaseHeldElsewhere(t *testing.T) {
	h := newHarness(t, nil)
	h.lake.appendRows(1)
	if _, err := h.store.AcquireLease(context.Background(), "events", "other-replica", time.Minute); err != nil {
		t.Fatal(err)
	}
	run, _ := h.w.RunOnce(context.Background(), "events", "test", nil)
	if run.Status != checkpoint.RunSkipped || len(h.builder.built) != 0 {
		t.Fatalf("want a skipped run, got %+v", run)
	}
}

func liveFiles(t *testing.T, l *lake) []string {
	t.Helper()
	tasks, err := l.load().Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tk := range tasks {
		out = append(out, tk.File.FilePath())
	}
	slices.Sort(out)
	return out
}

func mustCheckpoint(t *testing.T, s checkpoint.Store) checkpoint.Checkpoint {
	t.Helper()
	cp, err := s.GetCheckpoint(context.Background(), "events")
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

func TestWatcher_RunOnce_ReportsProgress(t *testing.T) {
	h := newHarness(t, nil)
	h.lake.appendRows(2)
	h.lake.appendRows(2)
	h.lake.appendRows(2)
	var mu sync.Mutex
	var seen []string
	_, err := h.w.RunOnce(context.Background(), "events", "test", func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf("%d/%d", done, total))
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(seen, " ") != "0/3 1/3 2/3 3/3" {
		t.Fatalf("progress %v", seen)
	}
}

// panicBuilder panics on every file, as a decoder might on a corrupt one.
type panicBuilder struct{}

func (panicBuilder) Build(context.Context, watcher.BuildRequest) (watcher.BuildResult, error) {
	panic("parquet: page header claims more values than the page holds")
}

// I6: a builder panic fails the run with the file's name instead of
// crashing the process.
func TestWatcher_RunOnce_BuilderPanicFailsRun(t *testing.T) {
	h := newHarness(t, nil)
	h.w = watcher.New(watcher.Deps{Store: h.store, Loader: loader{h.lake}, Builder: panicBuilder{}, Uploader: h.up},
		watcher.Options{Owner: "test", LeaseTTL: time.Minute, WorkDir: t.TempDir()})
	h.lake.appendRows(2)
	run, err := h.w.RunOnce(context.Background(), "events", "test", nil)
	if err != nil && run.Status == checkpoint.RunFailed && strings.Contains(run.Error, "panicked") &&
		strings.Contains(run.Error, liveFiles(t, h.lake)[0]) {
		return
	}
	t.Fatalf("want a failed run naming the file, got %v (%+v)", err, run)
}

func (l *lake) deleteWhere(filter iceberg.BooleanExpression) {
	if _, err := l.load().Delete(context.Background(), filter, nil); err != nil {
		l.t.Fatal(err)
	}
}
