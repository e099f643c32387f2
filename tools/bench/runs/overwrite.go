package main

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/tools/bench/lake"
	"github.com/floehq/floe/watcher"
)

// overwrite is what an overwrite of a whole synced table cost: the
// replacing run streams its units into one open replacement.
type overwrite struct {
	files, built, deleted int
	wall                  time.Duration
	segmentBytes          int64 // all tarballs the run produced
	maxSegmentBytes       int64
	peakWorkBytes         int64 // the work directory at its largest, all files
	peakTarBytes          int64 // its segment tarballs at their largest
	peakTars              int64 // and their most at once
}

// overwriteParallelism is the builders of the overwrite measurement.
const overwriteParallelism = 2

// measureOverwrite syncs a table of o.files files, overwrites all of them
// by as many new files, and syncs again while sampling the work directory.
func measureOverwrite(ctx context.Context, o options) (overwrite, error) {
	lk, err := lake.Build(ctx, filepath.Join(o.dir, "overwrite"), o.files, 50, o.rows)
	if err != nil {
		return overwrite{}, err
	}
	defer lk.Close()
	store := checkpoint.NewMemory()
	if err := store.CreateTable(ctx, benchTable()); err != nil {
		return overwrite{}, err
	}
	work, sinkDir := filepath.Join(o.dir, "overwrite-work"), filepath.Join(o.dir, "overwrite-sink")
	w := watcher.New(watcher.Deps{Store: store, Loader: lake.Loader{Lake: lk}, Builder: watcher.IcebergBuilder{},
		Uploader: pinot.NewLocalDir(sinkDir)},
		watcher.Options{Owner: "bench", WorkDir: work, BuildParallelism: overwriteParallelism, BatchFiles: o.batchFiles})
	if _, err := w.RunOnce(ctx, "events", "bench", nil); err != nil {
		return overwrite{}, fmt.Errorf("first sync: %w", err)
	}
	if err := lk.Overwrite(ctx, o.files); err != nil {
		return overwrite{}, err
	}
	var s workSample
	stop := s.run(work)
	start := time.Now()
	run, err := w.RunOnce(ctx, "events", "bench", nil)
	wall := time.Since(start)
	stop()
	if err != nil {
		return overwrite{}, fmt.Errorf("overwrite sync: %w", err)
	}
	total, largest, err := tarballs(filepath.Join(sinkDir, "events"))
	if err != nil {
		return overwrite{}, err
	}
	return overwrite{files: o.files, built: run.SegmentsGenerated, deleted: run.SegmentsDeleted, wall: wall,
		segmentBytes: total, maxSegmentBytes: largest, peakWorkBytes: s.bytes.Load(), peakTarBytes: s.tarBytes.Load(),
		peakTars: s.tars.Load()}, nil
}

// workSample keeps the peaks of a work directory: all its files, and its
// segment tarballs alone.
type workSample struct {
	bytes, tarBytes, tars atomic.Int64
}

// run samples dir every few milliseconds until the returned func is called.
func (s *workSample) run(dir string) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			s.sample(dir)
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

func (s *workSample) sample(dir string) {
	var all, tarBytes, tars int64
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		all += info.Size()
		if strings.HasSuffix(path, ".tar.gz") {
			tarBytes += info.Size()
			tars++
		}
		return nil
	})
	storeMax(&s.bytes, all)
	storeMax(&s.tarBytes, tarBytes)
	storeMax(&s.tars, tars)
}

func storeMax(v *atomic.Int64, n int64) {
	if n > v.Load() {
		v.Store(n)
	}
}
