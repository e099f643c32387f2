package watcher_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// replayStore answers SnapshotTables with a snapshot taken earlier while
// one is set: a refresh whose list read was slow, or a store that lost
// its recent writes.
type replayStore struct {
	checkpoint.Store
	mu   sync.Mutex
	snap *checkpoint.TableSnapshot
}

func (s *replayStore) SnapshotTables(ctx context.Context) (checkpoint.TableSnapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap != nil {
		return *s.snap, nil
	}
	return s.Store.SnapshotTables(ctx)
}

func (s *replayStore) replay(snap *checkpoint.TableSnapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.snap = snap
}

// recordingLoader notes every run start and fails the run.
type recordingLoader struct {
	mu      sync.Mutex
	started map[string]int
	block   chan struct{} // when set, runs of "blocker" wait for it
}

func (l *recordingLoader) LoadTable(ctx context.Context, t checkpoint.Table) (*watcher.Source, error) {
	l.mu.Lock()
	l.started[t.Name]++
	block := l.block
	l.mu.Unlock()
	if t.Name == "blocker" && block != nil {
		select {
		case <-block:
		case <-ctx.Done():
		}
	}
	return nil, errors.New("no catalog in this test")
}

func (l *recordingLoader) count(name string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.started[name]
}

type controlHarness struct {
	store  *replayStore
	clock  *fakeClock
	loader *recordingLoader
	w      *watcher.Watcher
}

func newControlHarness(t *testing.T) *controlHarness {
	t.Helper()
	mem := checkpoint.NewMemory()
	t.Cleanup(func() { _ = mem.Close() })
	// The tables' connection (AddTable needs it stored: checkpoint C13).
	if err := mem.PutConnection(t.Context(), checkpoint.Connection{Name: "c", Type: "rest"}); err != nil {
		t.Fatal(err)
	}
	h := &controlHarness{store: &replayStore{Store: mem}, clock: newFakeClock(),
		loader: &recordingLoader{started: map[string]int{}}}
	h.w = watcher.New(watcher.Deps{Store: h.store, Loader: h.loader, Clock: h.clock},
		watcher.Options{Owner: "a", LeaseTTL: time.Minute, MaxConcurrentRuns: 1, WorkDir: t.TempDir()})
	return h
}

func (h *controlHarness) create(t *testing.T, name string, tc map[string]string) {
	t.Helper()
	if err := h.store.CreateTable(context.Background(), checkpoint.Table{Name: name, TaskConfig: tc}); err != nil {
		t.Fatal(err)
	}
}

func (h *controlHarness) status(t *testing.T, name string) watcher.TableStatus {
	t.Helper()
	st, err := h.w.TableState(context.Background(), name)
	if err != nil {
		t.Fatalf("status of %s: %v", name, err)
	}
	return st
}

func (h *controlHarness) snapshot(t *testing.T) *checkpoint.TableSnapshot {
	t.Helper()
	snap, err := h.store.Store.SnapshotTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &snap
}

// I8, rule 1: a refresh whose list was read before a pause and a create
// neither unpauses the table nor drops the new one, and the new one keeps
// its first run (no first run lost, no pause undone).
func TestWatcher_Refresh_StaleSnapshotUndoesNothing(t *testing.T) {
	h := newControlHarness(t)
	ctx := context.Background()
	h.create(t, "orders", map[string]string{watcher.KeySchedule: "@every 30s"})
	old := h.snapshot(t)
	if err := h.w.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.w.Pause(ctx, "orders"); err != nil {
		t.Fatal(err)
	}
	if err := h.w.AddTable(ctx, checkpoint.Table{Name: "fresh", Connection: "c", TaskConfig: map[string]string{watcher.KeySchedule: "0 0 3 * * ?"}}); err != nil {
		t.Fatal(err)
	}
	h.store.replay(old)
	if err := h.w.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if st := h.status(t, "orders"); st.State != watcher.StatePaused {
		t.Fatalf("after a stale refresh orders is %s (revision %d), want PAUSED", st.State, st.Revision)
	}
	st := h.status(t, "fresh")
	if !st.NextRun.Equal(h.clock.Now()) {
		t.Fatalf("after a stale refresh and a status read, fresh is due %s, want now (%s): its first run", st.NextRun, h.clock.Now())
	}
}

