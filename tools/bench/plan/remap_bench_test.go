package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/tools/bench/lake"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// remapBench is a synced table of 10,000 files (the checkpoint as the
// processes' seed writes it) and the same table after a compaction into
// 100 files: before and after are the table at both snapshots.
type remapBench struct {
	cp            checkpoint.Checkpoint
	before, after *table.Table
}

func newRemapBench(b *testing.B, files int) remapBench {
	b.Helper()
	ctx := b.Context()
	lk, err := lake.Build(ctx, b.TempDir(), files, 1000, 100)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(lk.Close)
	store := checkpoint.NewMemory()
	if err := store.CreateTable(ctx, checkpoint.Table{Name: seedTable, SchemaJSON: []byte(seedSchema),
		TableConfigJSON: []byte(`{"tableName":"events","tableType":"OFFLINE"}`), TaskConfig: map[string]string{}}); err != nil {
		b.Fatal(err)
	}
	sb := &lake.SeedBuilder{}
	sb.Seeding.Store(true)
	w := watcher.New(watcher.Deps{Store: store, Loader: lake.Loader{Lake: lk}, Builder: sb, Uploader: lake.NewMemSink()},
		watcher.Options{Owner: "bench-seed", WorkDir: filepath.Join(b.TempDir(), "work"), BuildParallelism: 2,
			BatchFiles: 1 << 20, Plan: procPlan})
	if _, err := w.RunOnce(ctx, seedTable, "bench", nil); err != nil {
		b.Fatal(err)
	}
	var rb remapBench
	if rb.cp, err = store.GetCheckpoint(ctx, seedTable); err != nil {
		b.Fatal(err)
	}
	if rb.before, err = lk.Load(ctx); err != nil {
		b.Fatal(err)
	}
	if err := lk.Compact(ctx, files/100); err != nil {
		b.Fatal(err)
	}
	if rb.after, err = lk.Load(ctx); err != nil {
		b.Fatal(err)
	}
	return rb
}

// plan plans the compacted table from the checkpoint and checks that it
// is the remap the benchmark measures.
func (rb remapBench) plan(ctx context.Context, b *testing.B, p *plan.Planner, ix *plan.UnitIndex) {
	got, err := p.PlanIndexed(ctx, seedTable, rb.after, rb.cp, ix)
	if err != nil {
		b.Fatal(err)
	}
	if len(got.Remaps) == 0 || len(got.Build) != 0 || got.RemapFallback != "" {
		b.Fatalf("want a remap, got %d groups, %d units, fallback %q", len(got.Remaps), len(got.Build), got.RemapFallback)
	}
}

// BenchmarkPlanner_Remap measures planning the remap of 10,000 files
// compacted into 100 as `floe serve` does it: a planner that planned the
// table before the compaction (warm: it decodes the replace snapshot's
// manifest once), and one that planned the compacted table already
// (cached: the remap's own work only).
func BenchmarkPlanner_Remap(b *testing.B) {
	rb := newRemapBench(b, 10_000)
	ctx := b.Context()
	b.Run("warm", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			p := plan.New(procPlan)
			ix := p.UnitIndex(rb.cp.Files)
			if _, err := p.PlanIndexed(ctx, seedTable, rb.before, rb.cp, ix); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			rb.plan(ctx, b, p, ix)
		}
	})
	b.Run("cached", func(b *testing.B) {
		p := plan.New(procPlan)
		ix := p.UnitIndex(rb.cp.Files)
		rb.plan(ctx, b, p, ix)
		b.ReportAllocs()
		for b.Loop() {
			rb.plan(ctx, b, p, ix)
		}
	})
}

