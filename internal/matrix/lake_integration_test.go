//go:build integration

package matrix_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// row is one generated row: Iceberg field name → Go value (nil is null).
// Values: int32, int64, float32, float64, string, bool, []byte, decimal as
// unscaled int64, date as int32 days, time and timestamps as int64 of
// their unit, uuid as [16]byte, lists as []any, structs as map[string]any,
// maps as [][2]any (entries in order).
type row map[string]any

// goTable is an Iceberg table written with iceberg-go.
type goTable struct {
	t     *testing.T
	cat   *sqlcat.Catalog
	ident table.Identifier
}

func (g goTable) load() *table.Table {
	g.t.Helper()
	tbl, err := g.cat.LoadTable(g.t.Context(), g.ident)
	if err != nil {
		g.t.Fatalf("load %v: %v", g.ident, err)
	}
	return tbl
}

func createGoTable(t *testing.T, cat *sqlcat.Catalog, ident table.Identifier, sc *iceberg.Schema, props iceberg.Properties) goTable {
	t.Helper()
	ctx := t.Context()
	if err := cat.CreateNamespace(ctx, ident[:1], nil); err != nil && !isExists(err) {
		t.Fatal(err)
	}
	if _, err := cat.CreateTable(ctx, ident, sc, icecatalog.WithProperties(props)); err != nil {
		t.Fatalf("create %v: %v", ident, err)
	}
	return goTable{t: t, cat: cat, ident: ident}
}

func isExists(err error) bool {
	return errors.Is(err, icecatalog.ErrNamespaceAlreadyExists)
}

