//go:build integration

package matrix_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
)

// mtable is one table of the matrix: its Iceberg identity, the Pinot table
// floe keeps in step with it, and what the comparison needs.
type mtable struct {
	e        *env
	name     string // Pinot raw table name
	ns, src  string // Iceberg namespace and table
	res      *schema.Result
	tc       *spec.TableConfig
	cols     []column
	pyReader bool   // the oracle reads snapshots with PyIceberg (else iceberg-go)
	key      string // unique column for the ordered row dump
	group    string // low-cardinality STRING column for the group-by ("" none)
	steps    int
	// Schema evolution (evolve_integration_test.go): reloaded are columns
	// Pinot 0.11 added to old segments on reload (default values, not
	// null there), with the rows those segments held; dropped are columns
	// no Iceberg field feeds (null in every row).
	reloaded map[string]int64
	dropped  []string
	// last is the latest step's sync.
	last synced
}

func (e *env) newTable(t *testing.T, name, ns, src string, sc *iceberg.Schema, pyReader bool, key, group string) *mtable {
	t.Helper()
	return e.newTableWith(t, name, ns, src, sc, nil, pyReader, key, group)
}

// newTableWith registers a table whose Pinot schema was created with
// overrides.
func (e *env) newTableWith(t *testing.T, name, ns, src string, sc *iceberg.Schema, ov map[string]schema.Override,
	pyReader bool, key, group string) *mtable {
	t.Helper()
	res := e.register(t, name, ns, src, sc, ov)
	return &mtable{e: e, name: name, ns: ns, src: src, res: res, cols: compared(res), pyReader: pyReader,
		key: key, group: group, tc: schema.TableConfig(res, schema.TableOptions{Connection: catalogName}),
		reloaded: map[string]int64{}}
}

func (m *mtable) ident() table.Identifier { return table.Identifier{m.ns, m.src} }

// check syncs the table with floe, then compares every query of the set
// on Pinot 1.5.1, on the 0.11 cluster and over the Iceberg snapshot.
// wantRows is the row count the test's own bookkeeping expects. The sync
// must report no schema change.
func (m *mtable) check(t *testing.T, step string, wantRows int64) {
	t.Helper()
	m.checkChange(t, step, wantRows, "")
}

// checkChange is check for a step whose runs must report a schema change
// of the given kind ("" none, else "add-columns", "rebuild", "none").
func (m *mtable) checkChange(t *testing.T, step string, wantRows int64, change string) {
	t.Helper()
	e := m.e
	m.steps++
	s := e.sync(t, m.name)
	m.last = s
	m.expectChange(t, step, s, change)
	tbl, err := e.cat.LoadTable(t.Context(), m.ident())
	if err != nil {
		t.Fatal(err)
	}
	if cur := tbl.CurrentSnapshot(); cur == nil || cur.SnapshotID != s.snap {
		t.Fatalf("table %s step %s: floe checkpointed snapshot %d, the table is at %v", m.name, step, s.snap, cur)
	}
	m.bindColumns(t, tbl, s.snap)
	m.scan(t, step, s.snap, wantRows)
	local := e.loadEngine(t, m.name, m.tc)
	if s.clusterOK {
		if served := e.waitRouting(t, m.name); !slices.Equal(local, served) {
			t.Errorf("table %s step %q: the cluster serves segments %v, floe's local sync holds %v", m.name, step,
				served, local)
		}
		m.waitReloaded(t, step)
	}
	m.checkDropped(t, step, s.clusterOK)
	p := m.probe(t)
	failed := 0
	for _, q := range querySet(m.name, m.cols, m.key, m.group, p) {
		if !s.clusterOK || m.reloadedIn(q) {
			q.only15 = true // compare on Pinot 1.5.1 only
		}
		if !m.compare(t, step, q) {
			failed++
		}
		if failed == maxDiffsPerStep {
			t.Errorf("table %s step %q: stopped comparing after %d differing queries", m.name, step, failed)
			return
		}
	}
}

// checkRemap is check for a compaction that floe must remap (watcher/plan
// P11): both watchers' runs build and retire no segment, and the engines
// still answer alike over the segments Pinot already held.
func (m *mtable) checkRemap(t *testing.T, step string, wantRows int64) {
	t.Helper()
	m.check(t, step, wantRows)
	for _, run := range []checkpoint.Run{m.last.local, m.last.remote} {
		if run.ID != "" && (run.SegmentsGenerated != 0 || run.SegmentsDeleted != 0) {
			t.Errorf("table %s step %q: a compaction must be remapped, the run built %d and retired %d segments",
				m.name, step, run.SegmentsGenerated, run.SegmentsDeleted)
		}
	}
}

// maxDiffsPerStep bounds the failures one step reports.
const maxDiffsPerStep = 6

