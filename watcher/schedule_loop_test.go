package watcher_test

import (
	"context"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// waitRuns polls the run history until cond holds or the deadline passes.
func waitRuns(t *testing.T, s checkpoint.Store, cond func([]checkpoint.Run) bool) []checkpoint.Run {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runs, err := s.ListRuns(context.Background(), "events", 100)
		if err != nil {
			t.Fatal(err)
		}
		if cond(runs) {
			return runs
		}
		if time.Now().After(deadline) {
			t.Fatalf("condition not met; runs: %+v", runs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func finished(runs []checkpoint.Run) int {
	n := 0
	for _, r := range runs {
		if r.Status == checkpoint.RunCompleted || r.Status == checkpoint.RunFailed {
			n++
		}
	}
	return n
}

// The first run of a table without a checkpoint starts as soon as the
// watcher sees it, although its schedule is hours away.
func TestWatcher_Open_FirstRunAtOnce(t *testing.T) {
	h := newHarness(t, map[string]string{watcher.KeySchedule: "0 0 3 * * ?"})
	h.lake.appendRows(3)
	if err := h.w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer h.w.Close(context.Background())
	runs := waitRuns(t, h.store, func(r []checkpoint.Run) bool { return finished(r) >= 1 })
	if runs[0].Trigger != "first" || runs[0].Status != checkpoint.RunCompleted {
		t.Fatalf("first run: %+v", runs[0])
	}
	// The run is recorded just before the watcher marks it finished.
	var st watcher.TableStatus
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if st, _ = h.w.TableState(context.Background(), "events"); st.State != watcher.StateRunning {
			break
		}
	}
	if st.State != watcher.StateIdle || st.NextRun.Hour() != 3 {
		t.Fatalf("status after first run: %+v", st)
	}
}

// I5: pause stops scheduled runs and keeps the checkpoint; a manual
// trigger still runs; resume continues from the checkpoint.
func TestWatcher_PauseTriggerResume(t *testing.T) {
	h := newHarness(t, map[string]string{watcher.KeySchedule: "@every 1s"})
	h.lake.appendRows(3)
	ctx := context.Background()
	if err := h.w.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer h.w.Close(ctx)
	waitRuns(t, h.store, func(r []checkpoint.Run) bool { return finished(r) >= 1 })
	tbl, err := h.w.Pause(ctx, "events")
	if err != nil || tbl.TaskConfig[watcher.KeySchedulePaused] != "@every 1s" || tbl.TaskConfig[watcher.KeySchedule] != "" {
		t.Fatalf("pause: %+v, %v", tbl.TaskConfig, err)
	}
	time.Sleep(300 * time.Millisecond) // let a run that was already due finish
	before, _ := h.store.ListRuns(ctx, "events", 100)
	time.Sleep(2500 * time.Millisecond)
	after, _ := h.store.ListRuns(ctx, "events", 100)
	if len(after) != len(before) {
		t.Fatalf("paused table ran on schedule: %d runs before, %d after", len(before), len(after))
	}
	if st, _ := h.w.TableState(ctx, "events"); st.State != watcher.StatePaused {
		t.Fatalf("state %s, want PAUSED", st.State)
	}
	h.lake.appendRows(2)
	if _, err := h.w.Trigger(ctx, "events"); err != nil {
		t.Fatal(err)
	}
	runs := waitRuns(t, h.store, func(r []checkpoint.Run) bool { return finished(r) > finished(after) })
	if runs[0].Trigger != "manual" || runs[0].SegmentsGenerated != 1 {
		t.Fatalf("manual run while paused must build just the new file: %+v", runs[0])
	}
	if _, err := h.w.Resume(ctx, "events"); err != nil {
		t.Fatal(err)
	}
	h.lake.appendRows(1)
	runs = waitRuns(t, h.store, func(r []checkpoint.Run) bool { return r[0].Trigger == "schedule" && r[0].SegmentsGenerated == 1 })
	if runs[0].Rows != 1 {
		t.Fatalf("resumed run must continue from the checkpoint: %+v", runs[0])
	}
	h.assertConsistent(t)
}