// BenchmarkWatcher_Remap measures the whole run after the compaction of
// 10,000 files into 100 by a new watcher on a Bolt store (it reads the
// checkpoint and the manifests, as a `floe sync` process does, less the
// process's start): plan, commit and the run record. Each iteration
// starts from a copy of the synced store. cpu-ms/op is the process's CPU
// time around the run.
func BenchmarkWatcher_Remap(b *testing.B) {
	rb := newRemapBench(b, 10_000)
	ctx := b.Context()
	dir := b.TempDir()
	seed := filepath.Join(dir, "seed.db")
	store, err := checkpoint.OpenBolt(seed)
	if err != nil {
		b.Fatal(err)
	}
	if err := store.CreateTable(ctx, checkpoint.Table{Name: seedTable, SchemaJSON: []byte(seedSchema),
		TableConfigJSON: []byte(`{"tableName":"events","tableType":"OFFLINE"}`), TaskConfig: map[string]string{}}); err != nil {
		b.Fatal(err)
	}
	l, err := store.AcquireLease(ctx, seedTable, "bench-seed", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	if err := store.CommitCheckpoint(ctx, l, rb.cp); err != nil {
		b.Fatal(err)
	}
	if err := store.ReleaseLease(ctx, l); err != nil {
		b.Fatal(err)
	}
	store.Close()
	b.ReportAllocs()
	var cpu time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		w, done := storeCopyWatcher(b, seed, filepath.Join(dir, fmt.Sprintf("%d.db", i)), &fixedLoader{tbl: rb.after})
		b.StartTimer()
		cpu += measureRemap(ctx, b, w)
		b.StopTimer()
		done()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}

// BenchmarkWatcher_WarmRemap measures the run after the compaction of
// 10,000 files into 100 by a watcher warmed as a long-lived `floe serve`
// is: it synced the table's last append before the compaction, so its
// checkpoint cache holds the map and its planner what it read. Each
// iteration starts from a copy of the store synced up to that append.
// cpu-ms/op is the process's CPU time around the remap's run.
func BenchmarkWatcher_WarmRemap(b *testing.B) {
	ctx := b.Context()
	dir := b.TempDir()
	lk, err := lake.Build(ctx, filepath.Join(dir, "lake"), 10_000, 1000, 100)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(lk.Close)
	if _, err := seedStore(ctx, lk, filepath.Join(dir, "seed"), newBenchStore(filepath.Join(dir, "seed"), "", "")); err != nil {
		b.Fatal(err)
	}
	seed := filepath.Join(dir, "seed", "floe.db")
	if err := lk.AddFiles(ctx, 1); err != nil {
		b.Fatal(err)
	}
	pre, err := lk.Load(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if err := lk.Compact(ctx, 100); err != nil {
		b.Fatal(err)
	}
	post, err := lk.Load(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var cpu time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		ld := &fixedLoader{tbl: pre}
		w, done := storeCopyWatcher(b, seed, filepath.Join(dir, fmt.Sprintf("%d.db", i)), ld)
		if run, err := w.RunOnce(ctx, seedTable, "bench", nil); err != nil || run.SegmentsGenerated != 1 {
			b.Fatalf("warm-up sync: %d segments built, %v", run.SegmentsGenerated, err)
		}
		ld.tbl = post
		b.StartTimer()
		cpu += measureRemap(ctx, b, w)
		b.StopTimer()
		done()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}

// measureRemap runs w's next run, which must be a remap that builds
// nothing, and returns its CPU time (labelled run=remap in profiles).
func measureRemap(ctx context.Context, b *testing.B, w *watcher.Watcher) time.Duration {
	b.Helper()
	var run checkpoint.Run
	c, err := measure(func() error {
		var err error
		pprof.Do(ctx, pprof.Labels("run", "remap"), func(ctx context.Context) {
			run, err = w.RunOnce(ctx, seedTable, "bench", nil)
		})
		return err
	})
	if err != nil || run.Kind != checkpoint.RunRemap || run.SegmentsGenerated != 0 {
		b.Fatalf("want a remap, got %q, %d built: %v (%v)", run.Kind, run.SegmentsGenerated, err, run.Log)
	}
	return c.cpu
}

// storeCopyWatcher copies the Bolt store at seed to db and returns a
// watcher on the copy, configured as the remap benchmarks' `floe serve`
// (the real builder, an in-memory sink), and what closes and removes it.
func storeCopyWatcher(b *testing.B, seed, db string, ld watcher.TableLoader) (*watcher.Watcher, func()) {
	b.Helper()
	if err := copyFile(seed, db); err != nil {
		b.Fatal(err)
	}
	s, err := checkpoint.OpenBolt(db)
	if err != nil {
		b.Fatal(err)
	}
	w := watcher.New(watcher.Deps{Store: s, Loader: ld, Builder: &watcher.IcebergBuilder{}, Uploader: lake.NewMemSink()},
		watcher.Options{Owner: "bench-serve", WorkDir: filepath.Join(filepath.Dir(db), "work"), BuildParallelism: 2,
			BatchFiles: 64, Plan: procPlan})
	return w, func() {
		s.Close()
		os.Remove(db)
	}
}
