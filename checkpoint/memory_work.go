package checkpoint

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// memoryWork is the Memory store's WorkQueue state, guarded by Memory.mu.
type memoryWork struct {
	seq     int
	items   []*memoryItem
	results map[string][]WorkResult // table + "\x00" + run → uncollected
	changed chan struct{}           // closed and replaced on every change
}

type memoryItem struct {
	item    WorkItem
	builder string // "" while queued
	beat    time.Time
}

func newMemoryWork() *memoryWork {
	return &memoryWork{results: map[string][]WorkResult{}, changed: make(chan struct{})}
}

func runKey(table, runID string) string { return table + "\x00" + runID }

// notify wakes every waiter; the caller holds Memory.mu.
func (w *memoryWork) notify() {
	close(w.changed)
	w.changed = make(chan struct{})
}

func (w *memoryWork) find(id string) (int, *memoryItem) {
	for i, it := range w.items {
		if it.item.ID == id {
			return i, it
		}
	}
	return -1, nil
}

var _ WorkQueue = (*Memory)(nil)

// Publish adds items to the queue.
func (m *Memory) Publish(_ context.Context, items []WorkItem) ([]WorkItem, error) {
	unlock, err := m.lock("publish work")
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := slices.Clone(items)
	for i := range out {
		m.work.seq++
		out[i].ID = strconv.Itoa(m.work.seq)
		m.work.items = append(m.work.items, &memoryItem{item: out[i]})
	}
	m.work.notify()
	return out, nil
}

// Claim returns a stale or queued item for builder, waiting up to wait.
func (m *Memory) Claim(ctx context.Context, builder string, wait, stale time.Duration) (WorkItem, bool, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		unlock, err := m.lock("claim work")
		if err != nil {
			return WorkItem{}, false, err
		}
		now := m.nowFunc()
		for _, it := range m.work.items {
			if it.builder == "" || now.Sub(it.beat) > stale {
				it.builder, it.beat = builder, now
				item := it.item
				unlock()
				return item, true, nil
			}
		}
		changed := m.work.changed
		unlock()
		select {
		case <-ctx.Done():
			return WorkItem{}, false, ctx.Err()
		case <-timer.C:
			return WorkItem{}, false, nil
		case <-changed:
		}
	}
}

// held returns the item if builder holds it; the caller holds Memory.mu.
func (m *Memory) held(builder string, item WorkItem) (int, *memoryItem, error) {
	i, it := m.work.find(item.ID)
	if it == nil || it.builder != builder {
		return -1, nil, fmt.Errorf("%w: work item %s of table %q is no longer held by %s", ErrFenced, item.Key, item.Table, builder)
	}
	return i, it, nil
}

// Heartbeat refreshes builder's claim.
func (m *Memory) Heartbeat(_ context.Context, builder string, item WorkItem) error {
	unlock, err := m.lock("heartbeat work")
	if err != nil {
		return err
	}
	defer unlock()
	_, it, err := m.held(builder, item)
	if err != nil {
		return err
	}
	it.beat = m.nowFunc()
	return nil
}

// Confirm checks W1.
func (m *Memory) Confirm(_ context.Context, builder string, item WorkItem) error {
	unlock, err := m.lock("confirm work")
	if err != nil {
		return err
	}
	defer unlock()
	if _, _, err := m.held(builder, item); err != nil {
		return err
	}
	if err := m.checkCurrent(item.Lease()); err != nil {
		return fmt.Errorf("work item %s of table %q: %w", item.Key, item.Table, err)
	}
	return nil
}

// Complete records res for the item's run and removes the item.
func (m *Memory) Complete(_ context.Context, builder string, item WorkItem, res WorkResult) error {
	unlock, err := m.lock("complete work")
	if err != nil {
		return err
	}
	defer unlock()
	i, _, err := m.held(builder, item)
	if err != nil {
		return err
	}
	m.work.items = slices.Delete(m.work.items, i, i+1)
	k := runKey(item.Table, item.RunID)
	m.work.results[k] = append(m.work.results[k], res)
	m.work.notify()
	return nil
}

// Discard removes an item builder holds.
func (m *Memory) Discard(_ context.Context, builder string, item WorkItem) error {
	unlock, err := m.lock("discard work")
	if err != nil {
		return err
	}
	defer unlock()
	i, _, err := m.held(builder, item)
	if err != nil {
		return err
	}
	m.work.items = slices.Delete(m.work.items, i, i+1)
	m.work.notify()
	return nil
}

// Results returns the run's uncollected results, waiting up to wait.
func (m *Memory) Results(ctx context.Context, table, runID string, wait time.Duration) ([]WorkResult, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	k := runKey(table, runID)
	for {
		unlock, err := m.lock("collect work results")
		if err != nil {
			return nil, err
		}
		if res := m.work.results[k]; len(res) > 0 {
			delete(m.work.results, k)
			unlock()
			return res, nil
		}
		changed := m.work.changed
		unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
			return nil, nil
		case <-changed:
		}
	}
}

// Cancel drops the run's items and results.
func (m *Memory) Cancel(_ context.Context, table, runID string, _ []WorkItem) error {
	unlock, err := m.lock("cancel work")
	if err != nil {
		return err
	}
	defer unlock()
	m.work.items = slices.DeleteFunc(m.work.items, func(it *memoryItem) bool {
		return it.item.Table == table && it.item.RunID == runID
	})
	delete(m.work.results, runKey(table, runID))
	m.work.notify()
	return nil
}
