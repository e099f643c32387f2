package plan

import (
	"context"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
)

// PlanFull plans with the full-state diff only, for tests that compare it
// with Plan (P1).
func (p *Planner) PlanFull(ctx context.Context, tableName string, tbl *table.Table, cp checkpoint.Checkpoint) (*Plan, error) {
	snap := tbl.CurrentSnapshot()
	if snap == nil {
		return dropAll(cp), nil
	}
	j, err := p.newJob(ctx, tableName, tbl, snap)
	if err != nil {
		return nil, err
	}
	lv, err := j.full(ctx)
	if err != nil {
		return nil, err
	}
	out, _, err := j.diff(ctx, lv, cp)
	if err != nil {
		return nil, err
	}
	out.Fallback = "forced"
	return out, nil
}
