package watcher_test

import (
	"context"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// countingUploader counts every call a run makes to Pinot (the local
// directory sink underneath does the work).
type countingUploader struct {
	*pinot.LocalDir
	mu    sync.Mutex
	calls map[string]int
}

func (u *countingUploader) count(op string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.calls[op]++
}

// take returns the counted calls and starts counting again.
func (u *countingUploader) take() map[string]int {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := u.calls
	u.calls = map[string]int{}
	return out
}

func (u *countingUploader) EnsureTable(ctx context.Context, s *spec.Schema, tc *spec.TableConfig) error {
	u.count("EnsureTable")
	return u.LocalDir.EnsureTable(ctx, s, tc)
}

func (u *countingUploader) ListSegments(ctx context.Context, table string) ([]string, error) {
	u.count("ListSegments")
	return u.LocalDir.ListSegments(ctx, table)
}

func (u *countingUploader) SegmentLineage(ctx context.Context, table string) (pinot.Lineage, error) {
	u.count("SegmentLineage")
	return u.LocalDir.SegmentLineage(ctx, table)
}

func (u *countingUploader) Upload(ctx context.Context, table string, seg pinot.Segment) error {
	u.count("Upload")
	return u.LocalDir.Upload(ctx, table, seg)
}

func (u *countingUploader) StartReplace(ctx context.Context, table string, from, to []string) (string, error) {
	u.count("StartReplace")
	return u.LocalDir.StartReplace(ctx, table, from, to)
}

func (u *countingUploader) EndReplace(ctx context.Context, table, id string) error {
	u.count("EndReplace")
	return u.LocalDir.EndReplace(ctx, table, id)
}

func (u *countingUploader) RevertReplace(ctx context.Context, table, id string) error {
	u.count("RevertReplace")
	return u.LocalDir.RevertReplace(ctx, table, id)
}

func (u *countingUploader) DeleteSegments(ctx context.Context, table string, names []string) error {
	u.count("DeleteSegments")
	return u.LocalDir.DeleteSegments(ctx, table, names)
}

// remapHarness runs real conversions into a local Pinot directory and
// counts the calls to Pinot.
type remapHarness struct {
	lake  *lake
	store checkpoint.Store
	up    *countingUploader
	root  string
	w     *watcher.Watcher
}

func newRemapHarness(t *testing.T) *remapHarness {
	t.Helper()
	h := &remapHarness{lake: newLake(t, iceberg.Properties{"write.delete.mode": "merge-on-read", "format-version": "2"}),
		store: checkpoint.NewMemory(), root: t.TempDir()}
	h.up = &countingUploader{LocalDir: pinot.NewLocalDir(h.root), calls: map[string]int{}}
	h.w = watcher.New(watcher.Deps{Store: h.store, Loader: loader{h.lake}, Builder: watcher.IcebergBuilder{},
		Uploader: h.up, Planner: plan.New(plan.Options{})},
		watcher.Options{Owner: "t", LeaseTTL: 60e9, WorkDir: t.TempDir()})
	if err := h.store.CreateTable(context.Background(), realTable(t, h.lake, nil)); err != nil {
		t.Fatal(err)
	}
	return h
}

// sync runs the table once and checks that Pinot holds exactly the
// table's rows (I2); it returns the run and its log.
func (h *remapHarness) sync(t *testing.T) (checkpoint.Run, string) {
	t.Helper()
	run, err := h.w.RunOnce(context.Background(), "events", "test", nil)
	if err != nil || run.Status != checkpoint.RunCompleted {
		t.Fatalf("run: %+v, %v", run, err)
	}
	_, ids := segmentRows(t, h.up.LocalDir, h.root)
	want := tableIDs(t, h.lake)
	if len(ids) != len(want) {
		t.Fatalf("Pinot holds %d rows, the table %d", len(ids), len(want))
	}
	for _, id := range want {
		if !ids[id] {
			t.Fatalf("Pinot lacks id %d", id)
		}
	}
	runs, err := h.store.ListRuns(context.Background(), "events", 1)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v %+v", err, runs)
	}
	var log strings.Builder
	for _, l := range runs[0].Log {
		log.WriteString(l.Msg)
		for k, v := range l.Attrs {
			log.WriteString(" " + k + "=" + v)
		}
		log.WriteString("\n")
	}
	return run, log.String()
}

