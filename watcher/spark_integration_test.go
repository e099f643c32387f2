//go:build integration

package watcher_test

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/schema"
	"github.com/floehq/floe/segments/read"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// Spark (PySpark with Iceberg's Spark runtime) writes a format-v2
// merge-on-read table into a Hadoop warehouse the way a Spark user does:
// small INSERTs, a DELETE (position deletes), then the maintenance
// procedures rewrite_data_files (bin-pack, then sort, each over live
// position deletes) and rewrite_position_delete_files. floe reads it as a
// `hadoop` connection and syncs it after every step into a local segment
// directory.
//
// It proves P11 (a replace snapshot that rewrites data or delete files is
// a remap): such a snapshot changes no row, so the run that follows each
// rewrite_data_files and rewrite_position_delete_files builds no segment
// and makes no Pinot call that changes anything (no upload, no schema or
// table call, no replacement, no delete); floe only moves its file→segment
// map onto the new files, or records the new delete fingerprints. And it
// proves I2 at every step: the served segments hold exactly the rows
// Spark's SELECT returns.
func TestWatcher_SparkReplaceSnapshotIsRemap(t *testing.T) {
	start := time.Now()
	sp := testpeer.StartSpark(t, "lake")
	t.Logf("spark session up in %s", time.Since(start).Round(time.Millisecond))
	const tbl = "ns.events"
	res := sp.Run(t,
		testpeer.SparkStep{Op: "create", Table: tbl},
		testpeer.SparkStep{Op: "insert", Table: tbl, Commits: 6, Rows: 40},
		testpeer.SparkStep{Op: "delete", Table: tbl, Where: "id % 7 = 0"},
		testpeer.SparkStep{Op: "rows", Table: tbl})
	wantOperation(t, res[2], "delete")
	env := newSparkSync(t, sp, "spark_events", "ns", "events")
	first := env.sync(t, "inserts and a merge-on-read delete", res[3])
	if _, n := first.writes(); first.built == 0 || n == 0 {
		t.Fatalf("the first sync built %d segments and made %d Pinot writes; it must build and upload the table", first.built, n)
	}

	t.Run("rewrite_data_files binpack", func(t *testing.T) {
		res := sp.Run(t,
			testpeer.SparkStep{Op: "rewrite_data", Table: tbl, Strategy: "binpack", Options: map[string]string{"min-input-files": "2"}},
			testpeer.SparkStep{Op: "rows", Table: tbl})
		wantRewrite(t, res[0], "rewritten_data_files_count", 2)
		env.sync(t, "rewrite_data_files binpack", res[1]).wantRemap(t)
	})

	t.Run("rewrite_data_files sort", func(t *testing.T) {
		// New files and a delete reaching old and new ones, so the sort
		// rewrites files that live position deletes apply to.
		res := sp.Run(t,
			testpeer.SparkStep{Op: "insert", Table: tbl, Commits: 3, Rows: 40, From: 240},
			testpeer.SparkStep{Op: "delete", Table: tbl, Where: "id % 5 = 0"},
			testpeer.SparkStep{Op: "rows", Table: tbl})
		env.sync(t, "inserts and a delete after the bin-pack", res[2])
		res = sp.Run(t,
			testpeer.SparkStep{Op: "rewrite_data", Table: tbl, Strategy: "sort", SortOrder: "id DESC NULLS LAST",
				Options: map[string]string{"rewrite-all": "true"}},
			testpeer.SparkStep{Op: "rows", Table: tbl})
		wantRewrite(t, res[0], "rewritten_data_files_count", 2)
		env.sync(t, "rewrite_data_files sort", res[1]).wantRemap(t)
	})

	t.Run("rewrite_position_delete_files", func(t *testing.T) {
		res := sp.Run(t,
			testpeer.SparkStep{Op: "delete", Table: tbl, Where: "id % 11 = 0"},
			testpeer.SparkStep{Op: "delete", Table: tbl, Where: "id % 13 = 0"},
			testpeer.SparkStep{Op: "rows", Table: tbl})
		env.sync(t, "two merge-on-read deletes after the sort", res[2])
		res = sp.Run(t,
			testpeer.SparkStep{Op: "rewrite_deletes", Table: tbl, Options: map[string]string{"rewrite-all": "true"}},
			testpeer.SparkStep{Op: "rows", Table: tbl})
		wantRewrite(t, res[0], "rewritten_delete_files_count", 2)
		// A replace that rewrites only delete files changes the delete
		// fingerprint of the files they reach but no row: their segments
		// stay, only the fingerprints are recorded anew (rows exact,
		// checked by sync).
		env.sync(t, "rewrite_position_delete_files", res[1]).wantRemap(t)
	})
	t.Run("appends fold from the head of the list", func(t *testing.T) {
		// P13: Spark lists the manifests a snapshot wrote first and its
		// summaries count them, so a delete-free table's appends fold
		// reading only the head of each manifest list.
		const appends = "ns.appends"
		res := sp.Run(t,
			testpeer.SparkStep{Op: "create", Table: appends},
			testpeer.SparkStep{Op: "insert", Table: appends, Commits: 4, Rows: 20},
			testpeer.SparkStep{Op: "rows", Table: appends})
		env := newSparkSync(t, sp, "spark_appends", "ns", "appends")
		env.sync(t, "four inserts", res[2])
		res = sp.Run(t,
			testpeer.SparkStep{Op: "insert", Table: appends, Commits: 2, Rows: 20, From: 80},
			testpeer.SparkStep{Op: "rows", Table: appends})
		before := env.planner.CacheStats().ListHeads
		got := env.sync(t, "two more inserts", res[1])
		if heads := env.planner.CacheStats().ListHeads - before; heads < 2 || got.run.Kind != checkpoint.RunAppend {
			t.Fatalf("P13: two Spark appends must fold as an append reading 2 manifest lists to their head, "+
				"read %d so (run kind %q)", heads, got.run.Kind)
		}
	})
	t.Logf("test ran %s", time.Since(start).Round(time.Millisecond))
}

