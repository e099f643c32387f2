//go:build integration

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/internal/lakefixture"
)

// catalogName is the SQL catalog's name, shared with floe's connection.
const catalogName = "e2e"

// lake is an Iceberg table (ns.events: id long, v string) in a SQL catalog
// on sqlite, written by the test while floe processes read it.
type lake struct {
	t     *testing.T
	db    string // sqlite file
	cat   *sqlcat.Catalog
	ident table.Identifier
	mu    sync.Mutex
	next  int64
}

func newLake(t *testing.T) *lake {
	t.Helper()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "catalog.db")
	cat := lakefixture.OpenT(t, lakefixture.Options{Name: catalogName, DBPath: dbPath, Warehouse: "file://" + dir + "/wh",
		BusyTimeout: 20 * time.Second, WAL: true, OneConn: true}).Catalog
	ctx := context.Background()
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.PrimitiveTypes.String})
	l := &lake{t: t, db: dbPath, cat: cat, ident: table.Identifier{"ns", "events"}}
	if _, err := cat.CreateTable(ctx, l.ident, sc); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *lake) load() *table.Table {
	tbl, err := l.cat.LoadTable(context.Background(), l.ident)
	if err != nil {
		l.t.Fatalf("load table: %v", err)
	}
	return tbl
}

// records returns n new rows with ids that were never used.
func (l *lake) records(tbl *table.Table, n int) arrow.Table {
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		l.t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for range n {
		b.Field(0).(*array.Int64Builder).Append(l.next)
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("v", l.next))
		l.next++
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
}

// appendFiles adds files snapshots of rows rows each (one data file per
// snapshot).
func (l *lake) appendFiles(files, rows int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for range files {
		tbl := l.load()
		at := l.records(tbl, rows)
		_, err := tbl.AppendTable(context.Background(), at, int64(rows), nil)
		at.Release()
		if err != nil {
			l.t.Errorf("append: %v", err)
			return
		}
	}
}

// overwrite replaces every row with rows new ones (one snapshot).
func (l *lake) overwrite(rows int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tbl := l.load()
	at := l.records(tbl, rows)
	defer at.Release()
	if _, err := tbl.OverwriteTable(context.Background(), at, int64(rows), nil); err != nil {
		l.t.Errorf("overwrite: %v", err)
	}
}

// compact rewrites every live data file into one (iceberg-go's
// RewriteDataFiles: one replace snapshot).
func (l *lake) compact() {
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx := context.Background()
	tbl := l.load()
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		l.t.Errorf("compact: %v", err)
		return
	}
	g := table.CompactionTaskGroup{PartitionKey: "all", Tasks: tasks}
	if _, err := tbl.RewriteDataFiles(ctx, []table.CompactionTaskGroup{g}, table.RewriteDataFilesOptions{}); err != nil {
		l.t.Errorf("compact: %v", err)
	}
}

// snapshot returns the current snapshot id and its rows' ids, from an
// iceberg-go scan.
func (l *lake) snapshot() (int64, map[int64]int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tbl := l.load()
	snap := tbl.CurrentSnapshot()
	ids := map[int64]int{}
	if snap == nil {
		return 0, ids
	}
	_, batches, err := tbl.Scan(table.WithSnapshotID(snap.SnapshotID), table.WithSelectedFields("id")).ToArrowRecords(context.Background())
	if err != nil {
		l.t.Fatalf("scan: %v", err)
	}
	for rec, err := range batches {
		if err != nil {
			l.t.Fatalf("scan: %v", err)
		}
		col := rec.Column(0).(*array.Int64)
		for i := range col.Len() {
			ids[col.Value(i)]++
		}
		rec.Release()
	}
	return snap.SnapshotID, ids
}
