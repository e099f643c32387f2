package watcher

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// maxPendingRuns bounds the runs kept in memory while the store is away.
const maxPendingRuns = 10_000

// recordRetry is how often buffered runs are retried.
const recordRetry = time.Second

// recorder writes run records. A record the store refuses (an outage) is
// kept in memory, with its real times and error, and written when the
// store answers again, so the history misses no run of an outage; a
// later record of the same run replaces the buffered one.
type recorder struct {
	store checkpoint.Store
	log   *slog.Logger

	mu      sync.Mutex
	pending map[string]pendingRun // by table + "\x00" + run id
	order   []string
	seq     int
	dropped int
}

// pendingRun is a buffered record; seq tells a newer record of the same
// run from the one being written.
type pendingRun struct {
	run checkpoint.Run
	seq int
}

func newRecorder(store checkpoint.Store, log *slog.Logger) *recorder {
	return &recorder{store: store, log: log, pending: map[string]pendingRun{}}
}

// record writes run now or buffers it.
func (rc *recorder) record(ctx context.Context, run checkpoint.Run) {
	if rc.hasPending() {
		rc.buffer(run) // keep the order: older buffered records go first
		rc.flush(ctx)
		return
	}
	if err := rc.store.PutRun(ctx, run); err != nil {
		rc.log.Error("record run; kept in memory until the store answers", slog.String(attrTable, run.Table),
			slog.String(attrRun, run.ID), slog.String("error", err.Error()))
		rc.buffer(run)
	}
}

func (rc *recorder) hasPending() bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.pending) > 0
}

func (rc *recorder) buffer(run checkpoint.Run) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	k := runKeyOf(run.Table, run.ID)
	if _, ok := rc.pending[k]; !ok {
		if len(rc.order) >= maxPendingRuns {
			delete(rc.pending, rc.order[0])
			rc.order = rc.order[1:]
			rc.dropped++
		}
		rc.order = append(rc.order, k)
	}
	rc.seq++
	rc.pending[k] = pendingRun{run: run, seq: rc.seq}
}

func runKeyOf(table, id string) string { return table + "\x00" + id }

// flush writes buffered runs in order until the store refuses one.
func (rc *recorder) flush(ctx context.Context) {
	for {
		rc.mu.Lock()
		if len(rc.order) == 0 {
			dropped := rc.dropped
			rc.dropped = 0
			rc.mu.Unlock()
			if dropped > 0 {
				rc.log.Error(fmt.Sprintf("run history: %d runs of a store outage were not kept (buffer of %d full)", dropped, maxPendingRuns))
			}
			return
		}
		k := rc.order[0]
		p := rc.pending[k]
		rc.mu.Unlock()
		if err := rc.store.PutRun(ctx, p.run); err != nil {
			return
		}
		rc.mu.Lock()
		if cur, ok := rc.pending[k]; ok && cur.seq == p.seq { // not replaced meanwhile
			delete(rc.pending, k)
			rc.order = rc.order[1:]
		}
		rc.mu.Unlock()
	}
}

// loop retries buffered runs until ctx ends.
func (rc *recorder) loop(ctx context.Context) {
	tick := time.NewTicker(recordRetry)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if rc.hasPending() {
				rc.flush(ctx)
			}
		}
	}
}

// abandonRuns marks the table's runs still RUNNING that match as
// ABANDONED: their replica died or lost its lease before recording an
// outcome. keep is the caller's own run.
func (w *Watcher) abandonRuns(ctx context.Context, table, keep, reason string, match func(checkpoint.Run) bool) {
	runs, err := w.deps.Store.ListRuns(ctx, table, 10)
	if err != nil {
		w.log.Warn("look for abandoned runs", slog.String(attrTable, table), slog.String("error", err.Error()))
		return
	}
	now := w.clock.Now().UTC()
	for _, run := range runs {
		if run.Status != checkpoint.RunRunning || run.ID == keep || !match(run) {
			continue
		}
		run.Status, run.FinishedAt = checkpoint.RunAbandoned, now
		run.Error = fmt.Sprintf("%s (replica %s)", reason, run.Owner)
		w.record(ctx, run)
		w.noteAbandoned(table, keep)
	}
}

// pendingCount is how many records wait for the store.
func (rc *recorder) pendingCount() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.order)
}