// I8, rule 2: every path that learns of a table without a checkpoint makes
// it due at once, and none does for a table that has one.
func TestWatcher_FirstRunOnEveryPath(t *testing.T) {
	sched := map[string]string{watcher.KeySchedule: "0 0 3 * * ?"}
	paths := []struct {
		name  string
		learn func(t *testing.T, h *controlHarness, table string)
	}{
		{"refresh", func(t *testing.T, h *controlHarness, table string) {
			h.create(t, table, sched)
			must(t, h.w.Refresh(context.Background()))
		}},
		{"status read", func(t *testing.T, h *controlHarness, table string) {
			h.create(t, table, sched)
		}},
		{"create", func(t *testing.T, h *controlHarness, table string) {
			must(t, h.w.AddTable(context.Background(), checkpoint.Table{Name: table, Connection: "c", TaskConfig: sched}))
		}},
		{"resume", func(t *testing.T, h *controlHarness, table string) {
			h.create(t, table, watcher.Pause(sched))
			must(t, h.w.Refresh(context.Background()))
			_, err := h.w.Resume(context.Background(), table)
			must(t, err)
		}},
		{"enable", func(t *testing.T, h *controlHarness, table string) {
			h.create(t, table, map[string]string{watcher.KeySchedule: "0 0 3 * * ?", watcher.KeyEnabled: "false"})
			must(t, h.w.Refresh(context.Background()))
			_, err := h.w.UpdateTable(context.Background(), table, func(tb *checkpoint.Table) error {
				tb.TaskConfig[watcher.KeyEnabled] = "true"
				return nil
			})
			must(t, err)
		}},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			h := newControlHarness(t)
			h.create(t, "synced", sched)
			lease, err := h.store.AcquireLease(context.Background(), "synced", "x", time.Minute)
			must(t, err)
			must(t, h.store.CommitCheckpoint(context.Background(), lease, checkpoint.Checkpoint{Table: "synced", SnapshotID: 1}))
			must(t, h.store.ReleaseLease(context.Background(), lease))
			p.learn(t, h, "new")
			now := h.clock.Now()
			if st := h.status(t, "new"); !st.NextRun.Equal(now) {
				t.Fatalf("table without a checkpoint learnt by %s is due %s, want now (%s)", p.name, st.NextRun, now)
			}
			if st := h.status(t, "synced"); !st.NextRun.After(now) {
				t.Fatalf("table with a checkpoint is due %s, want its schedule's next time", st.NextRun)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A store whose table revisions went back (Redis lost its data) is taken
// as it is: the watcher drops what the store no longer has and applies
// records whose revisions are lower than the ones it held.
func TestWatcher_Refresh_StoreWentBack(t *testing.T) {
	h := newControlHarness(t)
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c"} {
		h.create(t, n, map[string]string{watcher.KeySchedule: "@every 30s"})
	}
	must(t, h.w.Refresh(ctx))
	for range 3 {
		_, err := h.w.Pause(ctx, "a")
		must(t, err)
	}
	lost := &checkpoint.TableSnapshot{Revision: 1, Tables: []checkpoint.Table{
		{Name: "a", Revision: 1, TaskConfig: map[string]string{watcher.KeySchedule: "@every 30s"}}}}
	h.store.replay(lost)
	must(t, h.w.Refresh(ctx))
	sts := h.w.Status()
	if len(sts) != 1 || sts[0].Table != "a" || sts[0].Revision != 1 || sts[0].State != watcher.StateIdle {
		t.Fatalf("after the store went back the schedule is %+v, want only a at revision 1, idle", sts)
	}
}

// Admission (I8): a manual trigger of a paused table runs once, but not
// if the table was paused again before the run could start; a scheduled
// run of a table paused before it started does not run and is not
// recorded.
func TestWatcher_AdmissionDecidesAtRunStart(t *testing.T) {
	h := newControlHarness(t)
	ctx := context.Background()
	h.loader.block = make(chan struct{})
	h.create(t, "blocker", map[string]string{watcher.KeySchedule: "0 0 3 * * ?"})
	h.create(t, "manual", watcher.Pause(map[string]string{watcher.KeySchedule: "@every 30s"}))
	must(t, h.w.Open(ctx))
	defer h.w.Close(ctx)
	waitFor(t, "the blocker run to start", func() bool { return h.loader.count("blocker") == 1 })

	// The one slot is taken: both runs wait for it, then meet admission.
	h.create(t, "scheduled", map[string]string{watcher.KeySchedule: "@every 30s"})
	waitFor(t, "the first run of scheduled to queue", func() bool {
		st, err := h.w.TableState(ctx, "scheduled")
		return err == nil && st.State == watcher.StateRunning
	})
	id, err := h.w.Trigger(ctx, "manual")
	must(t, err)
	_, err = h.w.Pause(ctx, "manual")
	must(t, err)
	_, err = h.w.Pause(ctx, "scheduled")
	must(t, err)
	close(h.loader.block)

	waitFor(t, "the manual run to be recorded", func() bool {
		r, err := h.store.GetRun(ctx, "manual", id)
		return err == nil && r.Status != checkpoint.RunRunning
	})
	run, _ := h.store.GetRun(ctx, "manual", id)
	if run.Status != checkpoint.RunSkipped || !strings.Contains(run.Error, "paused since the run was requested") {
		t.Fatalf("manual run after a later pause: %+v, want SKIPPED with the reason", run)
	}
	waitFor(t, "scheduled to leave RUNNING", func() bool {
		st, err := h.w.TableState(ctx, "scheduled")
		return err == nil && st.State == watcher.StatePaused
	})
	if n := h.loader.count("manual") + h.loader.count("scheduled"); n != 0 {
		t.Fatalf("%d runs started after their table was paused", n)
	}
	if runs, _ := h.store.ListRuns(ctx, "scheduled", 10); len(runs) != 0 {
		t.Fatalf("a scheduled run turned away by admission was recorded: %+v", runs)
	}

	// Still paused, nothing changed since: a manual trigger runs once.
	_, err = h.w.Trigger(ctx, "manual")
	must(t, err)
	waitFor(t, "the manual run of the paused table", func() bool { return h.loader.count("manual") == 1 })
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
