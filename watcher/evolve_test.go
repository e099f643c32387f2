package watcher_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
	"github.com/floehq/floe/segments/read"
	"github.com/floehq/floe/watcher"
)

// evolving is a lake table whose schema a test changes between syncs,
// synced by a real watcher (IcebergBuilder) into a local directory.
type evolving struct {
	t     *testing.T
	lake  *lake
	store checkpoint.Store
	root  string
	up    *pinot.LocalDir
	w     *watcher.Watcher
}

// newEvolving registers the lake's table (id long required, v string,
// plus the given fields) with the schema floe infers under overrides.
func newEvolving(t *testing.T, ov map[string]schema.Override, extra ...iceberg.NestedField) *evolving {
	t.Helper()
	e := &evolving{t: t, lake: newLake(t), store: checkpoint.NewMemory(), root: t.TempDir()}
	if len(extra) > 0 {
		e.alter(func(u *table.UpdateSchema) {
			for _, f := range extra {
				u.AddColumn([]string{f.Name}, f.Type, "", false, nil)
			}
		})
	}
	e.up = pinot.NewLocalDir(e.root)
	e.w = watcher.New(watcher.Deps{Store: e.store, Loader: loader{e.lake}, Builder: watcher.IcebergBuilder{}, Uploader: e.up},
		watcher.Options{Owner: "t", LeaseTTL: time.Minute, WorkDir: t.TempDir()})
	res, err := schema.Infer(e.lake.load().Schema(), schema.Options{Name: "events", Overrides: ov})
	if err != nil {
		t.Fatal(err)
	}
	sj, _ := json.Marshal(res.Schema)
	tj, _ := json.Marshal(schema.TableConfig(res, schema.TableOptions{}))
	if err := e.store.CreateTable(t.Context(), checkpoint.Table{Name: "events", Connection: "c", Namespace: "ns",
		Source: "events", SchemaJSON: sj, TableConfigJSON: tj}); err != nil {
		t.Fatal(err)
	}
	return e
}

// alter commits a schema change.
func (e *evolving) alter(fn func(*table.UpdateSchema)) {
	e.t.Helper()
	tx := e.lake.load().NewTransaction()
	u := tx.UpdateSchema(true, false)
	fn(u)
	if err := u.Commit(); err != nil {
		e.t.Fatalf("update schema: %v", err)
	}
	if _, err := tx.Commit(e.t.Context()); err != nil {
		e.t.Fatalf("commit schema update: %v", err)
	}
}

