package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// How the schedule learns of table records (architecture I8). Every path
// that learns of a table — a snapshot of the store (Open, the periodic
// refresh, catching up after lost changes), an announced change (another
// replica's write or this one's), or one record read for a status, a
// trigger, a create, an edit or a run's admission — goes through apply,
// which holds two rules:
//
//  1. A record is applied only when it is newer than what the watcher
//     holds for that table (Table.Revision, store-wide and growing, C11),
//     so a slow snapshot or an old read never undoes a newer change.
//  2. A table that starts being scheduled (new to the watcher, resumed,
//     enabled, or its schedule changed) and has no checkpoint is due at
//     once: its first run is never left to the schedule's next time.
//
// recordState is what rule 1 needs beyond the records themselves.
type recordState struct {
	// seen: every announced change up to this store revision is applied;
	// the change follower resumes after it.
	seen int64
	// snapshot is the revision of the last snapshot applied. A table the
	// watcher does not hold, read with a revision at or below it, was
	// deleted since (else the snapshot would have had it).
	snapshot int64
	// tombstones: tables deleted at a revision above the last snapshot.
	tombstones map[string]int64
	// stopFollow ends the current change follow (after a store reset).
	stopFollow func()
}

// source says where a record comes from; it decides how a record for a
// table the watcher does not hold is judged.
type source int

const (
	// fromSnapshot: the store's list, authoritative up to its revision.
	fromSnapshot source = iota
	// fromChange: an announced change, in revision order.
	fromChange
	// fromRead: one record read on its own, possibly before a change
	// the watcher has already applied.
	fromRead
)

// liveLocked returns the state of a table the watcher schedules.
func (w *Watcher) liveLocked(name string) (*tableState, bool) {
	st, ok := w.tables[name]
	if !ok || st.gone {
		return nil, false
	}
	return st, true
}

// newerLocked reports whether t is newer than what the watcher holds.
func (w *Watcher) newerLocked(t checkpoint.Table, src source) bool {
	if st, ok := w.liveLocked(t.Name); ok {
		return t.Revision > st.table.Revision
	}
	if tomb, ok := w.records.tombstones[t.Name]; ok && t.Revision <= tomb {
		return false
	}
	// A record read on its own may predate a delete the last snapshot
	// already showed; before any snapshot with a revision there is
	// nothing to judge it by.
	return src != fromRead || t.Revision > w.records.snapshot || w.records.snapshot <= 0
}

// startsLocked reports whether applying t makes the table start being
// scheduled, so that it may owe its first run (rule 2).
func (w *Watcher) startsLocked(t checkpoint.Table, src source) bool {
	if !w.newerLocked(t, src) {
		return false
	}
	sched, _ := w.scheduleOf(t)
	if sched == nil {
		return false
	}
	st, ok := w.liveLocked(t.Name)
	return !ok || st.sched == nil || w.specOf(st.table) != w.specOf(t)
}

// specOf is the schedule a table runs on when it is not paused.
func (w *Watcher) specOf(t checkpoint.Table) string {
	if s, ok := t.TaskConfig[KeySchedule]; ok {
		return s
	}
	return w.opts.DefaultSchedule
}

// installLocked applies t if it is newer (rule 1). firstRun says, per
// table name, whether the table has no checkpoint; a table that starts
// being scheduled without an answer there is treated as owing its run.
func (w *Watcher) installLocked(t checkpoint.Table, src source, firstRun map[string]bool, now time.Time) {
	if !w.newerLocked(t, src) {
		return
	}
	starts := w.startsLocked(t, src)
	st, ok := w.tables[t.Name]
	if !ok {
		st = &tableState{}
		w.tables[t.Name] = st
	}
	if st.gone { // created again while the old table's run is in flight
		st.gone, st.next, st.lastChecked = false, time.Time{}, time.Time{}
	}
	delete(w.records.tombstones, t.Name)
	st.table = t
	st.sched, st.err = w.scheduleOf(t)
	switch {
	case st.sched == nil:
		st.next, st.owed = time.Time{}, false
	case starts:
		st.next = st.sched.Next(now)
		if owes, asked := firstRun[t.Name]; owes || !asked {
			st.next, st.owed = now, true
		}
	case st.next.IsZero():
		st.next = st.sched.Next(now)
	}
}

// dropLocked forgets a deleted table; records at or below rev are refused
// from now on.
func (w *Watcher) dropLocked(name string, rev int64) {
	if st, ok := w.liveLocked(name); ok {
		if st.table.Revision >= rev {
			return // a newer incarnation
		}
		w.forgetLocked(name, st)
	}
	if rev > w.records.snapshot && rev > w.records.tombstones[name] {
		w.records.tombstones[name] = rev
	}
}

