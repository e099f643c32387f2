//go:build integration

package matrix_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
)

// goEvolve: schema evolution on an iceberg-go table, each change followed
// by an append written with the new schema (a snapshot carries its schema
// id; floe evolves Pinot when it syncs a snapshot of a new schema).
func goEvolve(t *testing.T, e *env) {
	ident := table.Identifier{"goevo", "events"}
	g := createGoTable(t, e.cat, ident, stdSchema(), iceberg.Properties{"format-version": "2"})
	m := e.newTable(t, "m_go_evo", ident[0], ident[1], stdSchema(), false, "id", "city")
	ev := &evoRows{renamed: map[string]string{}}

	g.appendRows(ev.rows(0, 30))
	m.check(t, "append", 30)
	g.alter("add note", func(u *table.UpdateSchema) {
		u.AddColumn([]string{"note"}, iceberg.PrimitiveTypes.String, "", false, nil)
	})
	ev.note = true
	g.appendRows(ev.rows(30, 50))
	m.checkAdded(t, "add a column", 50, "note", 30)
	g.alter("rename city", func(u *table.UpdateSchema) { u.RenameColumn([]string{"city"}, "town") })
	ev.renamed["city"] = "town"
	g.appendRows(ev.rows(50, 60))
	m.checkChange(t, "rename a column", 60, `none|"city" to "town"`)
	g.alter("drop flag", func(u *table.UpdateSchema) { u.DeleteColumn([]string{"flag"}) })
	ev.dropped = append(ev.dropped, "flag")
	g.appendRows(ev.rows(60, 70))
	m.checkChange(t, "drop a column", 70, `rebuild|"flag"`)
	g.alter("widen amount", func(u *table.UpdateSchema) {
		u.UpdateColumn([]string{"amount"}, table.ColumnUpdate{FieldType: iceberg.Optional[iceberg.Type]{Val: iceberg.DecimalTypeOf(12, 2), Valid: true}})
	})
	g.appendRows(ev.rows(70, 80))
	m.check(t, "widen a decimal", 80)
	g.alter("widen qty", func(u *table.UpdateSchema) {
		u.UpdateColumn([]string{"qty"}, table.ColumnUpdate{FieldType: iceberg.Optional[iceberg.Type]{Val: iceberg.PrimitiveTypes.Int64, Valid: true}})
	})
	ev.qty = "long"
	g.appendRows(ev.rows(80, 90))
	m.checkFails(t, "int to long on an INT column", 80, `column "qty"`, "is now long", "INT", "delete the table in floe")
	m.recreate(t, nil, "town")
	m.check(t, "the operator created the table again", 90)
}

// pyEvolve: schema evolution on a PyIceberg table whose Pinot schema the
// user created with an override (ratio, a float, as DOUBLE).
func pyEvolve(t *testing.T, e *env) {
	o := e.oracle
	fields := append(stdSchemaSpec(), map[string]any{"id": 9, "name": "ratio", "type": "float"})
	o.pyWrite(map[string]any{"op": "create", "table": "pyevo.events", "schema": fields})
	sc := iceberg.NewSchema(0, append(stdSchema().Fields(),
		iceberg.NestedField{ID: 9, Name: "ratio", Type: iceberg.PrimitiveTypes.Float32})...)
	m := e.newTableWith(t, "m_py_evo", "pyevo", "events", sc, map[string]schema.Override{"ratio": {DataType: spec.Double}},
		true, "id", "city")
	ev := &evoRows{renamed: map[string]string{}, ratio: true}
	alter := func(incompatible bool, changes ...map[string]any) {
		o.pyWrite(map[string]any{"op": "alter", "table": "pyevo.events", "changes": changes, "incompatible": incompatible})
	}
	appendRows := func(from, to int64) {
		o.pyWrite(map[string]any{"op": "append", "table": "pyevo.events", "rows": pyRows(ev.rows(from, to))})
	}

	appendRows(0, 30)
	m.check(t, "append", 30)
	alter(false, map[string]any{"add": "note", "type": "string"})
	ev.note = true
	appendRows(30, 50)
	m.checkAdded(t, "add a column", 50, "note", 30)
	alter(false, map[string]any{"rename": "city", "to": "town"})
	ev.renamed["city"] = "town"
	appendRows(50, 60)
	m.checkChange(t, "rename a column", 60, `none|"city" to "town"`)
	alter(false, map[string]any{"update": "ratio", "type": "double"})
	appendRows(60, 70)
	m.check(t, "float to double on the column created DOUBLE", 70)
	alter(false, map[string]any{"drop": "flag"})
	ev.dropped = append(ev.dropped, "flag")
	appendRows(70, 80)
	m.checkChange(t, "drop a column", 80, `rebuild|"flag"`)
	alter(true, map[string]any{"update": "qty", "type": "string"})
	ev.qty = "string"
	appendRows(80, 90)
	m.checkFails(t, "an incompatible type change", 80, `column "qty"`, "is now string", "STRING", "INT",
		"delete the table in floe")
}

