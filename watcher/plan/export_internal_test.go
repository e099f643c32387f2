package plan

import (
	"context"
	"errors"
	"math"

	"github.com/apache/iceberg-go"
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

// ListHead reads snap's manifest list as the fold does (P13): its head,
// or the whole list when it cannot be cut short.
func (p *Planner) ListHead(ctx context.Context, tbl *table.Table, snap table.Snapshot) ([]iceberg.ManifestFile, bool, error) {
	j, err := p.newJob(ctx, "t", tbl, &snap)
	if err != nil {
		return nil, false, err
	}
	h, err := j.head(ctx, snap)
	return h.ms, h.whole, err
}

// ReadListLean reads the whole of snap's manifest list with the reader
// the head uses.
func (p *Planner) ReadListLean(ctx context.Context, tbl *table.Table, snap table.Snapshot) ([]iceberg.ManifestFile, error) {
	j, err := p.newJob(ctx, "t", tbl, &snap)
	if err != nil {
		return nil, err
	}
	h, err := j.readHead(snap, ownCounts{addedData: math.MaxInt64})
	if err == nil && !h.whole {
		err = errors.New("lean read stopped before the end of the list")
	}
	return h.ms, err
}

// PlanSnapshot plans snap as if it were tbl's current snapshot (tests that
// alter what a snapshot says of itself).
func (p *Planner) PlanSnapshot(ctx context.Context, tableName string, tbl *table.Table, snap *table.Snapshot,
	cp checkpoint.Checkpoint) (*Plan, error) {
	return p.planSnapshot(ctx, tableName, tbl, snap, cp, nil)
}