// appendRows appends rows id from..to-1 in the table's current schema:
// strings "<field>-<id>", numbers the id, every third row null in
// optional columns.
func (e *evolving) appendRows(from, to int64) {
	e.t.Helper()
	tbl := e.lake.load()
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		e.t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for id := from; id < to; id++ {
		for i, f := range sc.Fields() {
			if f.Nullable && id%3 == 2 {
				b.Field(i).AppendNull()
				continue
			}
			switch fb := b.Field(i).(type) {
			case *array.Int64Builder:
				fb.Append(id)
			case *array.Int32Builder:
				fb.Append(int32(id))
			case *array.Float32Builder:
				fb.Append(float32(id))
			case *array.Float64Builder:
				fb.Append(float64(id))
			case *array.StringBuilder:
				fb.Append(f.Name + "-" + strconv.FormatInt(id, 10))
			default:
				e.t.Fatalf("no generator for column %s (%s)", f.Name, f.Type)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	at := array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
	defer at.Release()
	if _, err := tbl.AppendTable(e.t.Context(), at, to-from, nil); err != nil {
		e.t.Fatal(err)
	}
}

func (e *evolving) sync() (checkpoint.Run, error) {
	e.t.Helper()
	return e.w.RunOnce(e.t.Context(), "events", "test", nil)
}

func (e *evolving) mustSync() checkpoint.Run {
	e.t.Helper()
	run, err := e.sync()
	if err != nil {
		e.t.Fatalf("sync: %v", err)
	}
	return run
}

func (e *evolving) record() checkpoint.Table {
	e.t.Helper()
	t, err := e.store.GetTable(e.t.Context(), "events")
	if err != nil {
		e.t.Fatal(err)
	}
	return t
}

// rows reads every served segment: the values of column col by id (nil
// for null; a segment without the column counts as absent, not null).
func (e *evolving) rows(col string) (vals map[int64]any, absent int, names []string) {
	e.t.Helper()
	names, err := e.up.ListSegments(e.t.Context(), "events")
	if err != nil {
		e.t.Fatal(err)
	}
	vals = map[int64]any{}
	for _, n := range names {
		seg, err := read.Open(filepath.Join(e.root, "events", n+".tar.gz"))
		if err != nil {
			e.t.Fatal(err)
		}
		ids, err := seg.ReadColumn("id")
		if err != nil {
			e.t.Fatal(err)
		}
		c, err := seg.ReadColumn(col)
		if errors.Is(err, read.ErrNoColumn) {
			absent += seg.TotalDocs
			continue
		}
		if err != nil {
			e.t.Fatal(err)
		}
		for i := range seg.TotalDocs {
			var v any
			if c.Nulls == nil || !c.Nulls[i] {
				v = c.Values[i]
			}
			vals[ids.Values[i].(int64)] = v
		}
	}
	slices.Sort(names)
	return vals, absent, names
}

func pinotSchemaOf(t *testing.T, tbl checkpoint.Table) *spec.Schema {
	t.Helper()
	var s spec.Schema
	if err := json.Unmarshal(tbl.SchemaJSON, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// An added optional column is pushed to Pinot and recorded; the segments
// already in Pinot stay (a Pinot server reloads them and answers null or
// the column's default), new segments hold the column's values.
func TestEvolve_addColumn(t *testing.T) {
	e := newEvolving(t, nil)
	e.appendRows(0, 6)
	e.mustSync()
	e.alter(func(u *table.UpdateSchema) {
		u.AddColumn([]string{"note"}, iceberg.PrimitiveTypes.String, "", false, nil)
	})
	e.appendRows(6, 12)
	run := e.mustSync()
	if !strings.HasPrefix(run.SchemaChange, "add-columns: ") || !strings.Contains(run.SchemaChange, `"note" added`) {
		t.Errorf("run.SchemaChange = %q, want add-columns naming note", run.SchemaChange)
	}
	rec := e.record()
	if f, ok := pinotSchemaOf(t, rec).Field("note"); !ok || f.DataType != spec.String || f.NotNull {
		t.Errorf("stored Pinot schema has note = %+v, %v; want a nullable STRING", f, ok)
	}
	if rec.FieldIDs["note"] != 3 || rec.FieldIDs["v"] != 2 {
		t.Errorf("stored bindings %v, want note→3, v→2", rec.FieldIDs)
	}
	vals, absent, names := e.rows("note")
	if absent != 6 || len(names) != 2 {
		t.Errorf("the 6 rows of the old segment must stay as they were (no rebuild): %d rows lack note, segments %v", absent, names)
	}
	if vals[6] != "note-6" || vals[8] != nil || len(vals) != 6 {
		t.Errorf("new rows' note = %v, want note-6 for id 6, null for id 8", vals)
	}
	if run := e.mustSync(); run.SchemaChange != "" {
		t.Errorf("a later run reports %q, want nothing", run.SchemaChange)
	}
}

// A renamed field keeps feeding its Pinot column, read by field id; the
// Pinot schema keeps the old name; the run and the record say so.
func TestEvolve_rename(t *testing.T) {
	e := newEvolving(t, nil)
	e.appendRows(0, 6)
	e.mustSync()
	e.alter(func(u *table.UpdateSchema) { u.RenameColumn([]string{"v"}, "value") })
	e.appendRows(6, 12)
	run := e.mustSync()
	if !strings.Contains(run.SchemaChange, `from "v" to "value"`) || !strings.Contains(run.SchemaChange, "keeps its name") {
		t.Errorf("run.SchemaChange = %q, want the rename", run.SchemaChange)
	}
	rec := e.record()
	if _, ok := pinotSchemaOf(t, rec).Field("value"); ok || rec.FieldIDs["v"] != 2 {
		t.Errorf("Pinot schema gained %q or v is not bound to field 2: %v", "value", rec.FieldIDs)
	}
	vals, absent, _ := e.rows("v")
	if absent != 0 || vals[7] != "value-7" || vals[1] != "v-1" || vals[8] != nil {
		t.Errorf("column v after the rename: %v (%d rows without it)", vals, absent)
	}
	// Bound by id, a second rename and a new field under the old name.
	e.alter(func(u *table.UpdateSchema) { u.RenameColumn([]string{"value"}, "val") })
	e.appendRows(12, 15)
	e.mustSync()
	if vals, _, _ := e.rows("v"); vals[13] != "val-13" {
		t.Errorf("after a second rename v of id 13 = %v, want val-13", vals[13])
	}
	e.alter(func(u *table.UpdateSchema) { u.AddColumn([]string{"v"}, iceberg.PrimitiveTypes.String, "", false, nil) })
	e.appendRows(15, 16)
	if _, err := e.sync(); err == nil || !strings.Contains(err.Error(), "two columns of one name") {
		t.Errorf("a new field named like a renamed column: %v, want a failure saying Pinot cannot hold both", err)
	}
}

// A dropped nullable column stays in Pinot and every segment is rebuilt,
// in one replacement, so that no old value remains.
func TestEvolve_drop(t *testing.T) {
	e := newEvolving(t, nil, iceberg.NestedField{Name: "score", Type: iceberg.PrimitiveTypes.Float64})
	e.appendRows(0, 6)
	e.appendRows(6, 9)
	e.mustSync()
	_, _, before := e.rows("score")
	e.alter(func(u *table.UpdateSchema) { u.DeleteColumn([]string{"score"}) })
	e.appendRows(9, 12)
	run := e.mustSync()
	if !strings.HasPrefix(run.SchemaChange, "rebuild: ") || !strings.Contains(run.SchemaChange, `"score"`) {
		t.Errorf("run.SchemaChange = %q, want a rebuild naming score", run.SchemaChange)
	}
	vals, absent, after := e.rows("score")
	if absent != 0 || len(vals) != 12 {
		t.Fatalf("after the drop: %d rows, %d without the column; want 12 rows holding it", len(vals), absent)
	}
	for id, v := range vals {
		if v != nil {
			t.Errorf("id %d: score %v survived the drop", id, v)
		}
	}
	for _, n := range after {
		if slices.Contains(before, n) || !strings.Contains(n, "_s") {
			t.Errorf("segment %s: every segment must be rebuilt under a new name (before %v)", n, before)
		}
	}
	if run.SegmentsDeleted != len(before) {
		t.Errorf("the rebuild replaced %d segments, want the %d old ones", run.SegmentsDeleted, len(before))
	}
	if run := e.mustSync(); run.SchemaChange != "" || run.SegmentsGenerated != 0 {
		t.Errorf("the run after the rebuild: %+v, want nothing to do", run)
	}
}

// A promotion Pinot cannot take fails the run with what changed and what
// to do; Pinot and the checkpoint stay as they were. The same promotion
// is free for a column the user created wider (an override is kept).
func TestEvolve_widen(t *testing.T) {
	for name, tc := range map[string]struct {
		ov   map[string]schema.Override
		fail bool
	}{
		"INT column":  {fail: true},
		"LONG column": {ov: map[string]schema.Override{"n": {DataType: spec.Long}}},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEvolving(t, tc.ov, iceberg.NestedField{Name: "n", Type: iceberg.PrimitiveTypes.Int32})
			e.appendRows(0, 6)
			e.mustSync()
			cp, _ := e.store.GetCheckpoint(t.Context(), "events")
			e.alter(func(u *table.UpdateSchema) {
				u.UpdateColumn([]string{"n"}, table.ColumnUpdate{FieldType: iceberg.Optional[iceberg.Type]{Val: iceberg.PrimitiveTypes.Int64, Valid: true}})
			})
			e.appendRows(6, 9)
			run, err := e.sync()
			if !tc.fail {
				if err != nil {
					t.Fatalf("int→long on a LONG column: %v", err)
				}
				if vals, _, _ := e.rows("n"); vals[7] != int64(7) {
					t.Errorf("n of id 7 = %v (%T), want 7", vals[7], vals[7])
				}
				return
			}
			if err == nil || run.Status != checkpoint.RunFailed {
				t.Fatalf("int→long on an INT column: run %s, err %v; want a failed run", run.Status, err)
			}
			// Every way forward and the Pinot rule behind them: create the
			// table again now, the wider override for it and for tables
			// expected to widen.
			for _, want := range []string{"table events", `column "n"`, "INT", "LONG", schema.ErrIncompatibleChange.Error(), "delete the table in floe",
				"create the table again", "override n=LONG", "other tables expected to widen", "a Pinot schema update may only add columns"} {
				if !strings.Contains(run.Error, want) {
					t.Errorf("run error %q does not say %s", run.Error, want)
				}
			}
			now, _ := e.store.GetCheckpoint(t.Context(), "events")
			if now.SnapshotID != cp.SnapshotID || pinotSchemaOf(t, e.record()).Fields[2].DataType != spec.Int {
				t.Errorf("a failed evolution moved the checkpoint (%d → %d) or the schema", cp.SnapshotID, now.SnapshotID)
			}
		})
	}
}
