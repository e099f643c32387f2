package watcher

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// Runs on notification (package notify; architecture "Sync on change").
// A notification says the table's source has a new commit. It asks for a
// run with trigger "notify", which the watcher treats like a scheduled
// one where it matters (admit.go): a paused or disabled table ignores it,
// and it is not recorded when another replica holds the lease or
// admission turns it away. Unlike a scheduled run it is not lost then:
//
//   - a notification while the table runs here marks the table, and one
//     more run starts when the run in flight ends (it may have loaded the
//     metadata before the commit);
//   - a notify run that finds the lease held by another replica is tried
//     again (notifyRetry, doubling up to notifyRetryMax, at most
//     notifyAttempts times), so a commit announced while another replica
//     runs the table is synced once that run ends. A run that then finds
//     nothing new is not recorded (the duplicate is harmless).
//
// A notify run that holds the lease first looks at the table's last check,
// by any replica (checkpoint.Observation.CheckedAt, the start of that run):
// when it started after the first notification the run answers arrived,
// that check saw the announced commit, and the run ends at once without a
// record (errNotifyCovered). So notifications received by several replicas
// for one burst of commits start one run, not one per replica.
//
// Once the attempts are spent the table's schedule is the backstop.
//
// A lag check that sees a schema change no run has applied (lagcheck.go)
// asks for a notify run the same way, without a notification time, so no
// earlier check counts as having covered it.

// triggerNotify: a run a notification asked for.
const triggerNotify = "notify"

// errNotifyCovered: a check that started after the notification already
// saw the commit it announced.
var errNotifyCovered = errors.New("a later check of the table saw the announced commit")

// Retry of a notify run whose lease another replica holds.
const (
	notifyRetry    = 500 * time.Millisecond
	notifyRetryMax = 15 * time.Second
	notifyAttempts = 20
)

// NotifyResult says what a notification did.
type NotifyResult struct {
	// RunID is the run it started, or the run in flight it follows.
	RunID string `json:"runId,omitempty"`
	// Queued: a run is in flight here; another starts when it ends.
	Queued bool `json:"queued,omitempty"`
}

// Notify runs the table because its source changed (trigger "notify").
// since is when the first notification of the change arrived (the
// notify-to-run latency is measured from it). A paused or disabled table
// ignores it (ErrNotAdmitted); an unknown one answers ErrNotFound.
func (w *Watcher) Notify(ctx context.Context, name string, since time.Time) (NotifyResult, error) {
	if err := w.ensureKnown(ctx, name); err != nil {
		return NotifyResult{}, fmt.Errorf("notify: %w", err)
	}
	w.mu.Lock()
	st, ok := w.liveLocked(name)
	if !ok {
		w.mu.Unlock()
		return NotifyResult{}, fmt.Errorf("notify %s: %w", name, checkpoint.ErrNotFound)
	}
	if Paused(st.table.TaskConfig) || !Enabled(st.table.TaskConfig) {
		w.mu.Unlock()
		return NotifyResult{}, fmt.Errorf("notify %s: table is paused or disabled: %w", name, ErrNotAdmitted)
	}
	if st.notifySince.IsZero() || since.Before(st.notifySince) {
		st.notifySince = since
	}
	st.notifyTries = 0
	if st.running {
		st.notifyAt = w.clock.Now() // due when the run in flight ends
		id := st.runID
		w.mu.Unlock()
		return NotifyResult{RunID: id, Queued: true}, nil
	}
	w.mu.Unlock()
	id, err := w.startRun(w.runContext(ctx), name, triggerNotify)
	if errors.Is(err, ErrRunning) { // started by someone else meanwhile
		w.queueNotify(name, w.clock.Now())
		return NotifyResult{RunID: id, Queued: true}, nil
	}
	if err != nil {
		return NotifyResult{}, err
	}
	return NotifyResult{RunID: id}, nil
}

// queueNotify makes a notify run of the table due at t.
func (w *Watcher) queueNotify(name string, t time.Time) {
	w.mu.Lock()
	if st, ok := w.liveLocked(name); ok && (st.notifyAt.IsZero() || t.Before(st.notifyAt)) {
		st.notifyAt = t
	}
	w.mu.Unlock()
	w.poke()
}

// notifyStartedLocked is called as a notify run starts: the latency since
// the first notification is reported and the table's mark cleared.
func (w *Watcher) notifyStartedLocked(st *tableState, now time.Time) {
	if !st.notifySince.IsZero() {
		w.metrics.NotifyToRun(now.Sub(st.notifySince))
	}
	st.runSince, st.notifySince, st.notifyAt = st.notifySince, time.Time{}, time.Time{}
}

// notifyCovered reports whether the table's last check, on any replica,
// started after the first notification the starting notify run answers.
// A store error says no: the run goes ahead.
func (w *Watcher) notifyCovered(ctx context.Context, name string) bool {
	w.mu.Lock()
	var since time.Time
	if st, ok := w.tables[name]; ok {
		since = st.runSince
	}
	w.mu.Unlock()
	if since.IsZero() {
		return false
	}
	ovs, err := w.deps.Store.TableOverviews(ctx, []string{name})
	if err != nil || len(ovs) != 1 || ovs[0].Observation == nil {
		return false
	}
	return ovs[0].Observation.CheckedAt.After(since)
}

// notifyLeaseHeld re-arms a notify run that found the lease held by
// another replica, with a growing delay, until the attempts are spent.
func (w *Watcher) notifyLeaseHeld(name string) {
	w.mu.Lock()
	st, ok := w.liveLocked(name)
	if !ok || st.notifyTries >= notifyAttempts {
		w.mu.Unlock()
		return
	}
	delay := notifyRetry << min(st.notifyTries, 5)
	delay = min(delay, notifyRetryMax)
	st.notifyTries++
	if st.notifySince.IsZero() || st.runSince.Before(st.notifySince) {
		st.notifySince = st.runSince // the retry answers the same notifications
	}
	w.mu.Unlock()
	w.queueNotify(name, w.clock.Now().Add(delay))
}

// notifyDueLocked reports whether a queued notify run of st is due at now
// (fireDue); a table that runs keeps it until its run ends.
func notifyDueLocked(st *tableState, now time.Time) bool {
	return !st.notifyAt.IsZero() && !st.notifyAt.After(now) && !st.running
}
