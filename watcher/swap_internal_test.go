package watcher

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// I4, conservative cleanup: a served segment nobody accounts for is an
// orphan this run may remove only when no newer lease recorded it in the
// ledger; one a newer lease recorded is left and reported.
func TestPlanSwap_LeavesSegmentsOfNewerLeases(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	if err := store.CreateTable(ctx, checkpoint.Table{Name: "t"}); err != nil {
		t.Fatal(err)
	}
	stale, err := store.AcquireLease(ctx, "t", "frozen", 30*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	newer, err := store.AcquireLease(ctx, "t", "live", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.RecordSegments(ctx, newer, []string{"t_new_0"}); err != nil {
		t.Fatal(err)
	}
	w := New(Deps{Store: store}, Options{})
	r := &runner{w: w, table: checkpoint.Table{Name: "t"}, keeper: &leaseKeeper{lease: stale}}
	tg := target{
		plan:   &plan.Plan{Build: []plan.Unit{{Key: "t_built"}}, Drop: []string{"gone.parquet"}},
		old:    checkpoint.Checkpoint{Files: map[string]checkpoint.FileState{"gone.parquet": {Segments: []string{"t_gone_0"}}, "kept.parquet": {Segments: []string{"t_kept_0"}}}},
		served: map[string]bool{"t_gone_0": true, "t_kept_0": true, "t_new_0": true, "t_dead_0": true, "t_built_0": true, "other_0": true},
	}
	sw, err := r.planSwap(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sw.orphans, []string{"t_dead_0"}) || !slices.Equal(sw.left, []string{"t_new_0"}) {
		t.Fatalf("orphans %v, left %v; want the unrecorded dead segment removable and the newer lease's left", sw.orphans, sw.left)
	}
	if from := sw.fromSegments(tg.served, nil); !slices.Equal(from, []string{"t_dead_0", "t_gone_0"}) {
		t.Fatalf("from = %v", from)
	}
}