// records builds an Arrow table of rows in the table's Arrow schema.
func (g goTable) records(tbl *table.Table, rows []row) arrow.Table {
	g.t.Helper()
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		g.t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, r := range rows {
		for i, f := range sc.Fields() {
			if err := appendValue(b.Field(i), r[f.Name]); err != nil {
				g.t.Fatalf("column %s: %v", f.Name, err)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
}

// appendValue appends one Go value to an Arrow builder of its column.
func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	case *array.Int32Builder:
		b.Append(v.(int32))
	case *array.Int64Builder:
		b.Append(v.(int64))
	case *array.Float32Builder:
		b.Append(v.(float32))
	case *array.Float64Builder:
		b.Append(v.(float64))
	case *array.StringBuilder:
		b.Append(v.(string))
	case *array.BinaryBuilder:
		b.Append(v.([]byte))
	case *array.FixedSizeBinaryBuilder:
		b.Append(v.([]byte))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromI64(v.(int64)))
	case *array.Date32Builder:
		b.Append(arrow.Date32(v.(int32)))
	case *array.Time64Builder:
		b.Append(arrow.Time64(v.(int64)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v.(int64)))
	case *extensions.UUIDBuilder:
		b.Append(uuid.UUID(v.([16]byte)))
	case *array.StructBuilder:
		b.Append(true)
		st := b.Type().(*arrow.StructType)
		for i := range st.NumFields() {
			if err := appendValue(b.FieldBuilder(i), v.(map[string]any)[st.Field(i).Name]); err != nil {
				return err
			}
		}
	case *array.MapBuilder:
		b.Append(true)
		for _, kv := range v.([][2]any) {
			if err := appendValue(b.KeyBuilder(), kv[0]); err != nil {
				return err
			}
			if err := appendValue(b.ItemBuilder(), kv[1]); err != nil {
				return err
			}
		}
	case *array.ListBuilder:
		b.Append(true)
		for _, x := range v.([]any) {
			if err := appendValue(b.ValueBuilder(), x); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("no appender for %T", b)
	}
	return nil
}

func (g goTable) appendRows(rows []row) {
	g.t.Helper()
	tbl := g.load()
	at := g.records(tbl, rows)
	defer at.Release()
	if _, err := tbl.AppendTable(g.t.Context(), at, int64(len(rows)), nil); err != nil {
		g.t.Fatalf("append to %v: %v", g.ident, err)
	}
}

func (g goTable) overwrite(rows []row) {
	g.t.Helper()
	tbl := g.load()
	at := g.records(tbl, rows)
	defer at.Release()
	if _, err := tbl.OverwriteTable(g.t.Context(), at, int64(len(rows)), nil); err != nil {
		g.t.Fatalf("overwrite %v: %v", g.ident, err)
	}
}

// commit runs fn in a transaction on the current table and commits it.
func (g goTable) commit(what string, fn func(ctx context.Context, tx *table.Transaction) error) {
	g.t.Helper()
	ctx := g.t.Context()
	tx := g.load().NewTransaction()
	if err := fn(ctx, tx); err != nil {
		g.t.Fatalf("%s on %v: %v", what, g.ident, err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		g.t.Fatalf("commit %s on %v: %v", what, g.ident, err)
	}
}

// delete deletes the rows matching filter; the table's write.delete.mode
// decides how (copy-on-write, position deletes, deletion vectors on v3).
func (g goTable) delete(filter iceberg.BooleanExpression) {
	g.t.Helper()
	g.commit("delete", func(ctx context.Context, tx *table.Transaction) error {
		return tx.Delete(ctx, filter, nil)
	})
}

// equalityDelete commits an equality delete file on the long column "id".
func (g goTable) equalityDelete(ids ...int64) {
	g.t.Helper()
	sc, err := table.SchemaToArrowSchema(iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true}), nil, true, false)
	if err != nil {
		g.t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	g.commit("equality delete", func(ctx context.Context, tx *table.Transaction) error {
		return tx.CommitEqualityDeletes(ctx, []int{1}, func(yield func(arrow.RecordBatch, error) bool) {
			yield(rec, nil)
		}, nil)
	})
}

// compact rewrites every live data file (deletes applied) into new files
// in one replace snapshot.
func (g goTable) compact() {
	g.t.Helper()
	ctx := g.t.Context()
	tbl := g.load()
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		g.t.Fatal(err)
	}
	if _, err := tbl.RewriteDataFiles(ctx, []table.CompactionTaskGroup{{PartitionKey: "all", Tasks: tasks}},
		table.RewriteDataFilesOptions{}); err != nil {
		g.t.Fatalf("compact %v: %v", g.ident, err)
	}
}

func (g goTable) rollback(snapshotID int64) {
	g.t.Helper()
	g.commit("rollback", func(_ context.Context, tx *table.Transaction) error { return tx.RollbackToSnapshot(snapshotID) })
}

// expire drops every snapshot but the current one, and the files only they
// referenced.
func (g goTable) expire() {
	g.t.Helper()
	g.commit("expire snapshots", func(_ context.Context, tx *table.Transaction) error {
		return tx.ExpireSnapshots(table.WithRetainLast(1), table.WithOlderThan(0))
	})
}

func (g goTable) snapshotID() int64 {
	g.t.Helper()
	s := g.load().CurrentSnapshot()
	if s == nil {
		return 0
	}
	return s.SnapshotID
}

// writeIPC scans the snapshot with iceberg-go and writes the rows to an
// Arrow IPC file for the oracle.
func writeIPC(t *testing.T, cat *sqlcat.Catalog, ident table.Identifier, snapshotID int64, path string) {
	t.Helper()
	ctx := t.Context()
	tbl, err := cat.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	at, err := tbl.Scan(table.WithSnapshotID(snapshotID)).ToArrowTable(ctx)
	if err != nil {
		t.Fatalf("scan %v at snapshot %d: %v", ident, snapshotID, err)
	}
	defer at.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(at.Schema()), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		t.Fatal(err)
	}
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	for tr.Next() {
		if err := w.Write(tr.RecordBatch()); err != nil {
			t.Fatalf("write %s: %v", filepath.Base(path), err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