// tableIDs scans the table with iceberg-go.
func tableIDs(t *testing.T, l *lake) []int64 {
	t.Helper()
	tbl := l.load()
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, batches, err := tbl.Scan().ReadTasks(context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for b, err := range batches {
		if err != nil {
			t.Fatal(err)
		}
		col := b.Column(b.Schema().FieldIndices("id")[0])
		for i := 0; i < col.Len(); i++ {
			out = append(out, col.GetOneForMarshal(i).(int64))
		}
		b.Release()
	}
	return out
}

// compactAll rewrites every live file of the table into one (iceberg-go's
// RewriteDataFiles: deletes applied, position deletes expunged).
func compactAll(t *testing.T, l *lake) {
	t.Helper()
	tbl := l.load()
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	g := table.CompactionTaskGroup{PartitionKey: "all", Tasks: tasks}
	if _, err := tbl.RewriteDataFiles(context.Background(), []table.CompactionTaskGroup{g}, table.RewriteDataFilesOptions{}); err != nil {
		t.Fatal(err)
	}
	if op := l.load().CurrentSnapshot().Summary.Operation; op != table.OpReplace {
		t.Fatalf("compaction committed a %q snapshot", op)
	}
}

// P11 through real runs: twelve small inserts and a merge-on-read delete,
// then a compaction of all of them into one file. The run that follows
// builds nothing and changes nothing in Pinot, the new file owns the old
// segments and Pinot holds exactly the table's rows. A later delete in
// the compacted file rebuilds its group from the current file in one
// atomic replace.
func TestWatcher_RunOnce_RemapsACompaction(t *testing.T) {
	h := newRemapHarness(t)
	for i := 0; i < 12; i++ {
		h.lake.appendRows(10)
	}
	h.sync(t)
	h.lake.deleteWhere(iceberg.LessThan(iceberg.Reference("id"), int64(3)))
	h.sync(t)
	before, err := h.up.ListSegments(context.Background(), "events")
	if err != nil || len(before) != 12 {
		t.Fatalf("before the compaction: %v segments, %v", before, err)
	}
	h.up.take()

	compactAll(t, h.lake)
	run, log := h.sync(t)
	// The run reads what Pinot serves (orphans, lineage) and changes nothing.
	reads := map[string]int{"ListSegments": 1, "SegmentLineage": 1}
	if c := h.up.take(); !maps.Equal(c, reads) || run.SegmentsGenerated != 0 || run.SegmentsDeleted != 0 || run.Rows != 0 {
		t.Fatalf("P11: the compaction's run must only read Pinot: calls %v, run %+v", c, run)
	}
	if !strings.Contains(log, "remap: 12 files → 1 files own 12 segments") {
		t.Fatalf("run log does not say what was remapped:\n%s", log)
	}
	after, _ := h.up.ListSegments(context.Background(), "events")
	if !slices.Equal(after, before) {
		t.Fatalf("remapped segments must keep their names: %v, then %v", before, after)
	}
	cp, err := h.store.GetCheckpoint(context.Background(), "events")
	if err != nil {
		t.Fatal(err)
	}
	if len(cp.Files) != 1 || cp.Rows != 117 {
		t.Fatalf("checkpoint after the remap: %d files, %d rows; want 1 and 117", len(cp.Files), cp.Rows)
	}
	for path, fs := range cp.Files {
		if len(fs.Segments) != 12 || fs.Rows != 117 || !strings.Contains(fs.Group, "_r") {
			t.Fatalf("file %s: %+v; want it to own the 12 segments as a remapped group", path, fs)
		}
	}

	h.lake.deleteWhere(iceberg.EqualTo(iceberg.Reference("id"), int64(50)))
	run, _ = h.sync(t)
	w := h.up.take()
	if run.SegmentsGenerated != 1 || run.SegmentsDeleted != 12 || w["StartReplace"] != 1 || w["EndReplace"] != 1 {
		t.Fatalf("a delete in the remapped group must rebuild it in one replace: calls %v, run %+v", w, run)
	}
}

// P11: a snapshot labelled replace whose files lose a row is not trusted:
// the run rebuilds the files and says why, and Pinot holds exactly the
// table's rows.
func TestWatcher_RunOnce_MislabelledReplaceRebuilds(t *testing.T) {
	h := newRemapHarness(t)
	for i := 0; i < 3; i++ {
		h.lake.appendRows(10)
	}
	h.sync(t)
	h.up.take()

	tbl := h.lake.load()
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sc, batches, err := tbl.Scan().ReadTasks(context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for b, err := range batches {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, b)
	}
	recs[0] = recs[0].NewSlice(1, recs[0].NumRows()) // the writer's bug: a row lost
	var records iter.Seq2[arrow.RecordBatch, error] = func(yield func(arrow.RecordBatch, error) bool) {
		for _, b := range recs {
			if !yield(b, nil) {
				return
			}
		}
	}
	tx := tbl.NewTransaction()
	rw := tx.NewRewrite(nil)
	for _, tk := range tasks {
		rw.DeleteFile(tk.File)
	}
	for df, err := range table.WriteRecords(context.Background(), tbl, sc, records) {
		if err != nil {
			t.Fatal(err)
		}
		rw.AddDataFile(df)
	}
	if err := rw.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}

	run, log := h.sync(t)
	if run.SegmentsGenerated != 1 || run.SegmentsDeleted != 3 || run.Rows != 29 {
		t.Fatalf("a mislabelled replace must be rebuilt: %+v", run)
	}
	if !strings.Contains(log, "rebuilding compacted files instead") || !strings.Contains(log, "changed rows") {
		t.Fatalf("run log does not say why the replace was rebuilt:\n%s", log)
	}
}

