package watcher

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/sleep"
)

// Waits of the change follower between attempts.
const (
	followPause   = 10 * time.Millisecond // after catching up, before following again
	followBackoff = 5 * time.Second       // longest wait while the store is away
)

// followTables keeps the schedule in step with the store's announced
// table changes until ctx ends: creates, pauses, resumes, edits and
// deletes made on any replica take effect here as soon as they are
// announced. When the follow ends or skips a revision (the store dropped
// old changes, or was away longer than it keeps them), the watcher
// catches up from a snapshot and follows again from there.
func (w *Watcher) followTables(ctx context.Context) {
	wait := time.Duration(0)
	for {
		if wait > 0 && sleep.For(ctx, wait) != nil {
			return
		}
		_ = w.followChanges(ctx) // returns errLostChanges, or why it could not start
		if ctx.Err() != nil {
			return
		}
		if err := w.Refresh(ctx); err != nil {
			if ctx.Err() == nil {
				w.log.Error("catch up with table changes", slog.String("error", err.Error()))
			}
			wait = min(max(2*wait, 100*time.Millisecond), followBackoff)
			continue
		}
		wait = followPause
	}
}

// followChanges applies announced changes after the last one applied
// until the announcements end or skip a revision.
func (w *Watcher) followChanges(ctx context.Context) error {
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.mu.Lock()
	after := w.records.seen
	w.records.stopFollow = cancel
	w.mu.Unlock()
	ch, err := w.deps.Store.WatchTables(fctx, after)
	if err != nil {
		return fmt.Errorf("watch tables: %w", err)
	}
	for {
		select {
		case <-fctx.Done(): // the store's reader ends on its own
			return fctx.Err()
		case c, ok := <-ch:
			if !ok || !w.applyChange(fctx, c) {
				return errLostChanges
			}
		}
	}
}

// applyChange applies the change that follows the last one applied. It
// reports false when c skips a revision: changes were lost.
func (w *Watcher) applyChange(ctx context.Context, c checkpoint.TableChange) bool {
	w.mu.Lock()
	switch {
	case c.Revision <= w.records.seen:
		w.mu.Unlock()
		return true // a snapshot already covered it
	case c.Revision > w.records.seen+1:
		w.mu.Unlock()
		return false
	}
	starts := c.Table != nil && w.startsLocked(*c.Table, fromChange)
	w.mu.Unlock()
	var firstRun map[string]bool
	if starts {
		firstRun = w.owesFirstRun(ctx, []string{c.Name})
	}
	w.mu.Lock()
	if c.Revision != w.records.seen+1 { // a snapshot moved on meanwhile
		ok := c.Revision <= w.records.seen
		w.mu.Unlock()
		return ok
	}
	w.records.seen = c.Revision
	if c.Table != nil {
		w.installLocked(*c.Table, fromChange, firstRun, w.clock.Now())
	} else {
		w.dropLocked(c.Name, c.Revision)
	}
	w.mu.Unlock()
	w.poke()
	return true
}