// wantOperation checks the snapshot a Spark step committed.
func wantOperation(t *testing.T, r testpeer.SparkResult, op string) {
	t.Helper()
	if r.Operation != op {
		t.Fatalf("spark step %s committed a %q snapshot (%d), want %q", r.Op, r.Operation, r.SnapshotID, op)
	}
}

// wantRewrite checks that a maintenance procedure committed a replace
// snapshot that rewrote at least least files of the counted kind, so the
// sync that follows has a rewrite to follow.
func wantRewrite(t *testing.T, r testpeer.SparkResult, counter string, least int64) {
	t.Helper()
	wantOperation(t, r, "replace")
	if r.Result[counter] < least {
		t.Fatalf("spark %s reported %s = %d (result %v), want at least %d", r.Op, counter, r.Result[counter], r.Result, least)
	}
}

// sparkSync is one floe watcher syncing a Spark-written table from a
// hadoop connection into a local segment directory, with every build and
// every Pinot call counted.
type sparkSync struct {
	name    string
	sinkDir string
	sink    *pinot.LocalDir
	store   checkpoint.Store
	w       *watcher.Watcher
	builder *countingBuilder
	up      *countingUploader
	planner *plan.Planner
}

func newSparkSync(t *testing.T, sp *testpeer.Spark, name, ns, source string) *sparkSync {
	t.Helper()
	cfg := catalog.Config{Name: "spark", Type: catalog.TypeHadoop, Props: map[string]string{catalog.PropWarehouse: "file://" + sp.Warehouse}}
	cfg, err := catalog.Policy{LocalRoots: []string{sp.Warehouse}}.Resolve(cfg)
	if err != nil {
		t.Fatalf("resolve the hadoop connection: %v", err)
	}
	dir := t.TempDir()
	s := &sparkSync{name: name, sinkDir: filepath.Join(dir, "sink"), store: checkpoint.NewMemory(),
		builder: &countingBuilder{inner: watcher.IcebergBuilder{}}, planner: plan.New(plan.Options{})}
	s.sink = pinot.NewLocalDir(s.sinkDir)
	s.up = &countingUploader{LocalDir: s.sink, calls: map[string]int{}}
	ld := &hadoopLoader{cfg: cfg}
	t.Cleanup(ld.close)
	s.w = watcher.New(watcher.Deps{Store: s.store, Loader: ld, Builder: s.builder, Uploader: s.up, Planner: s.planner,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		watcher.Options{Owner: "spark-test", LeaseTTL: time.Minute, BuildParallelism: 2, WorkDir: filepath.Join(dir, "work")})
	src, err := ld.LoadTable(t.Context(), checkpoint.Table{Connection: "spark", Namespace: ns, Source: source})
	if err != nil {
		t.Fatalf("floe cannot load the Spark table %s.%s: %v", ns, source, err)
	}
	res, err := schema.Infer(src.Table.Schema(), schema.Options{Name: name, NoTimeColumn: true})
	if err != nil {
		t.Fatalf("infer the Pinot schema of %s.%s: %v", ns, source, err)
	}
	rec, err := api.ExternalTable(name, "spark", ns, source, res.Schema, schema.TableConfig(res, schema.TableOptions{Connection: "spark"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.CreateTable(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	return s
}

// syncResult is what one floe run did.
type syncResult struct {
	step  string
	run   checkpoint.Run
	built int            // segments the builder returned
	units int            // Build calls
	calls map[string]int // Pinot calls by method
}

// writes returns the Pinot calls that change what Pinot holds, by
// method, and their total. Reads (what Pinot serves, its lineage) are
// left out: every run that planned work checks them.
func (r syncResult) writes() (map[string]int, int) {
	out, n := map[string]int{}, 0
	for m, c := range r.calls {
		if !readOnlyCall(m) {
			out[m] = c
			n += c
		}
	}
	return out, n
}

// wantRemap fails the test unless the run built nothing and changed
// nothing in Pinot.
func (r syncResult) wantRemap(t *testing.T) {
	t.Helper()
	writes, n := r.writes()
	if r.built != 0 || r.units != 0 || r.run.SegmentsGenerated != 0 || r.run.SegmentsDeleted != 0 || n != 0 {
		t.Errorf("the run after %s (a replace snapshot: it changes no row) built %d segments from %d units "+
			"(run: segmentsGenerated=%d, segmentsDeleted=%d, rows=%d) and made %d Pinot writes %v; "+
			"a replace snapshot must be a remap: 0 segments built, 0 Pinot writes",
			r.step, r.built, r.units, r.run.SegmentsGenerated, r.run.SegmentsDeleted, r.run.Rows, n, writes)
	}
}

// sync runs floe once and checks that it reached Spark's snapshot and that
// the served segments hold exactly Spark's rows (I2).
func (s *sparkSync) sync(t *testing.T, step string, spark testpeer.SparkResult) syncResult {
	t.Helper()
	s.builder.reset()
	s.up.take()
	run, err := s.w.RunOnce(t.Context(), s.name, "manual", nil)
	if err != nil {
		t.Fatalf("floe sync after %s: %v", step, err)
	}
	out := syncResult{step: step, run: run, calls: s.up.take()}
	out.units, out.built = s.builder.counts()
	if run.SnapshotID != spark.SnapshotID {
		t.Fatalf("floe synced snapshot %d after %s, Spark's current snapshot is %d", run.SnapshotID, step, spark.SnapshotID)
	}
	got := s.servedRows(t)
	want := make([]testpeer.SparkRow, len(spark.Rows))
	copy(want, spark.Rows)
	sortRows(want)
	if !slices.Equal(got, want) {
		t.Fatalf("after %s Pinot serves %d rows, Spark's SELECT returns %d: %s", step, len(got), len(want), rowDiff(got, want))
	}
	t.Logf("sync after %s: snapshot %d, %d rows exact; built %d segments from %d units, Pinot calls %v",
		step, run.SnapshotID, len(got), out.built, out.units, out.calls)
	return out
}

// servedRows reads id and v of every row of every served segment.
func (s *sparkSync) servedRows(t *testing.T) []testpeer.SparkRow {
	t.Helper()
	names, err := s.sink.ListSegments(t.Context(), s.name)
	if err != nil {
		t.Fatalf("list served segments: %v", err)
	}
	var rows []testpeer.SparkRow
	for _, n := range names {
		seg, err := read.Open(filepath.Join(s.sinkDir, s.name, n+".tar.gz"))
		if err != nil {
			t.Fatalf("open served segment %s: %v", n, err)
		}
		ids, err := seg.ReadColumn("id")
		if err != nil {
			t.Fatal(err)
		}
		vs, err := seg.ReadColumn("v")
		if err != nil {
			t.Fatal(err)
		}
		for i := range ids.Values {
			rows = append(rows, testpeer.SparkRow{ID: ids.Values[i].(int64), V: vs.Values[i].(string)})
		}
	}
	sortRows(rows)
	return rows
}

func sortRows(rows []testpeer.SparkRow) {
	slices.SortFunc(rows, func(a, b testpeer.SparkRow) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), strings.Compare(a.V, b.V))
	})
}

// rowDiff names up to ten rows only one side holds, with multiplicity.
func rowDiff(got, want []testpeer.SparkRow) string {
	count := map[testpeer.SparkRow]int{}
	for _, r := range got {
		count[r]++
	}
	for _, r := range want {
		count[r]--
	}
	var out []string
	for r, c := range count {
		if c != 0 && len(out) < 10 {
			out = append(out, fmt.Sprintf("%v ×%+d", r, c))
		}
	}
	slices.Sort(out)
	return "rows in Pinot − rows in Spark: " + strings.Join(out, ", ")
}

// hadoopLoader opens the hadoop connection once, through floe's catalog
// package, and serves its tables to the watcher.
type hadoopLoader struct {
	cfg  catalog.Config
	mu   sync.Mutex
	open catalog.Catalog
}

func (l *hadoopLoader) LoadTable(ctx context.Context, t checkpoint.Table) (*watcher.Source, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open == nil {
		cat, err := catalog.Open(ctx, l.cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			return nil, err
		}
		l.open = cat
	}
	tbl, err := l.open.LoadTable(ctx, catalog.TableIdent{Namespace: strings.Split(t.Namespace, "."), Name: t.Source})
	if err != nil {
		return nil, err
	}
	return &watcher.Source{Table: tbl.Iceberg, MetadataLocation: tbl.MetadataLocation}, nil
}

func (l *hadoopLoader) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open != nil {
		_ = l.open.Close()
	}
}

// countingBuilder counts the units a run builds and the segments they
// become.
type countingBuilder struct {
	inner    watcher.SegmentBuilder
	mu       sync.Mutex
	units    int
	segments int
}

func (b *countingBuilder) Build(ctx context.Context, req watcher.BuildRequest) (watcher.BuildResult, error) {
	res, err := b.inner.Build(ctx, req)
	b.mu.Lock()
	b.units++
	b.segments += len(res.Segments)
	b.mu.Unlock()
	return res, err
}

func (b *countingBuilder) reset() {
	b.mu.Lock()
	b.units, b.segments = 0, 0
	b.mu.Unlock()
}

func (b *countingBuilder) counts() (units, segments int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.units, b.segments
}

// readOnlyCall tells the Pinot calls that change nothing: what Pinot
// serves, and what its lineage says about names.
func readOnlyCall(method string) bool { return method == "ListSegments" || method == "SegmentLineage" }