// P11 with other work in the same run: a compaction synced together with
// an append (the remap commits with the append's batch: only the new
// file's segment is uploaded, nothing replaced), then a compaction of two
// of three files synced together with a copy-on-write delete of the third
// (an atomic replace that retires only the third file's segment). Pinot
// holds the table's rows after each.
func TestWatcher_RunOnce_RemapsWithOtherWork(t *testing.T) {
	h := newRemapHarness(t)
	for i := 0; i < 4; i++ {
		h.lake.appendRows(10)
	}
	h.sync(t)
	before, _ := h.up.ListSegments(context.Background(), "events")
	h.up.take()

	compactAll(t, h.lake)
	h.lake.appendRows(10)
	run, log := h.sync(t)
	if w := h.up.take(); w["Upload"] != 1 || w["StartReplace"] != 0 || w["DeleteSegments"] != 0 || run.SegmentsGenerated != 1 {
		t.Fatalf("a remap with an append must upload the new file's segment only: calls %v, run %+v", w, run)
	}
	if !strings.Contains(log, "remap: 4 files → 1 files own 4 segments") {
		t.Fatalf("run log does not say what was remapped:\n%s", log)
	}
	after, _ := h.up.ListSegments(context.Background(), "events")
	if len(after) != 5 || !containsAll(after, before) {
		t.Fatalf("the remapped segments must stay served: %v, then %v", before, after)
	}

	h.lake.appendRows(10)
	h.sync(t)
	tbl := h.lake.load()
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil || len(tasks) != 3 {
		t.Fatalf("want 3 live files, got %d (%v)", len(tasks), err)
	}
	// The files hold ids 0..39 (the compacted one), 40..49 and 50..59:
	// compact the first two, delete the third's rows.
	slices.SortFunc(tasks, func(a, b table.FileScanTask) int {
		return int(slices.Min(rowIDs(t, h.lake, a)) - slices.Min(rowIDs(t, h.lake, b)))
	})
	g := table.CompactionTaskGroup{PartitionKey: "two", Tasks: tasks[:2]}
	if _, err := tbl.RewriteDataFiles(context.Background(), []table.CompactionTaskGroup{g}, table.RewriteDataFilesOptions{}); err != nil {
		t.Fatal(err)
	}
	tx := h.lake.load().NewTransaction()
	if err := tx.SetProperties(iceberg.Properties{table.WriteDeleteModeKey: table.WriteModeCopyOnWrite}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Delete(context.Background(), iceberg.GreaterThanEqual(iceberg.Reference("id"), slices.Min(rowIDs(t, h.lake, tasks[2]))), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.up.take()
	run, log = h.sync(t)
	if run.SegmentsGenerated != 0 || run.SegmentsDeleted != 1 || !strings.Contains(log, "remap: ") {
		t.Fatalf("a remap with a dropped file must retire that file's segment only: run %+v, calls %v\n%s", run, h.up.take(), log)
	}
}

func containsAll(have, want []string) bool {
	for _, s := range want {
		if !slices.Contains(have, s) {
			return false
		}
	}
	return true
}

// rowIDs reads the ids of one scan task.
func rowIDs(t *testing.T, l *lake, tk table.FileScanTask) []int64 {
	t.Helper()
	_, batches, err := l.load().Scan().ReadTasks(context.Background(), []table.FileScanTask{tk})
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for b, err := range batches {
		if err != nil {
			t.Fatal(err)
		}
		col := b.Column(b.Schema().FieldIndices("id")[0])
		for i := 0; i < col.Len(); i++ {
			out = append(out, col.GetOneForMarshal(i).(int64))
		}
		b.Release()
	}
	return out
}
