package watcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/sleep"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher/plan"
)

// claimWait is how long a builder waits for work per poll.
const claimWait = 2 * time.Second

// builderPool is the replica's builders of shared work (W1).
type builderPool struct {
	mu      sync.Mutex
	running bool
	sources sourceCache
	// deletes are the delete files the replica's builds decoded (B2).
	deletes DeleteCache
}

// DeleteCacheStats returns the counters of the replica's delete cache:
// how many delete files its builds read, and how often one was reused.
func (w *Watcher) DeleteCacheStats() DeleteCacheStats { return w.builders.deletes.Stats() }

// startBuilders starts BuildParallelism builders on the work queue, once;
// they stop with ctx.
func (w *Watcher) startBuilders(ctx context.Context) {
	if w.deps.Work == nil {
		return
	}
	w.builders.mu.Lock()
	defer w.builders.mu.Unlock()
	if w.builders.running {
		return
	}
	w.builders.running = true
	for i := range w.opts.BuildParallelism {
		id := w.opts.Owner + "/" + strconv.Itoa(i)
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.builderLoop(ctx, id)
		}()
	}
}

// builderLoop claims and processes work items until ctx ends.
func (w *Watcher) builderLoop(ctx context.Context, id string) {
	for ctx.Err() == nil {
		item, ok, err := w.deps.Work.Claim(ctx, id, claimWait, w.opts.ClaimTimeout)
		if err != nil {
			if ctx.Err() == nil {
				w.log.Warn("claim work", slog.String("builder", id), slog.String("error", err.Error()))
				_ = sleep.For(ctx, time.Second)
			}
			continue
		}
		if ok {
			w.processItem(ctx, id, item)
		}
	}
}

// processItem builds one item under a heartbeat and completes it; an item
// that was reclaimed or whose run lost its lease is discarded unbuilt or
// un-uploaded (W1).
func (w *Watcher) processItem(ctx context.Context, builder string, item checkpoint.WorkItem) {
	q := w.deps.Work
	itemCtx, cancel := context.WithCancelCause(ctx)
	beatDone := make(chan struct{})
	go func() {
		defer close(beatDone)
		w.heartbeat(itemCtx, cancel, builder, item)
	}()
	res, err := w.buildItem(itemCtx, builder, item)
	cancel(nil)
	<-beatDone
	if ctx.Err() != nil {
		return // shutting down: the item goes stale and another builder takes it
	}
	if errors.Is(err, checkpoint.ErrFenced) || errors.Is(err, ErrLeaseExpiring) {
		if derr := q.Discard(ctx, builder, item); derr != nil && !errors.Is(derr, checkpoint.ErrFenced) {
			w.log.Warn("discard work item", slog.String(attrTable, item.Table), slog.String("unit", item.Key), slog.String("error", derr.Error()))
		}
		return
	}
	if err != nil {
		res = checkpoint.WorkResult{Key: item.Key, Error: err.Error()}
	}
	res.Builder = builder
	if err := q.Complete(ctx, builder, item, res); err != nil && !errors.Is(err, checkpoint.ErrFenced) {
		w.log.Warn("complete work item", slog.String(attrTable, item.Table), slog.String("unit", item.Key), slog.String("error", err.Error()))
	}
}

// heartbeat keeps the claim fresh; a lost claim cancels the build.
func (w *Watcher) heartbeat(ctx context.Context, cancel context.CancelCauseFunc, builder string, item checkpoint.WorkItem) {
	tick := time.NewTicker(w.opts.ClaimTimeout / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := w.deps.Work.Heartbeat(ctx, builder, item); errors.Is(err, checkpoint.ErrFenced) {
				cancel(err)
				return
			}
		}
	}
}

// buildItem builds and uploads one item's unit. Every upload is preceded
// by a Confirm of the item (W1), through the pinot guard.
func (w *Watcher) buildItem(ctx context.Context, builder string, item checkpoint.WorkItem) (checkpoint.WorkResult, error) {
	q := w.deps.Work
	confirm := func(ctx context.Context) error { return q.Confirm(ctx, builder, item) }
	if err := confirm(ctx); err != nil {
		return checkpoint.WorkResult{}, err // the run is gone: build nothing
	}
	req, served, err := w.itemRequest(ctx, item)
	if err != nil {
		return checkpoint.WorkResult{}, err
	}
	dir := filepath.Join(w.opts.WorkDir, safeDirName(w.opts.Owner), "builders", safeDirName(item.Table+"-"+item.ID))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return checkpoint.WorkResult{}, fmt.Errorf("create work dir: %w", err)
	}
	defer os.RemoveAll(dir)
	req.OutDir = dir
	ctx = pinot.WithGuard(ctx, func(ctx context.Context, _ pinot.Write) error { return confirm(ctx) })
	bu, _, err := w.runUnit(ctx, unitJob{req: req, lease: item.Lease(), served: served, upload: true, confirm: confirm})
	if err != nil {
		if errors.Is(context.Cause(ctx), checkpoint.ErrFenced) {
			return checkpoint.WorkResult{}, context.Cause(ctx)
		}
		return checkpoint.WorkResult{}, err
	}
	return checkpoint.WorkResult{Key: item.Key, Segments: bu.segments, Rows: bu.rows, FileRows: bu.fileRows}, nil
}

