package watcher

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// stillWanted, the check a run in flight makes before each write: a pause
// does not stop the run (I5); a delete does, and so does a delete followed
// by a create under the same name (I8).
func TestWatcher_StillWanted(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	w := New(Deps{Store: store}, Options{Owner: "a", LeaseTTL: time.Minute})
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(store.CreateTable(ctx, checkpoint.Table{Name: "orders", CreatedAt: created,
		TaskConfig: map[string]string{KeySchedule: "@hourly"}}))
	admitted, err := w.admit(ctx, checkpoint.Table{Name: "orders"}, triggerSchedule)
	must(err)
	must(w.stillWanted(ctx, admitted))

	_, err = w.Pause(ctx, "orders")
	must(err)
	if err := w.stillWanted(ctx, admitted); err != nil {
		t.Fatalf("a pause must not stop a run in flight (I5): %v", err)
	}

	must(w.DeleteTable(ctx, "orders"))
	if err := w.stillWanted(ctx, admitted); !errors.Is(err, ErrTableDeleted) {
		t.Fatalf("after delete: %v, want ErrTableDeleted", err)
	}
	must(store.CreateTable(ctx, checkpoint.Table{Name: "orders", CreatedAt: created.Add(time.Second)}))
	if err := w.stillWanted(ctx, admitted); !errors.Is(err, ErrTableDeleted) {
		t.Fatalf("after delete and re-create: %v, want ErrTableDeleted", err)
	}
	if _, err := w.admit(ctx, checkpoint.Table{Name: "gone"}, "manual"); !errors.Is(err, ErrTableDeleted) {
		t.Fatalf("admit of a missing table: %v, want ErrTableDeleted", err)
	}
}

// I8: a paused table's record turns away the runs the watcher fires
// itself (schedule, first) even at the revision the run saw; a manual
// trigger at that revision runs once.
func TestWatcher_Admit_PausedByTrigger(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	w := New(Deps{Store: store}, Options{Owner: "a", LeaseTTL: time.Minute})
	if err := store.CreateTable(ctx, checkpoint.Table{Name: "orders",
		TaskConfig: Pause(map[string]string{KeySchedule: "@hourly"})}); err != nil {
		t.Fatal(err)
	}
	cur, err := store.GetTable(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	for trigger, want := range map[string]bool{triggerSchedule: false, triggerFirst: false, "manual": true} {
		_, err := w.admit(ctx, cur, trigger)
		if got := err == nil; got != want {
			t.Errorf("trigger %s on a paused table: admitted %v (%v), want %v", trigger, got, err, want)
		}
		if err != nil && !errors.Is(err, ErrNotAdmitted) {
			t.Errorf("trigger %s: %v, want ErrNotAdmitted", trigger, err)
		}
	}
}
