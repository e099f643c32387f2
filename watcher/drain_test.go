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

// gateBuilder blocks every build until release is closed or the run's
// context ends, then builds like fakeBuilder.
type gateBuilder struct {
	fake    *fakeBuilder
	once    sync.Once
	entered chan struct{}
	release chan struct{}
}

func newGateBuilder() *gateBuilder {
	return &gateBuilder{fake: &fakeBuilder{fail: map[string]bool{}}, entered: make(chan struct{}), release: make(chan struct{})}
}

func (b *gateBuilder) Build(ctx context.Context, req watcher.BuildRequest) (watcher.BuildResult, error) {
	b.once.Do(func() { close(b.entered) })
	select {
	case <-b.release:
	case <-ctx.Done():
		return watcher.BuildResult{}, context.Cause(ctx)
	}
	return b.fake.Build(ctx, req)
}

// drainHarness opens a watcher whose first run of "events" blocks in the
// builder, and waits until it does.
func drainHarness(t *testing.T) (*harness, *gateBuilder) {
	t.Helper()
	h := newHarness(t, nil)
	gate := newGateBuilder()
	h.w = watcher.New(watcher.Deps{Store: h.store, Loader: loader{h.lake}, Builder: gate, Uploader: h.up},
		watcher.Options{Owner: "draining", LeaseTTL: time.Hour, WorkDir: t.TempDir()})
	h.lake.appendRows(3)
	if err := h.w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.w.Close(context.Background()) })
	select {
	case <-gate.entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the first run never reached the builder")
	}
	return h, gate
}

// runsOf returns the table's run records by status.
func runsOf(t *testing.T, s checkpoint.Store) map[checkpoint.RunStatus][]checkpoint.Run {
	t.Helper()
	runs, err := s.ListRuns(context.Background(), "events", 100)
	if err != nil {
		t.Fatal(err)
	}
	out := map[checkpoint.RunStatus][]checkpoint.Run{}
	for _, r := range runs {
		out[r.Status] = append(out[r.Status], r)
	}
	return out
}

// D1, D3: a run that ends within the grace completes; no run starts once
// the drain began; the lease is free when Drain returns (another owner
// takes it at once, with an hour-long TTL).
func TestWatcher_Drain_RunEndsWithinGrace(t *testing.T) {
	h, gate := drainHarness(t)
	drained := make(chan error, 1)
	go func() { drained <- h.w.Drain(context.Background(), time.Minute) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := h.w.Trigger(context.Background(), "events")
		if errors.Is(err, watcher.ErrDraining) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("trigger while draining: %v, want ErrDraining", err)
		}
		time.Sleep(time.Millisecond)
	}
	close(gate.release)
	if err := <-drained; err != nil {
		t.Fatalf("drain: %v", err)
	}
	runs := runsOf(t, h.store)
	if len(runs[checkpoint.RunCompleted]) != 1 || len(runs[checkpoint.RunRunning]) != 0 || len(runs[checkpoint.RunFailed]) != 0 {
		t.Fatalf("runs after drain: %+v, want one COMPLETED", runs)
	}
	if _, err := h.store.AcquireLease(context.Background(), "events", "other", time.Minute); err != nil {
		t.Fatalf("lease after drain: %v", err)
	}
	h.assertConsistent(t)
}

// D2, D3: a run still going when the grace ends is stopped, records
// FAILED naming the drain, and has released its lease; nothing is left
// RUNNING.
func TestWatcher_Drain_GraceEndsStopsRun(t *testing.T) {
	h, _ := drainHarness(t)
	if err := h.w.Drain(context.Background(), 50*time.Millisecond); err != nil {
		t.Fatalf("drain: %v", err)
	}
	runs := runsOf(t, h.store)
	failed := runs[checkpoint.RunFailed]
	if len(failed) != 1 || len(runs[checkpoint.RunRunning]) != 0 || !strings.Contains(failed[0].Error, watcher.ErrDraining.Error()) {
		t.Fatalf("runs after drain: %+v, want one FAILED naming %q", runs, watcher.ErrDraining)
	}
	if _, err := h.store.AcquireLease(context.Background(), "events", "other", time.Minute); err != nil {
		t.Fatalf("lease after drain: %v", err)
	}
	if cp, err := h.store.GetCheckpoint(context.Background(), "events"); err == nil && cp.SnapshotID != 0 {
		t.Fatalf("a stopped run committed snapshot %d", cp.SnapshotID)
	}
}
