//go:build integration

package swapload_test

import (
	"context"
	"encoding/json"
	"fmt"
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
	icecatalog "github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/lakefixture"
	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/schema"
	"github.com/floehq/floe/watcher"
)

const (
	tableName = "swapload"
	// Each data file of fileRows rows becomes fileRows/segmentRows
	// segments (read in batches of batchRows), so a replacement uploads
	// several segments before it ends.
	fileRows    = 5000
	segmentRows = "2500"
	batchRows   = 500
	// The query loop runs at least this many queries per operation, and at
	// least afterNew once the new count showed.
	minQueries = 400
	afterNew   = 150
)

// TestSwap_AtomicUnderLoad: an overwrite and a merge-on-read delete are
// each pushed to a Pinot 0.11 cluster as one lineage replacement while two
// workers count the table on the broker back to back; every answer must
// be the old snapshot's count or the new one's. A compaction between them
// is remapped (watcher/plan P11): its run changes no segment, and every
// answer is the one count.
func TestSwap_AtomicUnderLoad(t *testing.T) {
	l := newLoadTest(t)
	for i := range int64(8) {
		l.appendRows(i*fileRows, (i+1)*fileRows)
	}
	l.sync(t)
	l.waitCount(t, 8*fileRows)

	l.op(t, "overwrite", 8*fileRows, 6*fileRows, func() { l.overwrite(100_000, 100_000+6*fileRows) })
	for i := range int64(4) {
		l.appendRows(200_000+i*fileRows, 200_000+(i+1)*fileRows)
	}
	l.sync(t)
	l.waitCount(t, 10*fileRows)
	l.op(t, "compaction", 10*fileRows, 10*fileRows, l.compact)
	l.op(t, "merge-on-read delete", 10*fileRows, 8*fileRows, func() {
		l.delete(iceberg.LessThan(iceberg.Reference("id"), int64(100_000+2*fileRows)))
	})
}

type loadTest struct {
	t      *testing.T
	cat    *sqlcat.Catalog
	ident  table.Identifier
	store  checkpoint.Store
	w      *watcher.Watcher
	ctl    *pinot.Controller
	broker *pinot.Broker
}

func newLoadTest(t *testing.T) *loadTest {
	t.Helper()
	cluster := testpeer.StartPinot(t)
	dir := t.TempDir()
	l := &loadTest{t: t, ident: table.Identifier{"load", "events"}, store: checkpoint.NewMemory()}
	l.cat = lakefixture.OpenT(t, lakefixture.Options{Name: "load", DBPath: filepath.Join(dir, "catalog.db"), Warehouse: "file://" + dir,
		BusyTimeout: 10 * time.Second, OneConn: true}).Catalog
	ctx := t.Context()
	if err := l.cat.CreateNamespace(ctx, l.ident[:1], nil); err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "city", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "v", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 4, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz, Required: true})
	props := iceberg.Properties{"format-version": "2", table.WriteDeleteModeKey: table.WriteModeMergeOnRead}
	if _, err := l.cat.CreateTable(ctx, l.ident, sc, icecatalog.WithProperties(props)); err != nil {
		t.Fatal(err)
	}
	var err error
	if l.ctl, err = pinot.NewController(cluster.ControllerURL, time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	l.broker = pinot.NewBroker(cluster.BrokerURL, time.Minute, nil)
	l.broker.NullHandling = false // Pinot 0.11 refuses enableNullHandling
	l.w = watcher.New(watcher.Deps{Store: l.store, Loader: l, Builder: watcher.IcebergBuilder{BatchRows: batchRows}, Uploader: l.ctl},
		watcher.Options{Owner: "swapload", LeaseTTL: time.Minute, BuildParallelism: 2, WorkDir: filepath.Join(dir, "work")})
	res, err := schema.Infer(sc, schema.Options{Name: tableName})
	if err != nil {
		t.Fatal(err)
	}
	sj, _ := json.Marshal(res.Schema)
	tj, _ := json.Marshal(schema.TableConfig(res, schema.TableOptions{}))
	if err := l.store.CreateTable(ctx, checkpoint.Table{Name: tableName, Connection: "load", Namespace: "load",
		Source: "events", TaskConfig: map[string]string{watcher.KeyMaxRowsPerSegment: segmentRows},
		SchemaJSON: sj, TableConfigJSON: tj}); err != nil {
		t.Fatal(err)
	}
	return l
}

