package watcher_test

import (
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
)

// TestWatcher_LagIsCheckedOnItsOwnCadence: a table that does not run (a
// long schedule) still has its lag measured every LagInterval, so "in
// sync" is never older than that; a fresh observation, whoever wrote it,
// is not measured again.
func TestWatcher_LagIsCheckedOnItsOwnCadence(t *testing.T) {
	ctx := t.Context()
	l := newLake(t)
	store := checkpoint.NewMemory()
	clock := newFakeClock()
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{l}, LagLoader: loader{l}, Builder: watcher.IcebergBuilder{},
		Uploader: pinot.NewLocalDir(t.TempDir()), Clock: clock},
		watcher.Options{Owner: "t", LeaseTTL: time.Minute, WorkDir: t.TempDir(), LagInterval: 30 * time.Second})
	if err := store.CreateTable(ctx, realTable(t, l, nil)); err != nil {
		t.Fatal(err)
	}
	l.appendRows(10)
	if _, err := w.RunOnce(ctx, "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	observed := func() checkpoint.Observation {
		t.Helper()
		ovs, err := store.TableOverviews(ctx, []string{"events"})
		if err != nil || len(ovs) != 1 || ovs[0].Observation == nil {
			t.Fatalf("overview: %+v, %v", ovs, err)
		}
		return *ovs[0].Observation
	}
	if o := observed(); o.SnapshotsBehind != 0 {
		t.Fatalf("after the run: %d snapshots behind", o.SnapshotsBehind)
	}
	for range 3 {
		l.appendRows(5)
	}
	if n := w.CheckLags(ctx); n != 0 {
		t.Fatalf("an observation younger than the interval was checked again (%d tables)", n)
	}
	if o := observed(); o.SnapshotsBehind != 0 {
		t.Fatalf("unchecked: %d snapshots behind", o.SnapshotsBehind)
	}
	clock.Advance(31 * time.Second)
	if n := w.CheckLags(ctx); n != 1 {
		t.Fatalf("checked %d tables, want the one whose observation aged", n)
	}
	o := observed()
	if o.SnapshotsBehind != 3 || !o.CheckedAt.Equal(clock.Now()) || o.LatestSnapshotID != l.load().CurrentSnapshot().SnapshotID {
		t.Fatalf("observation %+v: want 3 snapshots behind, checked now, at the newest snapshot", o)
	}
}
