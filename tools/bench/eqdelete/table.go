package main

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/lakefixture"
	"github.com/floehq/floe/watcher"
)

// cdcTable is an iceberg-go table (bench.events: id long, the identifier
// field, and v string) whose data files hold rows rows each: file i holds
// the keys of slots [i*rows, (i+1)*rows), a slot's key being the slot
// itself (disjoint id ranges per file) or, scattered, the slot scrambled
// (every file's ids then span the whole range of longs, as random keys or
// UUIDs of unsorted files do).
type cdcTable struct {
	db        *sql.DB
	cat       *sqlcat.Catalog
	ident     table.Identifier
	rows      int
	files     int
	scattered bool
}

// key is the id stored for a slot: the slot, or scattered, the slot times
// an odd constant modulo 2^64 (a bijection, so keys stay distinct).
func (c *cdcTable) key(slot int64) int64 {
	if !c.scattered {
		return slot
	}
	return int64(uint64(slot) * 0x9E3779B97F4A7C15)
}

func newCDCTable(ctx context.Context, dir string, files, rows, perCommit int, scattered bool) (*cdcTable, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lake, err := lakefixture.Open(lakefixture.Options{Name: "bench", DBPath: filepath.Join(dir, "cat.db"),
		Warehouse: "file://" + filepath.Join(dir, "wh"), BusyTimeout: 10 * time.Second, OneConn: true})
	if err != nil {
		return nil, fmt.Errorf("open catalog: %w", err)
	}
	db := lake.DB
	c := &cdcTable{db: db, cat: lake.Catalog, ident: table.Identifier{"bench", "events"}, rows: rows, scattered: scattered}
	if err := c.create(ctx); err != nil {
		db.Close()
		return nil, err
	}
	for c.files < files {
		if err := c.commit(ctx, min(perCommit, files-c.files), nil); err != nil {
			db.Close()
			return nil, err
		}
	}
	return c, nil
}

func (c *cdcTable) Close() { c.db.Close() }

func (c *cdcTable) create(ctx context.Context) error {
	if err := c.cat.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		return fmt.Errorf("create namespace: %w", err)
	}
	sc := iceberg.NewSchemaWithIdentifiers(0, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.PrimitiveTypes.String})
	if _, err := c.cat.CreateTable(ctx, c.ident, sc, catalog.WithProperties(iceberg.Properties{"format-version": "2"})); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	return nil
}

func (c *cdcTable) load(ctx context.Context) (*table.Table, error) {
	return c.cat.LoadTable(ctx, c.ident)
}

// commit adds n new data files of the next slots and, when slots is not
// empty, an equality delete of their keys, in one snapshot (a CDC writer's
// commit: the delete does not apply to the files it adds).
func (c *cdcTable) commit(ctx context.Context, n int, slots []int64) error {
	tbl, err := c.load(ctx)
	if err != nil {
		return err
	}
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		return err
	}
	var added []iceberg.DataFile
	for i := 0; i < n; i++ {
		rec := c.fileRows(sc, int64(c.files+i)*int64(c.rows))
		for df, err := range table.WriteRecords(ctx, tbl, sc, one(rec)) {
			if err != nil {
				rec.Release()
				return fmt.Errorf("write data file: %w", err)
			}
			added = append(added, df)
		}
		rec.Release()
	}
	tx := tbl.NewTransaction()
	rd := tx.NewRowDelta(nil).AddRows(added...)
	if len(slots) > 0 {
		keys := make([]int64, len(slots))
		for i, s := range slots {
			keys[i] = c.key(s)
		}
		dels, err := tx.WriteEqualityDeletes(ctx, []int{1}, one(keyRows(keys)))
		if err != nil {
			return fmt.Errorf("write equality deletes: %w", err)
		}
		rd = rd.AddDeletes(dels...)
	}
	if err := rd.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	c.files += n
	return nil
}

func (c *cdcTable) fileRows(sc *arrow.Schema, first int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := 0; i < c.rows; i++ {
		b.Field(0).(*array.Int64Builder).Append(c.key(first + int64(i)))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("value-", first+int64(i)))
	}
	return b.NewRecordBatch()
}

func keyRows(keys []int64) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64,
		Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"1"})}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(keys, nil)
	return b.NewRecordBatch()
}

func one(b arrow.RecordBatch) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) { yield(b, nil) }
}

// loader serves the table to an in-process watcher.
type loader struct{ c *cdcTable }

func (ld loader) LoadTable(ctx context.Context, _ checkpoint.Table) (*watcher.Source, error) {
	tbl, err := ld.c.load(ctx)
	if err != nil {
		return nil, err
	}
	return &watcher.Source{Table: tbl, MetadataLocation: tbl.MetadataLocation()}, nil
}
