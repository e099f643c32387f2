package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/tools/bench/lake"
	"github.com/floehq/floe/watcher"
)

// Contenders of the end-to-end measurement: a whole run of the watcher.
const (
	cRunSync = "whole run: one-file sync"
	cRunNoop = "whole run: no new snapshot"
	// The run after a compaction of the table into a hundredth of its
	// files: a remap, measured once.
	cRunCompact = "whole run: compaction remapped"
	seedTable   = "events"
	seedSchema  = `{"schemaName":"events","dimensionFieldSpecs":[{"name":"id","dataType":"LONG"},{"name":"v","dataType":"STRING"}]}`
)

// measureRuns measures whole runs of a watcher (memory store, an in-memory
// Pinot stand-in, the real segment builder) on the table: a one-file
// sync, and a tick that finds no new snapshot (it reads the table's
// metadata file and nothing else); with compact, then the remap after a
// compaction of the table.
func measureRuns(ctx context.Context, l *lake.Lake, dir string, runs int, compact bool) (map[string]stat, error) {
	store := checkpoint.NewMemory()
	if err := store.CreateTable(ctx, checkpoint.Table{Name: seedTable, Connection: "bench", Namespace: "bench",
		Source: "events", SchemaJSON: []byte(seedSchema), TableConfigJSON: []byte(`{"tableName":"events","tableType":"OFFLINE"}`)}); err != nil {
		return nil, err
	}
	b := &lake.SeedBuilder{}
	b.Seeding.Store(true)
	w := watcher.New(watcher.Deps{Store: store, Loader: lake.Loader{Lake: l}, Builder: b, Uploader: lake.NewMemSink()},
		watcher.Options{Owner: "bench", WorkDir: filepath.Join(dir, "work"), BuildParallelism: 2, BatchFiles: 1 << 20})
	if _, err := w.RunOnce(ctx, seedTable, "bench", nil); err != nil {
		return nil, fmt.Errorf("seed the checkpoint: %w", err)
	}
	b.Seeding.Store(false)
	costs := map[string][]cost{}
	for i := 0; i <= runs; i++ { // the first of each is a warm-up
		if err := l.AddFiles(ctx, 1); err != nil {
			return nil, err
		}
		for _, name := range []string{cRunSync, cRunNoop} {
			var run checkpoint.Run
			c, err := measure(func() error {
				var err error
				run, err = w.RunOnce(ctx, seedTable, "bench", nil)
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if want := map[string]int{cRunSync: 1, cRunNoop: 0}[name]; run.SegmentsGenerated != want {
				return nil, fmt.Errorf("%s built %d segments, want %d", name, run.SegmentsGenerated, want)
			}
			if i > 0 {
				costs[name] = append(costs[name], c)
			}
		}
	}
	out := map[string]stat{}
	for k, v := range costs {
		out[k] = median(v)
	}
	if !compact {
		return out, nil
	}
	compacted, err := measureCompaction(ctx, l, w)
	if err != nil {
		return nil, err
	}
	out[cRunCompact] = compacted
	return out, nil
}

// measureCompaction compacts the table into a hundredth of its files (at
// least one) and measures the run that follows: a remap (watcher/plan
// P11), which must build and push nothing.
func measureCompaction(ctx context.Context, l *lake.Lake, w *watcher.Watcher) (stat, error) {
	if err := l.Compact(ctx, l.Files/100); err != nil {
		return stat{}, err
	}
	var run checkpoint.Run
	c, err := measure(func() error {
		var err error
		run, err = w.RunOnce(ctx, seedTable, "bench", nil)
		return err
	})
	if err != nil {
		return stat{}, fmt.Errorf("%s: %w", cRunCompact, err)
	}
	if run.SegmentsGenerated != 0 || run.SegmentsDeleted != 0 || run.Bytes != 0 {
		return stat{}, fmt.Errorf("%s built %d segments and retired %d (%d bytes), want none",
			cRunCompact, run.SegmentsGenerated, run.SegmentsDeleted, run.Bytes)
	}
	return median([]cost{c}), nil
}