// LoadTable serves the table to the watcher.
func (l *loadTest) LoadTable(ctx context.Context, _ checkpoint.Table) (*watcher.Source, error) {
	tbl, err := l.cat.LoadTable(ctx, l.ident)
	if err != nil {
		return nil, err
	}
	return &watcher.Source{Table: tbl, MetadataLocation: tbl.MetadataLocation()}, nil
}

func (l *loadTest) load() *table.Table {
	l.t.Helper()
	tbl, err := l.cat.LoadTable(l.t.Context(), l.ident)
	if err != nil {
		l.t.Fatal(err)
	}
	return tbl
}

// records builds rows id from..to-1.
func (l *loadTest) records(tbl *table.Table, from, to int64) arrow.Table {
	l.t.Helper()
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		l.t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	cities := []string{"Lisbon", "Oslo", "Tallinn", "Vienna"}
	for i := from; i < to; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
		b.Field(1).(*array.StringBuilder).Append(cities[i%4])
		b.Field(2).(*array.Float64Builder).Append(float64(i) / 8)
		b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + i*1_000_000))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
}

func (l *loadTest) appendRows(from, to int64) {
	l.t.Helper()
	tbl := l.load()
	at := l.records(tbl, from, to)
	defer at.Release()
	if _, err := tbl.AppendTable(l.t.Context(), at, to-from, nil); err != nil {
		l.t.Fatal(err)
	}
}

func (l *loadTest) overwrite(from, to int64) {
	l.t.Helper()
	tbl := l.load()
	at := l.records(tbl, from, to)
	defer at.Release()
	if _, err := tbl.OverwriteTable(l.t.Context(), at, to-from, nil); err != nil {
		l.t.Fatal(err)
	}
}

// compact rewrites every live data file into new files in one snapshot.
func (l *loadTest) compact() {
	l.t.Helper()
	ctx := l.t.Context()
	tbl := l.load()
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		l.t.Fatal(err)
	}
	if _, err := tbl.RewriteDataFiles(ctx, []table.CompactionTaskGroup{{PartitionKey: "all", Tasks: tasks}},
		table.RewriteDataFilesOptions{}); err != nil {
		l.t.Fatalf("compact: %v", err)
	}
}

// delete writes position deletes (merge-on-read) for the matching rows.
func (l *loadTest) delete(filter iceberg.BooleanExpression) {
	l.t.Helper()
	ctx := l.t.Context()
	tx := l.load().NewTransaction()
	if err := tx.Delete(ctx, filter, nil); err != nil {
		l.t.Fatalf("delete: %v", err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		l.t.Fatalf("commit delete: %v", err)
	}
}

func (l *loadTest) sync(t *testing.T) checkpoint.Run {
	t.Helper()
	run, err := l.w.RunOnce(t.Context(), tableName, "test", nil)
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return run
}

// waitCount waits until the broker counts n rows (routing follows an
// upload or a swap asynchronously).
func (l *loadTest) waitCount(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		got, err := countRows(t.Context(), l.broker)
		if err == nil && got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the broker never counted %d rows: last %d, %v", n, got, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func countRows(ctx context.Context, b *pinot.Broker) (int64, error) {
	rt, err := b.Query(ctx, "SELECT count(*) FROM "+tableName)
	if err != nil {
		return 0, err
	}
	if len(rt.Rows) != 1 || len(rt.Rows[0]) != 1 {
		return 0, fmt.Errorf("count answered %v", rt.Rows)
	}
	return json.Number(fmt.Sprint(rt.Rows[0][0])).Int64()
}

// op commits change to Iceberg, then syncs it while the query loop runs,
// and checks every count the loop saw.
func (l *loadTest) op(t *testing.T, name string, oldRows, newRows int64, change func()) {
	t.Helper()
	before, err := l.ctl.ListSegments(t.Context(), tableName)
	if err != nil {
		t.Fatal(err)
	}
	change()
	q := startLoop(t.Context(), l.broker, 2)
	q.waitQueries(t, minQueries/4)
	q.setInFlight(true)
	began := time.Now()
	run := l.sync(t)
	took := time.Since(began)
	q.setInFlight(false)
	q.waitNew(t, newRows, minQueries, afterNew)
	st := q.stop()
	after, err := l.ctl.ListSegments(t.Context(), tableName)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case name == "compaction" && (run.SegmentsDeleted != 0 || run.SegmentsGenerated != 0 || !slices.Equal(before, after)):
		t.Fatalf("%s: a compaction must be remapped, not swapped (run %+v, segments %v, then %v)", name, run, before, after)
	case name != "compaction" && (run.SegmentsDeleted == 0 || run.SegmentsGenerated == 0):
		t.Fatalf("%s: the run replaced nothing (run %+v)", name, run)
	}
	for n := range st.seen {
		if n != oldRows && n != newRows {
			t.Errorf("%s: the broker counted %d rows %d times during the swap; only %d (before) or %d (after) may show",
				name, n, st.seen[n], oldRows, newRows)
		}
	}
	for _, err := range st.errs {
		t.Errorf("%s: a query failed during the swap: %v", name, err)
	}
	t.Logf("row: | %s | %d → %d | %d → %d | %d | %d | %s | %.1f |", name, oldRows, newRows, len(before), len(after),
		st.total, st.inFlight, st.seenText(), took.Seconds())
}

