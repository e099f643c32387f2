package lakefixture

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	_ "github.com/apache/iceberg-go/io/gocloud/s3" // s3:// FileIO
	"github.com/apache/iceberg-go/table"
)

// Schema is the fixture table's schema: id long (required), name string.
func Schema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
	)
}

// Rows builds an Arrow table of n fixture rows with ids from first.
func Rows(first int64, n int) arrow.Table {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(first + int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row-%d", first+int64(i)))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
}

// FixtureTable creates ns.name (and ns, when missing) with the fixture
// schema, format version 2, at location ("" for the warehouse's default),
// and appends one batch of rows per entry of batches.
func (l *Lake) FixtureTable(ctx context.Context, ns, name, location string, batches ...int) (*table.Table, error) {
	if err := l.EnsureNamespace(ctx, table.Identifier{ns}); err != nil {
		return nil, err
	}
	opts := []icecatalog.CreateTableOpt{icecatalog.WithProperties(iceberg.Properties{"format-version": "2"})}
	if location != "" {
		opts = append(opts, icecatalog.WithLocation(location))
	}
	tbl, err := l.Catalog.CreateTable(ctx, table.Identifier{ns, name}, Schema(), opts...)
	if err != nil {
		return nil, fmt.Errorf("create table %s.%s: %w", ns, name, err)
	}
	return AppendBatches(ctx, tbl, batches...)
}

// AppendBatches appends one batch of fixture rows per entry of batches,
// ids counting on from 0.
func AppendBatches(ctx context.Context, tbl *table.Table, batches ...int) (*table.Table, error) {
	next := int64(0)
	for _, n := range batches {
		at := Rows(next, n)
		appended, err := tbl.AppendTable(ctx, at, int64(n), nil)
		at.Release()
		if err != nil {
			return nil, fmt.Errorf("append to %v: %w", tbl.Identifier(), err)
		}
		tbl = appended
		next += int64(n)
	}
	return tbl, nil
}

// WriteFixture opens the lake o describes, writes the fixture table
// ns.name into it (see FixtureTable) and closes it.
func WriteFixture(ctx context.Context, o Options, ns, name, location string, batches ...int) (*table.Table, error) {
	l, err := Open(o)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return l.FixtureTable(ctx, ns, name, location, batches...)
}