// evoRows makes stdRows in an evolving schema.
type evoRows struct {
	renamed map[string]string // old name → new name
	dropped []string
	note    bool   // the table has note (string)
	ratio   bool   // the table has ratio (float or double)
	qty     string // "" int, "long", "string"
}

func (ev *evoRows) rows(from, to int64) []row {
	out := stdRows(from, to)
	for _, r := range out {
		i := r["id"].(int64)
		if ev.note && i%4 != 1 {
			r["note"] = fmt.Sprintf("n%d", i%7)
		}
		if ev.ratio && i%5 != 2 {
			r["ratio"] = float32(i) / 4
		}
		if q, ok := r["qty"].(int32); ok {
			switch ev.qty {
			case "long":
				r["qty"] = int64(q)
			case "string":
				r["qty"] = fmt.Sprint(q)
			}
		}
		for _, d := range ev.dropped {
			delete(r, d)
		}
		for from, to := range ev.renamed {
			if v, ok := r[from]; ok {
				r[to] = v
				delete(r, from)
			}
		}
	}
	return out
}

// alter commits one schema update of the iceberg-go table.
func (g goTable) alter(what string, fn func(*table.UpdateSchema)) {
	g.t.Helper()
	g.commit(what, func(_ context.Context, tx *table.Transaction) error {
		u := tx.UpdateSchema(true, false)
		fn(u)
		return u.Commit()
	})
}

// expectChange checks what both watchers' runs say about the schema:
// change is "" (nothing) or "kind" or "kind|text the report contains".
func (m *mtable) expectChange(t *testing.T, step string, s synced, change string) {
	t.Helper()
	kind, text, _ := strings.Cut(change, "|")
	runs := []checkpoint.Run{s.local}
	if s.clusterOK {
		runs = append(runs, s.remote)
	}
	for _, r := range runs {
		got := r.SchemaChange
		if kind == "" && got != "" || kind != "" && (!strings.HasPrefix(got, kind+": ") || !strings.Contains(got, text)) {
			t.Errorf("table %s step %q: the run of %s reports schema change %q, want %q", m.name, step, r.Owner, got, change)
		}
		if strings.HasPrefix(got, "rebuild: ") {
			m.reloaded = map[string]int64{} // every segment was rebuilt with real nulls
		}
	}
}

// bindColumns recomputes the compared columns from the table record: the
// Pinot schema floe stores (as evolved) and the Iceberg field id each
// column reads, found in the snapshot's schema (its name there is the
// source column of the scan). Pinot columns no field feeds are dropped.
func (m *mtable) bindColumns(t *testing.T, tbl *table.Table, snap int64) {
	t.Helper()
	rec, err := m.e.local.store.GetTable(t.Context(), m.name)
	if err != nil {
		t.Fatal(err)
	}
	var ps spec.Schema
	if err := json.Unmarshal(rec.SchemaJSON, &ps); err != nil {
		t.Fatal(err)
	}
	sc := tbl.Schema()
	if s := tbl.SnapshotByID(snap); s != nil && s.SchemaID != nil {
		for _, x := range tbl.Metadata().Schemas() {
			if x.ID == *s.SchemaID {
				sc = x
			}
		}
	}
	res, err := schema.Infer(sc, schema.Options{Name: m.name, NoTimeColumn: true, SkipUnmappable: true})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int]schema.Column{}
	for _, c := range res.Columns {
		byID[c.FieldID] = c
	}
	m.cols, m.dropped = nil, nil
	for _, f := range ps.Fields {
		id, ok := rec.FieldIDs[f.Name]
		c, fed := byID[id]
		if !ok || !fed {
			m.dropped = append(m.dropped, f.Name)
			continue
		}
		c.Field = f
		if kind := oracleKind(c); kind != "" {
			m.cols = append(m.cols, column{name: f.Name, source: c.Path[0], kind: kind, typ: f.DataType, sv: f.SingleValue, field: f})
		}
	}
}

