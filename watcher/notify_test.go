package watcher_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// notifyRuns returns the recorded runs a notification asked for.
func notifyRuns(t *testing.T, s checkpoint.Store) []checkpoint.Run {
	t.Helper()
	runs, err := s.ListRuns(context.Background(), "events", 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []checkpoint.Run
	for _, r := range runs {
		if r.Trigger == "notify" && r.Status != checkpoint.RunRunning {
			out = append(out, r)
		}
	}
	return out
}

// A notification syncs the table with trigger notify; a paused table
// ignores it (I8 holds for notify runs as for scheduled ones).
func TestWatcher_Notify(t *testing.T) {
	h := newHarness(t, map[string]string{watcher.KeySchedule: "0 0 1 1 *"})
	h.lake.appendRows(3)
	res, err := h.w.Notify(context.Background(), "events", time.Now())
	if err != nil || res.RunID == "" || res.Queued {
		t.Fatalf("Notify = %+v, %v; want a run started", res, err)
	}
	waitFor(t, "the notify run", func() bool { return len(notifyRuns(t, h.store)) == 1 })
	if r := notifyRuns(t, h.store)[0]; r.Status != checkpoint.RunCompleted || r.Rows != 3 {
		t.Fatalf("notify run = %+v", r)
	}
	h.assertConsistent(t)

	if _, err := h.w.Pause(context.Background(), "events"); err != nil {
		t.Fatal(err)
	}
	h.lake.appendRows(2)
	if _, err := h.w.Notify(context.Background(), "events", time.Now()); !errors.Is(err, watcher.ErrNotAdmitted) {
		t.Fatalf("Notify on a paused table = %v, want ErrNotAdmitted", err)
	}
	if _, err := h.w.Notify(context.Background(), "nosuch", time.Now()); !errors.Is(err, checkpoint.ErrNotFound) {
		t.Fatalf("Notify on an unknown table = %v, want ErrNotFound", err)
	}
}

// A notification whose commit a check that started later already saw
// starts no run: the duplicate is harmless and not recorded (N4).
func TestWatcher_Notify_CoveredByLaterCheck(t *testing.T) {
	h := newHarness(t, nil)
	h.lake.appendRows(3)
	before := time.Now()
	time.Sleep(5 * time.Millisecond)
	h.sync(t) // a check that started after the notification below arrived
	cp := mustCheckpoint(t, h.store)
	h.lake.appendRows(2) // a commit announced later, by a notification not yet received
	if _, err := h.w.Notify(context.Background(), "events", before); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the run to end", func() bool {
		st, err := h.w.TableState(context.Background(), "events")
		return err == nil && st.State == watcher.StateIdle && !st.LastChecked.IsZero()
	})
	if got := mustCheckpoint(t, h.store); got.SnapshotID != cp.SnapshotID || len(notifyRuns(t, h.store)) != 0 {
		t.Fatalf("a covered notification synced (snapshot %d → %d, %d notify runs)", cp.SnapshotID, got.SnapshotID, len(notifyRuns(t, h.store)))
	}
	if _, err := h.w.Notify(context.Background(), "events", time.Now()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new commit's notify run", func() bool { return len(notifyRuns(t, h.store)) == 1 })
	if got := mustCheckpoint(t, h.store); got.SnapshotID == cp.SnapshotID {
		t.Fatal("the fresh notification did not sync the new commit")
	}
}

// A notify run that finds another replica's lease is tried again once the
// lease is free, and then syncs.
func TestWatcher_Notify_RetriesAfterLeaseHeld(t *testing.T) {
	h := newHarness(t, nil)
	h.lake.appendRows(3)
	h.sync(t)
	h.lake.appendRows(4)
	ctx := context.Background()
	lease, err := h.store.AcquireLease(ctx, "events", "other-replica", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.w.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.w.Close(context.Background()) })
	if _, err := h.w.Notify(ctx, "events", time.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the first attempt meets the lease
	if n := len(notifyRuns(t, h.store)); n != 0 {
		t.Fatalf("%d notify runs recorded while another replica held the lease", n)
	}
	if err := h.store.ReleaseLease(ctx, lease); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the retried notify run", func() bool { return len(notifyRuns(t, h.store)) == 1 })
	if r := notifyRuns(t, h.store)[0]; r.Status != checkpoint.RunCompleted || r.Rows != 4 {
		t.Fatalf("retried run = %+v", r)
	}
}
