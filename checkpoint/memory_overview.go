package checkpoint

import (
	"context"
	"fmt"
)

// PutObservation records the latest observation of an existing table.
func (m *Memory) PutObservation(_ context.Context, table string, o Observation) error {
	unlock, err := m.lock("put observation")
	if err != nil {
		return err
	}
	defer unlock()
	if _, ok := m.tables[table]; !ok {
		return fmt.Errorf("put observation of table %q: %w", table, ErrNotFound)
	}
	m.obs[table] = o
	return nil
}

// TableOverviews reads the overview of each name under one lock.
func (m *Memory) TableOverviews(_ context.Context, names []string) ([]TableOverview, error) {
	unlock, err := m.lock("read table overviews")
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := make([]TableOverview, len(names))
	for i, name := range names {
		ov := TableOverview{Table: name}
		if cp, ok := m.cps[name]; ok {
			sum := cp.Summary()
			ov.Summary = &sum
		}
		if r, ok := m.newestRunLocked(name); ok {
			ov.LastRun = &r
		}
		if o, ok := m.obs[name]; ok {
			ov.Observation = &o
		}
		out[i] = ov
	}
	return out, nil
}

// newestRunLocked returns the table's newest run (C6 order).
func (m *Memory) newestRunLocked(table string) (Run, bool) {
	var newest Run
	found := false
	for _, r := range m.runs[table] {
		if !found || runNewer(r, newest) {
			newest, found = r, true
		}
	}
	return cloneRun(newest), found
}

// TableRevision returns the last table revision.
func (m *Memory) TableRevision(_ context.Context) (int64, error) {
	unlock, err := m.lock("read table revision")
	if err != nil {
		return 0, err
	}
	defer unlock()
	return m.tableRev, nil
}