// loop counts the table on the broker with several workers, back to back.
type loop struct {
	mu       sync.Mutex
	cond     *sync.Cond
	seen     map[int64]int
	total    int
	inFlight int // queries answered while the run was in flight
	flying   bool
	newAt    int // total when the new count first showed (0: not yet)
	newRows  int64
	timedOut bool
	errs     []error
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

func startLoop(ctx context.Context, b *pinot.Broker, workers int) *loop {
	ctx, cancel := context.WithCancel(ctx)
	q := &loop{seen: map[int64]int{}, cancel: cancel, newRows: -1}
	q.cond = sync.NewCond(&q.mu)
	for range workers {
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			for ctx.Err() == nil {
				n, err := countRows(ctx, b)
				q.note(ctx, n, err)
			}
		}()
	}
	return q
}

func (q *loop) note(ctx context.Context, n int64, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	defer q.cond.Broadcast()
	if ctx.Err() != nil {
		return
	}
	q.total++
	if q.flying {
		q.inFlight++
	}
	if err != nil {
		if len(q.errs) < 5 {
			q.errs = append(q.errs, err)
		}
		return
	}
	q.seen[n]++
	if n == q.newRows && q.newAt == 0 {
		q.newAt = q.total
	}
}

func (q *loop) setInFlight(on bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.flying = on
}

// waitQueries waits until the loop answered n queries.
func (q *loop) waitQueries(t *testing.T, n int) {
	t.Helper()
	q.wait(t, func() bool { return q.total >= n }, fmt.Sprintf("%d queries", n))
}

// waitNew waits until the new count showed, at least least queries ran in
// all, and at least after ran since the new count first showed.
func (q *loop) waitNew(t *testing.T, newRows int64, least, after int) {
	t.Helper()
	q.mu.Lock()
	q.newRows = newRows
	if q.seen[newRows] > 0 && q.newAt == 0 {
		q.newAt = q.total
	}
	q.mu.Unlock()
	q.wait(t, func() bool { return q.newAt > 0 && q.total >= least && q.total-q.newAt >= after },
		fmt.Sprintf("the new count %d", newRows))
}

// wait blocks until ok holds (under q.mu), failing the test after a
// generous deadline: the loop must make progress.
func (q *loop) wait(t *testing.T, ok func() bool, what string) {
	t.Helper()
	deadline := time.AfterFunc(3*time.Minute, func() {
		q.mu.Lock()
		q.timedOut = true
		q.mu.Unlock()
		q.cond.Broadcast()
	})
	defer deadline.Stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for !ok() {
		if q.timedOut {
			t.Fatalf("the query loop never saw %s (%d queries, counts %s, errors %v)", what, q.total, q.seenTextLocked(), q.errs)
		}
		q.cond.Wait()
	}
}

// loopStats is what a loop saw.
type loopStats struct {
	seen            map[int64]int
	total, inFlight int
	errs            []error
}

func (q *loop) stop() loopStats {
	q.cancel()
	q.wg.Wait()
	q.mu.Lock()
	defer q.mu.Unlock()
	return loopStats{seen: q.seen, total: q.total, inFlight: q.inFlight, errs: q.errs}
}

func (s loopStats) seenText() string { return seenText(s.seen) }

func (q *loop) seenTextLocked() string { return seenText(q.seen) }

// seenText lists counts and how often each showed, in order of count.
func seenText(seen map[int64]int) string {
	var keys []int64
	for n := range seen {
		keys = append(keys, n)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, n := range keys {
		parts[i] = fmt.Sprintf("%d (%d×)", n, seen[n])
	}
	return strings.Join(parts, ", ")
}