// scan loads the snapshot into the oracle and checks its row count.
func (m *mtable) scan(t *testing.T, step string, snap, wantRows int64) {
	t.Helper()
	cols := make([]map[string]string, len(m.cols))
	for i, c := range m.cols {
		cols[i] = map[string]string{"name": c.name, "source": c.source, "kind": c.kind}
	}
	req := map[string]any{"op": "scan", "name": m.name, "columns": cols}
	if m.pyReader {
		req["pyiceberg"] = map[string]any{"table": m.ns + "." + m.src, "snapshot": snap}
	} else {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("%s-%d.arrow", m.name, m.steps))
		writeIPC(t, m.e.cat, m.ident(), snap, path)
		req["ipc"] = path
	}
	var ans struct {
		Rows int64 `json:"rows"`
	}
	m.e.oracle.must(req, &ans)
	if ans.Rows != wantRows {
		t.Fatalf("table %s step %s: the Iceberg scan of snapshot %d has %d rows, the test wrote %d",
			m.name, step, snap, ans.Rows, wantRows)
	}
}

// probe asks the oracle for non-null counts and literal values.
func (m *mtable) probe(t *testing.T) probe {
	t.Helper()
	p := probe{nonNull: map[string]int64{}, median: map[string]any{}, frequent: map[string]any{}}
	one := func(sql string) any {
		a, err := m.e.oracle.query(t.Context(), sql)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Rows) == 0 {
			return nil
		}
		return a.Rows[0][0]
	}
	for _, c := range m.cols {
		if !c.sv || c.typ == spec.JSON {
			continue
		}
		q := quote(c.name)
		n, _ := one(fmt.Sprintf("SELECT count(%s) FROM %s", q, m.name)).(json.Number).Int64()
		p.nonNull[c.name] = n
		if n == 0 {
			continue
		}
		p.median[c.name] = one(fmt.Sprintf("SELECT %s FROM %s WHERE %s IS NOT NULL ORDER BY %s LIMIT 1 OFFSET %d",
			q, m.name, q, q, n/2))
		p.frequent[c.name] = one(fmt.Sprintf(
			"SELECT %s FROM %s WHERE %s IS NOT NULL GROUP BY %s ORDER BY count(*) DESC, %s LIMIT 1", q, m.name, q, q, q))
	}
	return p
}

// compare runs q on the oracle and the Pinot engines; any difference is
// an error naming the table, step, query and every answer.
func (m *mtable) compare(t *testing.T, step string, q query) bool {
	t.Helper()
	ctx := t.Context()
	want, err := m.e.oracle.query(ctx, q.sql)
	if err != nil {
		t.Fatalf("table %s step %s: %v", m.name, step, err)
	}
	where := fmt.Sprintf("table %s, step %q, query\n    %s\n", m.name, step, q.sql)
	ok := true
	got, err := m.e.engine.Query(ctx, q.sql)
	if err != nil {
		t.Errorf("%sPinot 1.5.1 failed: %v\n  Iceberg answers:\n%s", where, err, rawRows(want.Rows))
		ok = false
	} else {
		ok = m.diffAnswer(t, where, "Pinot 1.5.1", got.Types, got.Rows, want.Rows, q)
	}
	if q.only15 {
		return ok
	}
	got, err = m.e.broker.Query(ctx, q.sql)
	if err != nil {
		t.Errorf("%sPinot 0.11 (cluster broker) failed: %v\n  Iceberg answers:\n%s", where, err, rawRows(want.Rows))
		return false
	}
	expected := want.Rows
	if q.defaults != nil {
		expected = withDefaults(got.Types, want.Rows, q.defaults)
	}
	return m.diffAnswer(t, where, "Pinot 0.11 (cluster broker)", got.Types, got.Rows, expected, q) && ok
}

// diffAnswer reports whether got equals want; a difference is an error.
func (m *mtable) diffAnswer(t *testing.T, where, engine string, types []string, got, want [][]any, q query) bool {
	t.Helper()
	w, err := canonRows(types, want, q.ordered)
	if err != nil {
		t.Errorf("%sIceberg answer does not fit %s's types %v: %v\n%s", where, engine, types, err, rawRows(want))
		return false
	}
	g, err := canonRows(types, got, q.ordered)
	if err != nil {
		t.Errorf("%s%s answer: %v\n%s", where, engine, err, rawRows(got))
		return false
	}
	if d := diff(w, g, q.approx); d != "" {
		t.Errorf("%s%s differs from Iceberg: %s\n  Iceberg (DuckDB over the snapshot):\n%s  %s (types %s):\n%s",
			where, engine, d, show(w), engine, strings.Join(types, ","), show(g))
		return false
	}
	return true
}

func rawRows(rows [][]any) string {
	var b strings.Builder
	for i, r := range rows {
		if i == 40 {
			b.WriteString("    ...\n")
			break
		}
		fmt.Fprintf(&b, "    %v\n", r)
	}
	return b.String()
}
