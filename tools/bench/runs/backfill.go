package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/tools/bench/lake"
	"github.com/floehq/floe/watcher"
)

// backfill is what a first sync of a large table cost.
type backfill struct {
	files, segments int
	rows            int64
	wall            time.Duration
	segmentBytes    int64 // all tarballs the run produced
	peakWorkBytes   int64 // the work directory at its largest
	maxSegmentBytes int64
	commits         int
}

// countingStore counts checkpoint commits.
type countingStore struct {
	checkpoint.Store
	commits atomic.Int64
}

func (s *countingStore) CommitCheckpointDelta(ctx context.Context, l checkpoint.Lease, d checkpoint.CheckpointDelta) error {
	s.commits.Add(1)
	return s.Store.CommitCheckpointDelta(ctx, l, d)
}

// measureBackfill syncs a fresh table of o.files files in one watcher and
// samples its work directory every few milliseconds.
func measureBackfill(ctx context.Context, o options) (backfill, error) {
	lk, err := lake.Build(ctx, filepath.Join(o.dir, "backfill"), o.files, 50, o.rows)
	if err != nil {
		return backfill{}, err
	}
	defer lk.Close()
	store := &countingStore{Store: checkpoint.NewMemory()}
	if err := store.CreateTable(ctx, benchTable()); err != nil {
		return backfill{}, err
	}
	work, sinkDir := filepath.Join(o.dir, "backfill-work"), filepath.Join(o.dir, "backfill-sink")
	w := watcher.New(watcher.Deps{Store: store, Loader: lake.Loader{Lake: lk}, Builder: watcher.IcebergBuilder{},
		Uploader: pinot.NewLocalDir(sinkDir)},
		watcher.Options{Owner: "bench", WorkDir: work, BuildParallelism: 2, BatchFiles: o.batchFiles})
	var peak atomic.Int64
	stop := sampleDir(work, &peak)
	start := time.Now()
	run, err := w.RunOnce(ctx, "events", "bench", nil)
	wall := time.Since(start)
	stop()
	if err != nil {
		return backfill{}, err
	}
	total, largest, err := tarballs(filepath.Join(sinkDir, "events"))
	if err != nil {
		return backfill{}, err
	}
	return backfill{files: lk.Files, segments: run.SegmentsGenerated, rows: run.Rows, wall: wall, segmentBytes: total,
		peakWorkBytes: peak.Load(), maxSegmentBytes: largest, commits: int(store.commits.Load())}, nil
}

// benchTable is the external table every benchmark run syncs.
func benchTable() checkpoint.Table {
	return checkpoint.Table{Name: "events", Connection: "lake", Namespace: "bench", Source: "events",
		SchemaJSON:      []byte(`{"schemaName":"events","dimensionFieldSpecs":[{"name":"id","dataType":"LONG"},{"name":"v","dataType":"STRING"}]}`),
		TableConfigJSON: []byte(`{"tableName":"events","tableType":"OFFLINE"}`)}
}

// sampleDir records the largest total size of the files under dir until
// the returned func is called.
func sampleDir(dir string, peak *atomic.Int64) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if n := dirBytes(dir); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-done:
				return
			case <-time.After(3 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// tarballs sums the served segment tarballs of a sink's table directory.
func tarballs(dir string) (total, largest int64, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, fmt.Errorf("read sink: %w", err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".gz" {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return 0, 0, err
		}
		total += info.Size()
		largest = max(largest, info.Size())
	}
	return total, largest, nil
}
