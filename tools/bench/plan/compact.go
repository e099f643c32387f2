package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/tools/bench/lake"
	"github.com/floehq/floe/watcher"
)

// compactStat is the run after a compaction of the table into a
// hundredth of its files, measured as an operator pays it: a new
// `floe sync` process (cold) and the next run of the long-lived watcher
// (warm), each against the one-file syncs of the same table.
type compactStat struct {
	from, into int // data files before and after the compaction
	cold, warm compactRun
}

// compactRun is one measured remap: its cost, what the run record says it
// did, and what the sink received.
type compactRun struct {
	cost                      procStat
	kind                      checkpoint.RunKind
	built, replaced, remapped int
	sinkFiles                 int   // files the sink's directory gained, rewrote or lost
	sinkBytes                 int64 // their bytes
}

// measureCompactionProcesses adds one file to the table and syncs it with
// the long-lived watcher w, compacts the table, then measures the remap
// that follows: warm, as the median CPU of runs runs (w's own, then new
// watchers on copies of the store taken before that last sync, each
// warmed by syncing it again; the live heap is w's), and cold, as the
// median of runs `floe sync` processes, each on a fresh copy of the store
// taken before the remap (the processes' Bolt store is locked by the open
// watcher, and each remap moves the checkpoint). Every one must build,
// retire and push nothing.
func measureCompactionProcesses(ctx context.Context, l *lake.Lake, w *watcher.Watcher, dir, floeBin string,
	env []string, profile string, runs int) (compactStat, error) {
	cdir := filepath.Join(dir, "compact")
	warmSeed, pristine, coldDB := filepath.Join(cdir, "warm.db"), filepath.Join(cdir, "pristine.db"), filepath.Join(cdir, "floe.db")
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		return compactStat{}, err
	}
	pre, err := syncOneMore(ctx, l, w, filepath.Join(dir, "floe.db"), warmSeed)
	if err != nil {
		return compactStat{}, err
	}
	from := l.Files
	if err := l.Compact(ctx, l.Files/100); err != nil {
		return compactStat{}, err
	}
	out := compactStat{from: from, into: l.Files}
	post, err := l.Load(ctx)
	if err != nil {
		return out, err
	}
	if err := copyFile(filepath.Join(dir, "floe.db"), pristine); err != nil {
		return out, err
	}
	sink := filepath.Join(dir, "segments")
	if profile != "" {
		profile += ".compact"
	}
	stop := startProfile(profile, from)
	out.warm, err = warmRemap(ctx, w, sink)
	stop()
	if err != nil {
		return out, err
	}
	warm := []procStat{out.warm.cost}
	for i := 1; i < runs; i++ {
		r, err := freshWarmRemap(ctx, filepath.Join(cdir, "warm-run.db"), warmSeed, dir, pre, post)
		if err != nil {
			return out, err
		}
		warm = append(warm, r.cost)
	}
	out.warm.cost.cpu = procMedian(warm).cpu
	var cold []procStat
	for range runs {
		if err := copyFile(pristine, coldDB); err != nil {
			return out, err
		}
		if out.cold, err = coldRemap(ctx, floeBin, append(env, "FLOE_STORE_PATH="+coldDB), coldDB, sink); err != nil {
			return out, err
		}
		cold = append(cold, out.cold.cost)
	}
	out.cold.cost = procMedian(cold)
	return out, nil
}

// syncOneMore copies the store at db to seed, adds a file to the table
// and syncs it with w, and returns the table as w synced it.
func syncOneMore(ctx context.Context, l *lake.Lake, w *watcher.Watcher, db, seed string) (*table.Table, error) {
	if err := copyFile(db, seed); err != nil {
		return nil, err
	}
	if err := l.AddFiles(ctx, 1); err != nil {
		return nil, err
	}
	tbl, err := l.Load(ctx)
	if err != nil {
		return nil, err
	}
	if run, err := w.RunOnce(ctx, seedTable, "bench", nil); err != nil || run.SegmentsGenerated < 1 {
		return nil, fmt.Errorf("sync before the compaction: %d segments built, %v", run.SegmentsGenerated, err)
	}
	return tbl, nil
}