// forgetLocked removes a deleted table from the schedule; a run of it in
// flight keeps its state until it ends (tableState.gone).
func (w *Watcher) forgetLocked(name string, st *tableState) {
	w.metrics.ForgetTable(name)
	if !st.running {
		delete(w.tables, name)
		return
	}
	st.gone, st.sched, st.next, st.err, st.owed = true, nil, time.Time{}, nil, false
}

// apply applies records read from the store (rules 1 and 2) and wakes the
// scheduling loop.
func (w *Watcher) apply(ctx context.Context, src source, records ...checkpoint.Table) {
	w.mu.Lock()
	var starting []string
	for _, t := range records {
		if w.startsLocked(t, src) {
			starting = append(starting, t.Name)
		}
	}
	w.mu.Unlock()
	firstRun := w.owesFirstRun(ctx, starting)
	w.mu.Lock()
	now := w.clock.Now()
	for _, t := range records {
		w.installLocked(t, src, firstRun, now)
	}
	w.mu.Unlock()
	w.poke()
}

// owesFirstRun asks the store which of the tables have no checkpoint. A
// table whose checkpoint cannot be read counts as owing its run: a run
// too many finds nothing to do, a run too few is a lost first run.
func (w *Watcher) owesFirstRun(ctx context.Context, names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, name := range names {
		_, err := w.deps.Store.GetCheckpointSummary(ctx, name)
		out[name] = err != nil
	}
	return out
}

// Refresh re-reads every table from the store and applies the snapshot:
// newer records take effect, tables the snapshot proves deleted are
// dropped, and a table that starts being scheduled without a checkpoint
// runs at once. Snapshots are applied one at a time, in the order taken.
func (w *Watcher) Refresh(ctx context.Context) error {
	w.refreshMu.Lock()
	defer w.refreshMu.Unlock()
	w.mu.Lock()
	seen := w.records.seen
	w.mu.Unlock()
	snap, err := w.deps.Store.SnapshotTables(ctx)
	if err != nil {
		return fmt.Errorf("list tables: %w", err)
	}
	if snap.Revision < seen {
		w.reset(snap)
	}
	w.apply(ctx, fromSnapshot, snap.Tables...)
	w.mu.Lock()
	defer w.mu.Unlock()
	listed := make(map[string]bool, len(snap.Tables))
	for _, t := range snap.Tables {
		listed[t.Name] = true
	}
	for name, st := range w.tables {
		if !listed[name] && !st.gone && st.table.Revision <= snap.Revision {
			w.forgetLocked(name, st) // deleted before the snapshot was taken
		}
	}
	w.records.snapshot = max(w.records.snapshot, snap.Revision)
	w.records.seen = max(w.records.seen, snap.Revision)
	for name, rev := range w.records.tombstones {
		if rev <= w.records.snapshot {
			delete(w.records.tombstones, name)
		}
	}
	return nil
}

// reset handles a store whose table revisions went back (Redis restarted
// without its data, or failed over to a replica that had not caught up):
// revisions held here mean nothing there any more, so the snapshot is
// taken as it is and the change follow restarts from it.
func (w *Watcher) reset(snap checkpoint.TableSnapshot) {
	w.mu.Lock()
	w.log.Warn("table revisions went back in the store; rebuilding the schedule from it",
		slog.Int64("held_revision", w.records.seen), slog.Int64("store_revision", snap.Revision))
	for _, st := range w.tables {
		st.table.Revision = -1 // any stored record is newer
	}
	w.records = recordState{seen: snap.Revision, snapshot: -1, tombstones: map[string]int64{},
		stopFollow: w.records.stopFollow}
	stop := w.records.stopFollow
	w.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// learn reads one table from the store and applies it (a status read, a
// trigger, a create, another replica's table met first here). It returns
// ErrNotFound when the table does not exist, or existed only in a past the
// watcher has already moved beyond.
func (w *Watcher) learn(ctx context.Context, name string) error {
	t, err := w.deps.Store.GetTable(ctx, name)
	if err != nil {
		return fmt.Errorf("table %s: %w", name, err)
	}
	w.apply(ctx, fromRead, t)
	if !w.knows(name) {
		return fmt.Errorf("table %s: %w (deleted)", name, checkpoint.ErrNotFound)
	}
	return nil
}

// knows reports whether the watcher schedules the table.
func (w *Watcher) knows(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.liveLocked(name)
	return ok
}

// errLostChanges: the change follow ended or skipped a revision; the
// watcher catches up from a snapshot.
var errLostChanges = errors.New("table changes lost")
