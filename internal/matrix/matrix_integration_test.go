//go:build integration

package matrix_test

import (
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestMatrix runs every table's steps against one set of peers; after each
// step and a floe sync, Pinot 1.5.1, Pinot 0.11 and the Iceberg snapshot
// must answer the query set alike (see the package doc).
func TestMatrix(t *testing.T) {
	began := time.Now()
	e := newEnv(t)
	t.Logf("peers up in %s", time.Since(began).Round(time.Millisecond))
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, e *env)
	}{
		{"iceberg-go v2 merge-on-read", goV2},
		{"iceberg-go v3 deletion vectors", goV3},
		{"iceberg-go streamed replacement", goStreamed},
		{"pyiceberg v2", pyV2},
		{"pyiceberg partitioned", pyPartitioned},
		{"iceberg-go v3 every type", everyType},
		{"iceberg-go schema evolution", goEvolve},
		{"pyiceberg schema evolution", pyEvolve},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			tc.run(t, e)
			t.Logf("%s: %s", tc.name, time.Since(start).Round(time.Millisecond))
		})
	}
	t.Logf("matrix took %s", time.Since(began).Round(time.Millisecond))
}

// goV2: iceberg-go, format v2, merge-on-read deletes (position deletes),
// equality deletes, compaction, rollback, overwrite, snapshot expiry, and
// drop and re-create under the same name.
func goV2(t *testing.T, e *env) {
	ident := table.Identifier{"gov2", "events"}
	props := iceberg.Properties{"format-version": "2", table.WriteDeleteModeKey: table.WriteModeMergeOnRead}
	g := createGoTable(t, e.cat, ident, stdSchema(), props)
	m := e.newTable(t, "m_go_v2", ident[0], ident[1], stdSchema(), false, "id", "city")
	if m.res.TimeColumn != "ts" {
		t.Fatalf("the time column of %s is %q, want the timestamptz ts", m.name, m.res.TimeColumn)
	}

	g.appendRows(stdRows(0, 40))
	m.check(t, "append", 40)
	g.appendRows(stdRows(40, 80))
	m.check(t, "second append", 80)
	afterAppends := g.snapshotID()
	g.delete(iceberg.LessThan(iceberg.Reference("id"), int64(10)))
	m.check(t, "merge-on-read position delete", 70)
	g.equalityDelete(15, 45, 46)
	m.check(t, "equality delete", 67)
	g.compact()
	m.checkRemap(t, "compaction", 67)
	g.rollback(afterAppends)
	m.check(t, "rollback to the second append", 80)
	g.overwrite(stdRows(100, 130))
	m.check(t, "overwrite", 30)
	g.appendRows(stdRows(130, 150))
	m.check(t, "append after overwrite", 50)
	g.expire()
	m.check(t, "snapshot expiry", 50)
	if err := e.cat.DropTable(t.Context(), ident); err != nil {
		t.Fatal(err)
	}
	g = createGoTable(t, e.cat, ident, stdSchema(), props)
	g.appendRows(stdRows(200, 225))
	m.check(t, "drop and re-create", 25)
}

// goV3: iceberg-go, format v3: merge-on-read deletes write deletion
// vectors; a second delete on the same file replaces its vector.
func goV3(t *testing.T, e *env) {
	ident := table.Identifier{"gov3", "events"}
	props := iceberg.Properties{"format-version": "3", table.WriteDeleteModeKey: table.WriteModeMergeOnRead}
	g := createGoTable(t, e.cat, ident, stdSchema(), props)
	m := e.newTable(t, "m_go_v3", ident[0], ident[1], stdSchema(), false, "id", "city")

	g.appendRows(stdRows(0, 50))
	m.check(t, "append", 50)
	g.appendRows(stdRows(50, 100))
	m.check(t, "second append", 100)
	g.delete(iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(20)),
		iceberg.LessThan(iceberg.Reference("id"), int64(30))))
	m.check(t, "deletion vector", 90)
	g.delete(iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(25)),
		iceberg.LessThan(iceberg.Reference("id"), int64(60))))
	m.check(t, "deletion vectors replaced and added", 60)
	g.compact()
	m.checkRemap(t, "compaction", 60)
}

// pyV2: PyIceberg, format v2: appends, copy-on-write delete, overwrite with
// a filter.
func pyV2(t *testing.T, e *env) {
	o := e.oracle
	o.pyWrite(map[string]any{"op": "create", "table": "py.events", "schema": stdSchemaSpec()})
	m := e.newTable(t, "m_py_v2", "py", "events", stdSchema(), true, "id", "city")

	o.pyWrite(map[string]any{"op": "append", "table": "py.events", "rows": pyRows(stdRows(0, 30))})
	m.check(t, "append", 30)
	o.pyWrite(map[string]any{"op": "append", "table": "py.events", "rows": pyRows(stdRows(30, 60))})
	m.check(t, "second append", 60)
	o.pyWrite(map[string]any{"op": "delete", "table": "py.events", "filter": "id >= 10 and id < 20"})
	m.check(t, "copy-on-write delete", 50)
	o.pyWrite(map[string]any{"op": "overwrite", "table": "py.events", "filter": "id >= 40",
		"rows": pyRows(stdRows(300, 305))})
	m.check(t, "overwrite with a filter", 35)
	o.pyWrite(map[string]any{"op": "append", "table": "py.events", "rows": pyRows(stdRows(60, 80))})
	m.check(t, "append after overwrite", 55)
}

// pyPartitioned: PyIceberg, partitioned by identity(city), day(ts) and
// bucket(4, id); deletes that drop whole files and deletes that rewrite.
//
// Its city values are ASCII: PyIceberg writes the directory of an identity
// partition value that needs URL quoting under the quoted name
// ("city=Z%C3%BCrich" on disk, the same text in the file path), while
// iceberg-go's file IO percent-decodes file paths and opens "city=Zürich":
// floe's sync of such a table fails with "no such file or directory".
func pyPartitioned(t *testing.T, e *env) {
	o := e.oracle
	o.pyWrite(map[string]any{"op": "create", "table": "part.events", "schema": stdSchemaSpec(),
		"partition": []map[string]any{
			{"source": "city", "transform": "identity", "name": "city"},
			{"source": "ts", "transform": "day", "name": "ts_day"},
			{"source": "id", "transform": "bucket[4]", "name": "id_bucket"},
		}})
	m := e.newTable(t, "m_py_part", "part", "events", stdSchema(), true, "id", "city")

	o.pyWrite(map[string]any{"op": "append", "table": "part.events", "rows": pyRows(asciiCities(stdRows(0, 60)))})
	m.check(t, "append", 60)
	o.pyWrite(map[string]any{"op": "append", "table": "part.events", "rows": pyRows(asciiCities(stdRows(60, 100)))})
	m.check(t, "second append", 100)
	// ids 0..99 with i%7 != 3 and i%5 == 0 are in Lisbon: 20 rows, minus 3 (ids 10, 45, 80).
	o.pyWrite(map[string]any{"op": "delete", "table": "part.events", "filter": "city == 'Lisbon'"})
	m.check(t, "delete a partition value", 83)
	// ids 20..29 outside Lisbon: 10 minus 2 (20, 25).
	o.pyWrite(map[string]any{"op": "delete", "table": "part.events", "filter": "id >= 20 and id < 30"})
	m.check(t, "delete rows across partitions", 75)
}

// asciiCities replaces the one non-ASCII city (see pyPartitioned).
func asciiCities(rows []row) []row {
	for _, r := range rows {
		if r["city"] == "Zürich" {
			r["city"] = "Zurich"
		}
	}
	return rows
}
