package checkpoint

import (
	"context"
	"fmt"
	"maps"
	"slices"
)

// writeTableLocked stores t under the next revision and announces it.
// The caller holds m.mu.
func (m *Memory) writeTableLocked(t Table) Table {
	m.tableRev++
	t = cloneTable(t)
	t.Revision = m.tableRev
	m.tables[t.Name] = t
	m.changes.append(changedTable(t))
	return cloneTable(t)
}

// UpdateTable replaces the table if its stored revision is still
// t.Revision.
func (m *Memory) UpdateTable(_ context.Context, t Table) (Table, error) {
	if err := checkName("table", t.Name); err != nil {
		return Table{}, fmt.Errorf("update table: %w", err)
	}
	unlock, err := m.lock("update table")
	if err != nil {
		return Table{}, err
	}
	defer unlock()
	cur, ok := m.tables[t.Name]
	if !ok {
		return Table{}, fmt.Errorf("update table %q: %w", t.Name, ErrNotFound)
	}
	if cur.Revision != t.Revision {
		return Table{}, fmt.Errorf("update table %q: %w", t.Name, staleErr(cur.Revision, t.Revision))
	}
	return m.writeTableLocked(t), nil
}

// SnapshotTables returns every table and the current table revision.
func (m *Memory) SnapshotTables(_ context.Context) (TableSnapshot, error) {
	unlock, err := m.lock("snapshot tables")
	if err != nil {
		return TableSnapshot{}, err
	}
	defer unlock()
	snap := TableSnapshot{Revision: m.tableRev, Tables: make([]Table, 0, len(m.tables))}
	for _, name := range slices.Sorted(maps.Keys(m.tables)) {
		snap.Tables = append(snap.Tables, cloneTable(m.tables[name]))
	}
	return snap, nil
}

// WatchTables delivers the table changes after revision after, from the
// in-process backlog.
func (m *Memory) WatchTables(ctx context.Context, after int64) (<-chan TableChange, error) {
	unlock, err := m.lock("watch tables")
	if err != nil {
		return nil, err
	}
	defer unlock()
	return m.changes.watch(ctx, after), nil
}