// checkAdded is checkChange for a step that adds column col to a table
// whose old segments held oldRows rows. Pinot 1.5.1 must answer null for
// them, as Iceberg does; the 0.11 cluster reloads them with the column's
// default null value, which IS NULL does not match (schema/doc.go).
func (m *mtable) checkAdded(t *testing.T, step string, wantRows int64, col string, oldRows int64) {
	t.Helper()
	m.reloaded[col] = oldRows
	m.checkChange(t, step, wantRows, `add-columns|"`+col+`" added`)
	sql := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NULL", m.name, quote(col))
	want := m.count(t, "Iceberg", sql, func(ctx context.Context, sql string) (*pinot.ResultTable, error) {
		a, err := m.e.oracle.query(ctx, sql)
		if err != nil {
			return nil, err
		}
		return &pinot.ResultTable{Columns: a.Columns, Rows: a.Rows}, nil
	})
	if got := m.count(t, "Pinot 1.5.1", sql, m.e.engine.Query); got != want {
		t.Errorf("table %s step %q: Pinot 1.5.1 counts %d rows with %s null, Iceberg %d", m.name, step, got, col, want)
	}
	if got := m.count(t, "Pinot 0.11", sql, m.e.broker.Query); got != want-oldRows {
		t.Errorf("table %s step %q: Pinot 0.11 counts %d rows with %s null, want %d: Iceberg's %d but the %d rows of "+
			"the reloaded segments, which hold the default", m.name, step, got, col, want-oldRows, want, oldRows)
	}
	def, _ := m.e.local.store.GetTable(t.Context(), m.name)
	var ps spec.Schema
	_ = json.Unmarshal(def.SchemaJSON, &ps)
	f, _ := ps.Field(col)
	sql = fmt.Sprintf("SELECT count(*) FROM %s WHERE %s = '%s'", m.name, quote(col), f.DefaultNullValueString())
	if got := m.count(t, "Pinot 0.11", sql, m.e.broker.Query); got < oldRows {
		t.Errorf("table %s step %q: Pinot 0.11 has %d rows whose %s is its default %q, want at least the %d reloaded",
			m.name, step, got, col, f.DefaultNullValueString(), oldRows)
	}
}

// count runs a count query on one engine.
func (m *mtable) count(t *testing.T, engine, sql string, run func(context.Context, string) (*pinot.ResultTable, error)) int64 {
	t.Helper()
	rt, err := run(t.Context(), sql)
	if err != nil || len(rt.Rows) != 1 || len(rt.Rows[0]) != 1 {
		t.Fatalf("table %s: %s: %s: %v %v", m.name, engine, sql, rt, err)
	}
	n, err := json.Number(fmt.Sprint(rt.Rows[0][0])).Int64()
	if err != nil {
		t.Fatalf("table %s: %s: %s answered %v", m.name, engine, sql, rt.Rows)
	}
	return n
}

