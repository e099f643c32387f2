package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// plans plans tbl against cp incrementally and with the full-state diff
// and fails unless both plans are the same (P1).
func plans(t testing.TB, p *plan.Planner, tbl *table.Table, cp checkpoint.Checkpoint) *plan.Plan {
	t.Helper()
	ctx := context.Background()
	inc, err := p.Plan(ctx, tableName, tbl, cp)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	full, err := p.PlanFull(ctx, tableName, tbl, cp)
	if err != nil {
		t.Fatalf("full plan: %v", err)
	}
	if a, b := describe(inc), describe(full); a != b {
		t.Fatalf("P1: incremental plan (fallback %q) differs from the full-state diff, %s", inc.Fallback, firstDiff(a, b))
	}
	return inc
}

// P4: appends fold; the checkpoint's files are kept, only new ones built.
func TestPlanner_Plan_AppendsFold(t *testing.T) {
	l := newLake(t, lakeConfig{version: 2})
	p := plan.New(plan.Options{})
	l.appendRows(10)
	first := plans(t, p, l.load(), checkpoint.Checkpoint{})
	if first.Incremental || first.Fallback != "no checkpointed snapshot" || len(first.Build) != 1 || first.Replacing {
		t.Fatalf("first plan: %+v", first)
	}
	cp := commit(checkpoint.Checkpoint{}, l.load(), first, nil)
	l.appendRows(5)
	l.appendRows(5)
	second := plans(t, p, l.load(), cp)
	if !second.Incremental || len(second.Build) != 2 || len(second.Keep) != 1 || second.Replacing || second.LiveFiles != 3 {
		t.Fatalf("P4: want an incremental pure addition of 2 files, got %+v", second)
	}
}

// P5: a rollback is planned with the full-state diff and says why.
func TestPlanner_Plan_RollbackFallsBack(t *testing.T) {
	l := newLake(t, lakeConfig{version: 2})
	p := plan.New(plan.Options{})
	l.appendRows(10)
	l.appendRows(10)
	cp := commit(checkpoint.Checkpoint{}, l.load(), plans(t, p, l.load(), checkpoint.Checkpoint{}), nil)
	tbl := l.load()
	tx := tbl.NewTransaction()
	if err := tx.RollbackToSnapshot(*tbl.CurrentSnapshot().ParentSnapshotID); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.appendRows(3)
	got := plans(t, p, l.load(), cp)
	if got.Incremental || !strings.Contains(got.Fallback, "not an ancestor") || len(got.Drop) != 1 || !got.Replacing {
		t.Fatalf("P5: want a full-state diff dropping the rolled-back file, got %+v", got)
	}
}