// itemRequest rebuilds the build request of an item: the table record,
// its Pinot model, the loaded Iceberg table and the decoded unit.
func (w *Watcher) itemRequest(ctx context.Context, item checkpoint.WorkItem) (BuildRequest, map[string]bool, error) {
	var env workEnvelope
	if err := json.Unmarshal(item.Unit, &env); err != nil {
		return BuildRequest{}, nil, fmt.Errorf("decode work item %s: %w", item.Key, err)
	}
	t, err := w.deps.Store.GetTable(ctx, item.Table)
	if err != nil {
		return BuildRequest{}, nil, fmt.Errorf("table %s: %w", item.Table, err)
	}
	r := &runner{w: w, table: t}
	schema, tc, err := r.pinotModel()
	if err != nil {
		return BuildRequest{}, nil, err
	}
	src, err := w.builders.sources.load(ctx, w.deps.Loader, t, item.MetadataLocation)
	if err != nil {
		return BuildRequest{}, nil, err
	}
	unit, err := plan.DecodeUnit(env.Unit, src.Table)
	if err != nil {
		return BuildRequest{}, nil, fmt.Errorf("decode unit %s: %w", item.Key, err)
	}
	served := make(map[string]bool, len(env.Served))
	for _, s := range env.Served {
		served[s] = true
	}
	return BuildRequest{Table: t, Schema: schema, TableConfig: tc, Source: src.Table, SnapshotID: item.SnapshotID,
		Unit: unit, SegmentBase: env.SegmentBase, MaxRowsPerSegment: env.MaxRowsPerSegment, PlannedSegments: env.Planned,
		Deletes: &w.builders.deletes}, served, nil
}

// sourceCache keeps the last loaded Iceberg tables, so the builders of one
// run load the table once, not once per unit.
type sourceCache struct {
	mu      sync.Mutex
	entries []cachedSource
}

type cachedSource struct {
	key string
	src *Source
}

const sourceCacheSize = 8

func (c *sourceCache) load(ctx context.Context, ld TableLoader, t checkpoint.Table, metadataLocation string) (*Source, error) {
	key := t.Name + "\x00" + metadataLocation
	c.mu.Lock()
	for _, e := range c.entries {
		if e.key == key {
			c.mu.Unlock()
			return e.src, nil
		}
	}
	c.mu.Unlock()
	src, err := ld.LoadTable(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("load table %s.%s: %w", t.Namespace, t.Source, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = append(c.entries, cachedSource{key: key, src: src})
	if len(c.entries) > sourceCacheSize {
		c.entries = c.entries[1:]
	}
	return src, nil
}

// KeyIndexMaxAge is how long a key index file is kept after it was
// written (plan P12): a start sweeps older ones, and a live data file's
// index swept with them is rebuilt when next needed.
const KeyIndexMaxAge = 7 * 24 * time.Hour

// recoverDead cleans up after this replica's previous life: its work
// directory (tarballs of runs a SIGKILL interrupted), the key index
// directory's temporary and aged files, and its runs left RUNNING in the
// history, marked ABANDONED.
func (w *Watcher) recoverDead(ctx context.Context) error {
	own := filepath.Join(w.opts.WorkDir, safeDirName(w.opts.Owner))
	if err := os.RemoveAll(own); err != nil {
		return fmt.Errorf("remove work dir of dead runs %s: %w", own, err)
	}
	if dir := w.opts.Plan.KeyIndexDir; dir != "" {
		n, err := plan.SweepKeyIndex(dir, w.clock.Now().Add(-KeyIndexMaxAge))
		if err != nil {
			return err
		}
		if n > 0 {
			w.log.Info("swept key index files", "dir", dir, "removed", n)
		}
	}
	tables, err := w.deps.Store.ListTables(ctx)
	if err != nil {
		return fmt.Errorf("list tables: %w", err)
	}
	for _, t := range tables {
		w.abandonRuns(ctx, t.Name, "", "floe restarted before the run ended",
			func(r checkpoint.Run) bool { return r.Owner == w.opts.Owner })
	}
	return nil
}

// borrowBuilders starts builders for one RunOnce when the watcher is not
// open (the CLI's sync), so shared work has a builder on this replica too;
// the returned func stops them and waits.
func (w *Watcher) borrowBuilders(ctx context.Context) func() {
	w.builders.mu.Lock()
	running := w.builders.running
	w.builders.mu.Unlock()
	if w.deps.Work == nil || running {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range w.opts.BuildParallelism {
		id := w.opts.Owner + "/sync-" + strconv.Itoa(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.builderLoop(ctx, id)
		}()
	}
	return func() { cancel(); wg.Wait() }
}