// freshWarmRemap measures the remap of a new watcher on a copy at db of
// the store at seed, warmed as `floe serve` is by its earlier runs: it
// first syncs the table as pre (the file the store lacks), then remaps
// the table as post.
func freshWarmRemap(ctx context.Context, db, seed, dir string, pre, post *table.Table) (compactRun, error) {
	if err := copyFile(seed, db); err != nil {
		return compactRun{}, err
	}
	store, err := checkpoint.OpenBolt(db)
	if err != nil {
		return compactRun{}, err
	}
	defer store.Close()
	ld := &fixedLoader{tbl: pre}
	w := warmWatcher(store, ld, dir)
	if run, err := w.RunOnce(ctx, seedTable, "bench", nil); err != nil || run.SegmentsGenerated < 1 {
		return compactRun{}, fmt.Errorf("warm-up sync of a new watcher: %d segments built, %v", run.SegmentsGenerated, err)
	}
	ld.tbl = post
	return warmRemap(ctx, w, filepath.Join(dir, "segments"))
}

// fixedLoader serves the table as set, whatever table record asks.
type fixedLoader struct{ tbl *table.Table }

func (ld *fixedLoader) LoadTable(context.Context, checkpoint.Table) (*watcher.Source, error) {
	return &watcher.Source{Table: ld.tbl, MetadataLocation: ld.tbl.MetadataLocation()}, nil
}

// warmRemap measures the watcher's run after the compaction.
func warmRemap(ctx context.Context, w *watcher.Watcher, sink string) (compactRun, error) {
	before, err := sinkFiles(sink)
	if err != nil {
		return compactRun{}, err
	}
	var run checkpoint.Run
	c, err := measure(func() error {
		var err error
		run, err = w.RunOnce(ctx, seedTable, "bench", nil)
		return err
	})
	if err != nil {
		return compactRun{}, fmt.Errorf("warm remap: %w", err)
	}
	r := compactRun{cost: procStat{cpu: float64(c.cpu.Microseconds()) / 1e3, mem: liveHeapKiB()}}
	return r, r.record(run, before, sink)
}

// coldRemap runs `floe sync` on the store copy at db and reads the run
// it recorded there.
func coldRemap(ctx context.Context, floeBin string, env []string, db, sink string) (compactRun, error) {
	before, err := sinkFiles(sink)
	if err != nil {
		return compactRun{}, err
	}
	c, text, err := syncProcess(ctx, floeBin, env)
	if err != nil {
		return compactRun{}, err
	}
	if !strings.Contains(text, ": COMPLETED,") {
		return compactRun{}, fmt.Errorf("floe sync after the compaction did not complete:\n%s", text)
	}
	store, err := checkpoint.OpenBolt(db)
	if err != nil {
		return compactRun{}, err
	}
	defer store.Close()
	runs, err := store.ListRuns(ctx, seedTable, 1)
	if err != nil || len(runs) == 0 {
		return compactRun{}, fmt.Errorf("read the cold remap's run record: %d runs, %v", len(runs), err)
	}
	r := compactRun{cost: c}
	return r, r.record(runs[0], before, sink)
}

// record fills in what the run did and what the sink received since
// before, and fails unless it was a remap that touched nothing in Pinot.
func (r *compactRun) record(run checkpoint.Run, before map[string]fileMark, sink string) error {
	r.kind, r.built, r.replaced, r.remapped = run.Kind, run.SegmentsGenerated, run.SegmentsDeleted, run.FilesRemapped
	after, err := sinkFiles(sink)
	if err != nil {
		return err
	}
	for p, m := range after {
		if before[p] != m {
			r.sinkFiles++
			r.sinkBytes += m.size
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			r.sinkFiles++ // removed
		}
	}
	if run.Kind != checkpoint.RunRemap || r.built != 0 || r.replaced != 0 || r.sinkFiles != 0 {
		return fmt.Errorf("the run after the compaction was %q: %d segments built, %d retired, %d sink files "+
			"written (%d bytes), want a remap touching nothing; its log: %v", run.Kind, r.built, r.replaced,
			r.sinkFiles, r.sinkBytes, run.Log)
	}
	return nil
}

// fileMark is what tells a file of the sink changed.
type fileMark struct {
	size    int64
	modNano int64
}

// sinkFiles marks every file under the local-directory sink.
func sinkFiles(root string) (map[string]fileMark, error) {
	out := map[string]fileMark{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fileMark{size: info.Size(), modNano: info.ModTime().UnixNano()}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the sink %s: %w", root, err)
	}
	return out, nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("copy %s: %w", from, err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		return fmt.Errorf("copy %s: %w", from, err)
	}
	return nil
}