// waitReloaded waits until the cluster's server reloaded the segments
// that predate each reloaded column: Pinot 0.11, without null handling,
// counts every row in count(col) once every segment has the column.
func (m *mtable) waitReloaded(t *testing.T, step string) {
	t.Helper()
	for col := range m.reloaded {
		all := fmt.Sprintf("SELECT count(*) FROM %s", m.name)
		some := fmt.Sprintf("SELECT count(%s) FROM %s", quote(col), m.name)
		deadline := time.Now().Add(2 * time.Minute)
		for {
			want := m.count(t, "Pinot 0.11", all, m.e.broker.Query)
			rt, err := m.e.broker.Query(t.Context(), some)
			if err == nil && len(rt.Rows) == 1 && fmt.Sprint(rt.Rows[0][0]) == fmt.Sprint(want) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("table %s step %q: Pinot 0.11 never reloaded the segments for column %s: %v %v", m.name, step, col, rt, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// reloadedIn reports whether q names a column Pinot 0.11 holds defaults of
// in reloaded segments: only the row dump (which expects defaults for
// nulls on 0.11) compares there.
func (m *mtable) reloadedIn(q query) bool {
	for col := range m.reloaded {
		if strings.Contains(q.sql, quote(col)) && !q.ordered {
			return true
		}
	}
	return false
}

// checkDropped checks that columns no Iceberg field feeds hold null in
// every row, on both engines.
func (m *mtable) checkDropped(t *testing.T, step string, clusterOK bool) {
	t.Helper()
	for _, col := range m.dropped {
		sql := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NOT NULL", m.name, quote(col))
		if n := m.count(t, "Pinot 1.5.1", sql, m.e.engine.Query); n != 0 {
			t.Errorf("table %s step %q: Pinot 1.5.1 has %d rows with a value in dropped column %s", m.name, step, n, col)
		}
		if !clusterOK {
			continue
		}
		if n := m.count(t, "Pinot 0.11", sql, m.e.broker.Query); n != 0 {
			t.Errorf("table %s step %q: Pinot 0.11 has %d rows with a value in dropped column %s", m.name, step, n, col)
		}
	}
}

// checkFails syncs a change floe must refuse: both watchers' runs fail
// with an error that says so, and Pinot keeps answering the last synced
// snapshot (wantRows rows, the oracle's table of the previous step).
func (m *mtable) checkFails(t *testing.T, step string, wantRows int64, mention ...string) {
	t.Helper()
	e := m.e
	m.steps++
	for _, s := range []syncer{e.local, e.remote} {
		run, err := s.w.RunOnce(t.Context(), m.name, "matrix", nil)
		if err == nil || run.Status != checkpoint.RunFailed {
			t.Fatalf("table %s step %q: the %s sync succeeded (run %+v), want it to fail", m.name, step, s.name, run)
		}
		for _, want := range append([]string{"table " + m.name, schema.ErrIncompatibleChange.Error()}, mention...) {
			if !strings.Contains(run.Error, want) {
				t.Errorf("table %s step %q: the %s run's error does not say %q:\n%s", m.name, step, s.name, want, run.Error)
			}
		}
	}
	e.loadEngine(t, m.name, m.tc)
	e.waitRouting(t, m.name)
	sql := "SELECT count(*) FROM " + m.name
	if n := m.count(t, "Pinot 1.5.1", sql, e.engine.Query); n != wantRows {
		t.Errorf("table %s step %q: Pinot 1.5.1 holds %d rows after the failed sync, want the %d it had", m.name, step, n, wantRows)
	}
	if n := m.count(t, "Pinot 0.11", sql, e.broker.Query); n != wantRows {
		t.Errorf("table %s step %q: Pinot 0.11 holds %d rows after the failed sync, want the %d it had", m.name, step, n, wantRows)
	}
	m.compare(t, step, dumpQuery(m.name, m.cols, m.key))
}

// recreate does what a failed evolution tells the operator: delete the
// table in floe and the Pinot table and its schema, then create the table
// again from the current Iceberg schema (group is the group-by column's
// name there).
func (m *mtable) recreate(t *testing.T, ov map[string]schema.Override, group string) {
	t.Helper()
	e := m.e
	ctx := t.Context()
	for _, s := range []syncer{e.local, e.remote} {
		if err := s.store.DeleteTable(ctx, m.name); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(filepath.Join(e.sinkDir, m.name)); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/tables/" + m.name + "?type=offline", "/schemas/" + m.name} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, e.cluster.ControllerURL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("DELETE %s: %s", path, resp.Status)
		}
	}
	tbl, err := e.cat.LoadTable(ctx, m.ident())
	if err != nil {
		t.Fatal(err)
	}
	m.res = e.register(t, m.name, m.ns, m.src, tbl.Schema(), ov)
	m.tc = schema.TableConfig(m.res, schema.TableOptions{Connection: catalogName})
	m.cols, m.reloaded, m.dropped, m.group = compared(m.res), map[string]int64{}, nil, group
}
