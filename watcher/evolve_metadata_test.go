package watcher_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// Schema changes committed without data: Spark's ALTER TABLE … DROP
// COLUMN or RENAME COLUMN writes a new metadata file with a new current
// schema and no snapshot.

// checked opens a second watcher on the table, as `floe serve` runs it:
// the lag check on a cadence of interval and a schedule that never fires
// while the test runs, so whatever it syncs the check asked for.
func (e *evolving) checked(interval time.Duration) *watcher.Watcher {
	e.t.Helper()
	if _, err := checkpoint.UpdateTableFunc(e.t.Context(), e.store, "events", 8, func(t *checkpoint.Table) error {
		t.TaskConfig = map[string]string{watcher.KeySchedule: "0 0 1 1 *"}
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	w := watcher.New(watcher.Deps{Store: e.store, Loader: loader{e.lake}, LagLoader: loader{e.lake},
		Builder: watcher.IcebergBuilder{}, Uploader: e.up},
		watcher.Options{Owner: "checker", LeaseTTL: time.Minute, WorkDir: e.t.TempDir(), LagInterval: interval})
	if err := w.Open(e.t.Context()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = w.Close(e.t.Context()) })
	return w
}

// waitSchemaApplied waits until a run has recorded the table's current
// schema in the checkpoint and ended, and returns that run.
func (e *evolving) waitSchemaApplied() checkpoint.Run {
	e.t.Helper()
	want := e.lake.load().Schema().ID
	var run checkpoint.Run
	waitFor(e.t, "a run to apply the Iceberg schema change", func() bool {
		cp, err := e.store.GetCheckpointSummary(e.t.Context(), "events")
		if err != nil || cp.SchemaID != want {
			return false
		}
		runs, err := e.store.ListRuns(e.t.Context(), "events", 1)
		if err != nil || len(runs) == 0 || runs[0].Status == checkpoint.RunRunning {
			return false
		}
		run = runs[0]
		return true
	})
	return run
}

// A column dropped without a data commit is applied by the next lag check:
// every segment is rebuilt in one replacement and no old value remains,
// the snapshot unchanged. The check asks once: the next one finds the
// schema applied and asks for nothing.
func TestEvolve_dropWithoutDataCommit(t *testing.T) {
	e := newEvolving(t, nil, iceberg.NestedField{Name: "score", Type: iceberg.PrimitiveTypes.Float64})
	e.appendRows(0, 6)
	e.appendRows(6, 9)
	e.mustSync()
	vals, _, before := e.rows("score")
	if vals[7] != float64(7) {
		t.Fatalf("score of id 7 before the drop = %v, want 7", vals[7])
	}
	snap := e.lake.load().CurrentSnapshot().SnapshotID
	e.alter(func(u *table.UpdateSchema) { u.DeleteColumn([]string{"score"}) })
	if now := e.lake.load().CurrentSnapshot().SnapshotID; now != snap {
		t.Fatalf("the drop committed snapshot %d: the test needs a metadata-only change", now)
	}

	e.checked(50 * time.Millisecond)
	run := e.waitSchemaApplied()
	if run.Trigger != "notify" || run.Status != checkpoint.RunCompleted || run.SnapshotID != snap {
		t.Errorf("the run the check asked for: trigger %q, %s, snapshot %d; want a completed notify run at snapshot %d",
			run.Trigger, run.Status, run.SnapshotID, snap)
	}
	if !strings.HasPrefix(run.SchemaChange, "rebuild: ") || !strings.Contains(run.SchemaChange, `"score"`) {
		t.Errorf("run.SchemaChange = %q, want a rebuild naming score", run.SchemaChange)
	}
	vals, absent, after := e.rows("score")
	if absent != 0 || len(vals) != 9 {
		t.Fatalf("after the drop: %d rows, %d without the column; want the 9 rows, holding it", len(vals), absent)
	}
	for id, v := range vals {
		if v != nil {
			t.Errorf("id %d: score %v is still served after the drop", id, v)
		}
	}
	for _, n := range after {
		if slices.Contains(before, n) {
			t.Errorf("segment %s survived the rebuild (before %v, after %v)", n, before, after)
		}
	}
	if run := e.mustSync(); run.SchemaChange != "" || run.SegmentsGenerated != 0 {
		t.Errorf("the run after the rebuild: schema change %q, %d segments built; want nothing to do", run.SchemaChange, run.SegmentsGenerated)
	}
	time.Sleep(200 * time.Millisecond) // a few more checks
	runs, err := e.store.ListRuns(t.Context(), "events", 100)
	if err != nil {
		t.Fatal(err)
	}
	notified := 0
	for _, r := range runs {
		if r.Trigger == "notify" {
			notified++
		}
	}
	if notified != 1 {
		t.Errorf("%d runs were asked for by the checks, want 1 (the schema is applied)", notified)
	}
}

// A rename without a data commit is recorded by the run the next check
// asks for: the Pinot column keeps its name and reads the field by id,
// nothing is built, and the checkpoint holds the new schema.
func TestEvolve_renameWithoutDataCommit(t *testing.T) {
	e := newEvolving(t, nil)
	e.appendRows(0, 6)
	e.mustSync()
	_, _, before := e.rows("v")
	e.alter(func(u *table.UpdateSchema) { u.RenameColumn([]string{"v"}, "value") })

	e.checked(50 * time.Millisecond)
	run := e.waitSchemaApplied()
	if !strings.Contains(run.SchemaChange, `from "v" to "value"`) || run.Status != checkpoint.RunCompleted {
		t.Errorf("run %s, schemaChange %q; want the rename recorded by a completed run", run.Status, run.SchemaChange)
	}
	if run.SegmentsGenerated != 0 {
		t.Errorf("a rename built %d segments, want none", run.SegmentsGenerated)
	}
	if rec := e.record(); rec.FieldIDs["v"] != 2 {
		t.Errorf("bindings %v, want v bound to field 2", rec.FieldIDs)
	}
	vals, _, after := e.rows("v")
	if vals[1] != "v-1" || !slices.Equal(before, after) {
		t.Errorf("served values %v in %v (before %v): a rename changes no segment", vals, after, before)
	}
	// Data written under the new name feeds the same column.
	e.appendRows(6, 9)
	e.mustSync()
	if vals, _, _ := e.rows("v"); vals[7] != "value-7" {
		t.Errorf("v of id 7 = %v, want value-7", vals[7])
	}
}

// A paused table is not run for a schema change the check sees (I8).
func TestEvolve_metadataOnlyChangeOfPausedTable(t *testing.T) {
	e := newEvolving(t, nil, iceberg.NestedField{Name: "score", Type: iceberg.PrimitiveTypes.Float64})
	e.appendRows(0, 6)
	e.mustSync()
	w := e.checked(50 * time.Millisecond)
	if _, err := w.Pause(t.Context(), "events"); err != nil {
		t.Fatal(err)
	}
	cp, err := e.store.GetCheckpointSummary(t.Context(), "events")
	if err != nil {
		t.Fatal(err)
	}
	e.alter(func(u *table.UpdateSchema) { u.DeleteColumn([]string{"score"}) })
	time.Sleep(300 * time.Millisecond) // several checks
	now, err := e.store.GetCheckpointSummary(t.Context(), "events")
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := e.store.ListRuns(t.Context(), "events", 100)
	if now.SchemaID != cp.SchemaID || now.CommittedAt != cp.CommittedAt || len(runs) != 1 {
		t.Errorf("the paused table ran: checkpoint schema %d → %d, %d runs recorded (want the first only)", cp.SchemaID, now.SchemaID, len(runs))
	}
}
