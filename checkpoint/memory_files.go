package checkpoint

import (
	"context"
	"fmt"
	"maps"
)

// CommitCheckpointDelta applies d to the table's checkpoint if lease is
// current.
func (m *Memory) CommitCheckpointDelta(_ context.Context, lease Lease, d CheckpointDelta) error {
	if err := checkDelta(lease, d); err != nil {
		return fmt.Errorf("commit checkpoint delta: %w", err)
	}
	unlock, err := m.lock("commit checkpoint delta")
	if err != nil {
		return err
	}
	defer unlock()
	if err := m.checkCurrent(lease); err != nil {
		return fmt.Errorf("commit checkpoint delta of table %q: %w", lease.Table, err)
	}
	files := m.cps[lease.Table].Files // the store's own map: changed in place, O(delta)
	if files == nil {
		files = map[string]FileState{}
	}
	applyDelta(files, d)
	cp := d.Header
	cp.SnapshotFileCounts = maps.Clone(cp.SnapshotFileCounts)
	if cp.Backfill != nil {
		b := *cp.Backfill
		cp.Backfill = &b
	}
	cp.Files = files
	m.cps[lease.Table] = stampCheckpoint(cp, lease, m.nowFunc())
	return nil
}

// RecordSegments notes lease's token for names if lease is current.
func (m *Memory) RecordSegments(_ context.Context, lease Lease, names []string) error {
	return m.ledgerWrite("record segments", lease, names, func(l map[string]int64, n string) { l[n] = lease.Token })
}

// ForgetSegments drops names from the ledger if lease is current.
func (m *Memory) ForgetSegments(_ context.Context, lease Lease, names []string) error {
	return m.ledgerWrite("forget segments", lease, names, func(l map[string]int64, n string) { delete(l, n) })
}

func (m *Memory) ledgerWrite(op string, lease Lease, names []string, fn func(map[string]int64, string)) error {
	if err := checkNames(lease, names); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	unlock, err := m.lock(op)
	if err != nil {
		return err
	}
	defer unlock()
	if err := m.checkCurrent(lease); err != nil {
		return fmt.Errorf("%s of table %q: %w", op, lease.Table, err)
	}
	l := m.ledger[lease.Table]
	if l == nil {
		l = map[string]int64{}
		m.ledger[lease.Table] = l
	}
	for _, n := range names {
		fn(l, n)
	}
	return nil
}

// SegmentTokens returns the recorded token of each name that has one.
func (m *Memory) SegmentTokens(_ context.Context, table string, names []string) (map[string]int64, error) {
	unlock, err := m.lock("segment tokens")
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := map[string]int64{}
	for _, n := range names {
		if tok, ok := m.ledger[table][n]; ok {
			out[n] = tok
		}
	}
	return out, nil
}
