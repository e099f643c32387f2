//go:build integration

package matrix_test

import (
	"strconv"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
)

// goStreamed: an overwrite that replaces several units at once streams
// into one open replacement (watcher I9): on the local directory through
// its lineage, on the 0.11 cluster through the controller's segment
// lineage. Every unit's segment is named before the first build; the
// engines must answer exactly the new rows afterwards, and the sync before
// it exactly the old ones.
func goStreamed(t *testing.T, e *env) {
	ident := table.Identifier{"gostream", "events"}
	g := createGoTable(t, e.cat, ident, stdSchema(), iceberg.Properties{"format-version": "2"})
	m := e.newTable(t, "m_go_stream", ident[0], ident[1], stdSchema(), false, "id", "city")

	for i := range int64(4) {
		g.appendRows(stdRows(i*20, i*20+20))
	}
	m.check(t, "four appends", 80)
	g.overwrite(stdRows(100, 120))
	for i := range int64(4) {
		g.appendRows(stdRows(120+i*15, 135+i*15))
	}
	// 5 units, one segment each, replace the 4 segments of the appends.
	m.checkStreamed(t, "overwrite and appends streamed as one replacement", 80, 5, 5, 4)
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
			t.Errorf("table %s step %q on the %s watcher: built %d and retired %d segments, want %d and %d (run log %+v)",
				m.name, step, s.sync.name, s.run.SegmentsGenerated, s.run.SegmentsDeleted, segments, retired, stored.Log)
		}
		for _, l := range stored.Log {
			if l.Msg == "streamed replacement cannot end as planned; reverting it and building the run whole" {
				t.Errorf("table %s step %q on the %s watcher: the replacement fell back to a whole build: %v", m.name,
					step, s.sync.name, l.Attrs)
			}
		}
	}
}
