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
