//go:build integration

package matrix_test

import (
	"maps"
	"strconv"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// goStreamed: an overwrite that replaces several units at once streams
// into one open replacement (watcher I9): on the local directory through
// its lineage, on the 0.11 cluster through the controller's segment
// lineage. A small maxRowsPerSegment gives every unit several segments,
// all named before the first build; the engines must answer exactly the
// new rows afterwards, and the sync before it exactly the old ones.
func goStreamed(t *testing.T, e *env) {
	ident := table.Identifier{"gostream", "events"}
	g := createGoTable(t, e.cat, ident, stdSchema(), iceberg.Properties{"format-version": "2"})
	m := e.newTable(t, "m_go_stream", ident[0], ident[1], stdSchema(), false, "id", "city")
	m.setTaskConfig(t, watcher.KeyMaxRowsPerSegment, "8")

	for i := range int64(4) {
		g.appendRows(stdRows(i*20, i*20+20))
	}
	m.check(t, "four appends", 80)
	g.overwrite(stdRows(100, 120))
	for i := range int64(4) {
		g.appendRows(stdRows(120+i*15, 135+i*15))
	}
	// 5 units (20 rows: 3 segments; 15 rows: 2 each) replace the 12
	// segments of the four appends.
	m.checkStreamed(t, "overwrite and appends streamed as one replacement", 80, 5, 11, 12)
}

// setTaskConfig sets one sync task option of the table on both watchers.
func (m *mtable) setTaskConfig(t *testing.T, key, value string) {
	t.Helper()
	for _, s := range []syncer{m.e.local, m.e.remote} {
		_, err := checkpoint.UpdateTableFunc(t.Context(), s.store, m.name, 3, func(tbl *checkpoint.Table) error {
			tc := maps.Clone(tbl.TaskConfig)
			if tc == nil {
				tc = map[string]string{}
			}
			tc[key] = value
			tbl.TaskConfig = tc
			return nil
		})
		if err != nil {
			t.Fatalf("set %s of %s on the %s watcher: %v", key, m.name, s.name, err)
		}
	}
}

// checkStreamed is check for a step both watchers must run as one
// streamed replacement of units units, built into segments segments,
// retiring retired served segments.
func (m *mtable) checkStreamed(t *testing.T, step string, wantRows int64, units, segments, retired int) {
	t.Helper()
	m.check(t, step, wantRows)
	for _, s := range []struct {
		sync syncer
		run  checkpoint.Run
	}{{m.e.local, m.last.local}, {m.e.remote, m.last.remote}} {
		if s.run.ID == "" {
			continue // the cluster's sync failed: check reported it
		}
		stored, err := s.sync.store.GetRun(t.Context(), m.name, s.run.ID)
		if err != nil {
			t.Fatal(err)
		}
		streamed := ""
		for _, l := range stored.Log {
			if l.Msg == "stream replacement" {
				streamed = l.Attrs["units"]
			}
		}
		if streamed != strconv.Itoa(units) {
			t.Errorf("table %s step %q on the %s watcher: streamed %q units, want %d (run log %+v)", m.name, step,
				s.sync.name, streamed, units, stored.Log)
		}
		if s.run.SegmentsGenerated != segments || s.run.SegmentsDeleted != retired {
			t.Errorf("table %s step %q on the %s watcher: built %d and retired %d segments, want %d and %d", m.name,
				step, s.sync.name, s.run.SegmentsGenerated, s.run.SegmentsDeleted, segments, retired)
		}
	}
}
