package schema_test

import (
	"errors"
	"io"
	"iter"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/schema"
	floearrow "github.com/floehq/floe/segments/arrow"
)

// TestTypeTable_converterSupportsEveryRow walks every (Iceberg type, Pinot
// data type) pair of the type table, and every flattened struct, through
// the segments Arrow source: the column must bind to the Arrow type an
// Iceberg scan yields, and a batch with a null row must convert. One
// source of truth only works if the converter takes all of it.
func TestTypeTable_converterSupportsEveryRow(t *testing.T) {
	for _, r := range schema.TypeTable() {
		if r.Skip {
			continue
		}
		typ := representative(t, r.Iceberg)
		for _, target := range r.Targets {
			t.Run(r.Iceberg+"→"+string(target.DataType), func(t *testing.T) {
				ov := map[string]schema.Override{"c": {DataType: target.DataType}}
				convertNullRow(t, iceberg.NewSchema(0, iceberg.NestedField{ID: 1000, Name: "c", Type: typ}), ov)
			})
		}
		if r.Flattenable {
			t.Run(r.Iceberg+" flattened", func(t *testing.T) {
				convertNullRow(t, iceberg.NewSchema(0, iceberg.NestedField{ID: 1000, Name: "c", Type: typ}),
					map[string]schema.Override{"c": {Flatten: true}})
			})
		}
	}
}

// representative finds a type printed as a type-table row's name; the
// test's own list must cover every row.
func representative(t *testing.T, name string) iceberg.Type {
	t.Helper()
	for _, typ := range tableTypes() {
		if typ.String() == name {
			return typ
		}
	}
	t.Fatalf("no representative type for row %q", name)
	return nil
}

func tableTypes() []iceberg.Type {
	P := iceberg.PrimitiveTypes
	geog, _ := iceberg.GeographyTypeOf(iceberg.DefaultGeoCRS, "spherical")
	prims := []iceberg.Type{P.Bool, P.Int32, P.Int64, P.Float32, P.Float64, iceberg.DecimalTypeOf(38, 9), P.Date,
		P.Time, P.Timestamp, P.TimestampTz, P.TimestampNs, P.TimestampTzNs, P.String, P.UUID, iceberg.FixedTypeOf(16),
		P.Binary, iceberg.GeometryType{}, geog, P.Unknown}
	var types []iceberg.Type
	add := func(typ iceberg.Type) { types = append(types, typ) }
	st := &iceberg.StructType{FieldList: []iceberg.NestedField{
		{ID: 2, Name: "a", Type: P.Int64}, {ID: 3, Name: "b", Type: P.String}}}
	for _, p := range prims {
		add(p)
		add(&iceberg.ListType{ElementID: 1, Element: p})
	}
	add(&iceberg.ListType{ElementID: 1, Element: st})
	add(&iceberg.ListType{ElementID: 1, Element: &iceberg.ListType{ElementID: 4, Element: P.Int32}})
	add(&iceberg.MapType{KeyID: 5, KeyType: P.String, ValueID: 6, ValueType: P.Int64})
	add(st)
	add(iceberg.VariantType{})
	return types
}

func convertNullRow(t *testing.T, s *iceberg.Schema, ov map[string]schema.Override) {
	t.Helper()
	res, err := schema.Infer(s, schema.Options{Name: "t", Overrides: ov})
	if err != nil {
		t.Fatal(err)
	}
	asc, err := table.SchemaToArrowSchema(s, nil, true, false)
	if err != nil {
		t.Fatalf("Arrow schema of %s: %v", s, err)
	}
	cols := make([]arrow.Array, asc.NumFields())
	for i, f := range asc.Fields() {
		cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, 1)
	}
	rec := array.NewRecordBatch(asc, cols, 1)
	batches := iter.Seq2[arrow.RecordBatch, error](func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) })
	src, err := floearrow.NewSource(asc, batches, floearrow.Config{Schema: res.Schema, Columns: res.ArrowColumns(), Name: "walk"})
	if err != nil {
		t.Fatalf("converter refuses %v: %v", res.Schema.Fields, err)
	}
	defer src.Close()
	b, err := src.Next(t.Context())
	if err != nil {
		t.Fatalf("convert a null row: %v", err)
	}
	if b.Rows != 1 || len(b.Columns) != len(res.Columns) {
		t.Fatalf("batch rows %d columns %d", b.Rows, len(b.Columns))
	}
	for i, v := range b.Columns {
		if v.Nulls == nil || !v.Nulls[0] {
			t.Errorf("column %s: null row not marked null", res.Columns[i].Field.Name)
		}
	}
	if _, err := src.Next(t.Context()); !errors.Is(err, io.EOF) {
		t.Errorf("second Next: %v, want io.EOF", err)
	}
}
