package checkpoint

import (
	"context"
	"fmt"
	"maps"
)

var _ FileIndex = (*Memory)(nil)

// IndexedCheckpoint returns the table's checkpoint without its files and
// their counts. The in-process store answers from its map, so it is
// always in step.
func (m *Memory) IndexedCheckpoint(_ context.Context, table string) (Checkpoint, FileCounts, bool, error) {
	unlock, err := m.lock("get indexed checkpoint")
	if err != nil {
		return Checkpoint{}, FileCounts{}, false, err
	}
	defer unlock()
	cp, ok := m.cps[table]
	if !ok {
		return Checkpoint{}, FileCounts{}, false, fmt.Errorf("get indexed checkpoint of table %q: %w", table, ErrNotFound)
	}
	counts := CountFiles(cp.Files)
	cp.Files = nil
	cp.SnapshotFileCounts = maps.Clone(cp.SnapshotFileCounts)
	if cp.Backfill != nil {
		b := *cp.Backfill
		cp.Backfill = &b
	}
	return cp, counts, true, nil
}

// LookupFiles returns the entries of paths the table's file map holds.
func (m *Memory) LookupFiles(_ context.Context, table string, paths []string) (map[string]FileState, error) {
	unlock, err := m.lock("look up files")
	if err != nil {
		return nil, err
	}
	defer unlock()
	return MapFiles(m.cps[table].Files).Lookup(paths), nil
}

// SmallUnits returns the small units of the partitions parts.
func (m *Memory) SmallUnits(_ context.Context, table string, parts []string, below int64) ([]StoredUnit, error) {
	unlock, err := m.lock("small units")
	if err != nil {
		return nil, err
	}
	defer unlock()
	return MapFiles(m.cps[table].Files).SmallUnits(parts, below), nil
}

// UnreferencedSegments returns the names no entry of the table's file map
// lists.
func (m *Memory) UnreferencedSegments(_ context.Context, table string, names []string) ([]string, error) {
	unlock, err := m.lock("unreferenced segments")
	if err != nil {
		return nil, err
	}
	defer unlock()
	return MapFiles(m.cps[table].Files).Unreferenced(names), nil
}
