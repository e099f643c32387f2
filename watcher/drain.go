package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// ErrDraining: the replica is stopping; it starts no new run. It is also
// the cause a run stopped by the end of the drain grace names in its
// record.
var ErrDraining = errors.New("floe is stopping (draining)")

// Drain stops the replica the way an orchestrator's SIGTERM asks (D1–D4 in
// doc.go): no new run starts here from now on (schedules, triggers and
// first runs answer ErrDraining); the runs in flight go on for up to grace;
// those still going then are stopped at a safe point (their context ends
// with ErrDraining as the cause: a run stops between writes, as at any
// cancellation, and records FAILED with that cause) and each releases its
// lease as it returns, so another replica takes the table at once instead
// of waiting out the lease TTL; last, the run records kept in memory
// during a store outage are written. ctx bounds the whole drain. Close
// still has to be called after it.
func (w *Watcher) Drain(ctx context.Context, grace time.Duration) error {
	w.mu.Lock()
	w.draining = true
	cancel := w.cancel
	w.mu.Unlock()
	done := make(chan struct{})
	go func() { w.inflight.Wait(); close(done) }()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	cause := ErrDraining
	select {
	case <-done:
	case <-ctx.Done():
		cause = fmt.Errorf("%w: the shutdown deadline came", ErrDraining)
	case <-timer.C:
		cause = fmt.Errorf("%w: the drain grace of %s ended", ErrDraining, grace)
		w.log.Info("drain grace ended: stopping the runs in flight", slog.Duration("grace", grace))
	}
	if cancel != nil {
		cancel(cause)
	}
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("drain watcher: runs still in flight: %w", ctx.Err())
	}
	w.runLog.flush(ctx)
	if n := w.runLog.pendingCount(); n > 0 {
		return fmt.Errorf("drain watcher: %d run records not written (the store does not answer)", n)
	}
	return nil
}
