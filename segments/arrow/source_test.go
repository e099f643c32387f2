package arrow_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	floearrow "github.com/floehq/floe/segments/arrow"
	"github.com/floehq/floe/segments/internal/sourcetest"
)

func arrowTestSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "addr", Type: arrow.StructOf(
			arrow.Field{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "zip", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		), Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}, nil)
}

// buildArrowRecord makes a 3-row batch; row 1 is null in every nullable column.
func buildArrowRecord(t *testing.T, idBase int64) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrowTestSchema())
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{idBase, idBase + 1, idBase + 2}, nil)
	b.Field(1).(*array.Float64Builder).AppendValues([]float64{1.5, 0, -2.25}, []bool{true, false, true})
	b.Field(2).(*array.StringBuilder).AppendValues([]string{"a", "", "héllo"}, []bool{true, false, true})
	b.Field(3).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1_700_000_000_123_456, 0, -1}, []bool{true, false, true})
	sb := b.Field(4).(*array.StructBuilder)
	city, zip := sb.FieldBuilder(0).(*array.StringBuilder), sb.FieldBuilder(1).(*array.Int32Builder)
	sb.Append(true)
	city.Append("Paris")
	zip.Append(75001)
	sb.AppendNull() // also appends a null to every child
	sb.Append(true)
	city.AppendNull()
	zip.Append(1000)
	lb := b.Field(5).(*array.ListBuilder)
	vb := lb.ValueBuilder().(*array.Int32Builder)
	lb.Append(true)
	vb.AppendValues([]int32{1, 2}, nil)
	lb.AppendNull()
	lb.Append(true)
	vb.AppendNull()
	vb.Append(3)
	b.Field(6).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(12345), {}, decimal128.FromI64(-5)}, []bool{true, false, true})
	b.Field(7).(*array.Date32Builder).AppendValues([]arrow.Date32{19000, 0, -1}, []bool{true, false, true})
	return b.NewRecordBatch()
}

func batchesOf(recs ...arrow.RecordBatch) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}
}

func TestSource_Next(t *testing.T) {
	schema := &spec.Schema{Name: "t", Fields: []spec.FieldSpec{
		{Name: "id", DataType: spec.Long, SingleValue: true},
		{Name: "score", DataType: spec.Double, SingleValue: true, FieldType: spec.Metric},
		{Name: "name", DataType: spec.String, SingleValue: true},
		{Name: "ts", DataType: spec.Timestamp, SingleValue: true, FieldType: spec.DateTime},
		{Name: "city", DataType: spec.String, SingleValue: true},
		{Name: "addr", DataType: spec.JSON, SingleValue: true},
		{Name: "tags", DataType: spec.Long, SingleValue: false},
		{Name: "amount", DataType: spec.BigDecimal, SingleValue: true},
		{Name: "day", DataType: spec.Timestamp, SingleValue: true},
	}}
	src, err := floearrow.NewSource(arrowTestSchema(), batchesOf(buildArrowRecord(t, 10), buildArrowRecord(t, 20)),
		floearrow.Config{Schema: schema, Columns: map[string]string{"city": "addr.city"}, Name: "f.parquet"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx := context.Background()
	for _, base := range []int64{10, 20} {
		b, err := src.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b.Rows != 3 || len(b.Columns) != len(schema.Fields) {
			t.Fatalf("batch rows %d columns %d", b.Rows, len(b.Columns))
		}
		c := b.Columns
		check(t, "id", c[0].Longs, []int64{base, base + 1, base + 2})
		check(t, "score nulls", c[1].Nulls, []bool{false, true, false})
		check(t, "score", []float64{c[1].Doubles[0], c[1].Doubles[2]}, []float64{1.5, -2.25})
		check(t, "name", []string{string(c[2].Bytes[0]), string(c[2].Bytes[2])}, []string{"a", "héllo"})
		check(t, "ts", []int64{c[3].Longs[0], c[3].Longs[2]}, []int64{1_700_000_000_123, -1})
		check(t, "city nulls", c[4].Nulls, []bool{false, true, true})
		check(t, "city", string(c[4].Bytes[0]), "Paris")
		check(t, "addr", []string{string(c[5].Bytes[0]), string(c[5].Bytes[2])}, []string{`{"city":"Paris","zip":75001}`, `{"city":null,"zip":1000}`})
		check(t, "tags offsets", c[6].Offsets, []int32{0, 2, 2, 3})
		check(t, "tags", c[6].Longs, []int64{1, 2, 3})
		check(t, "tags nulls", c[6].Nulls, []bool{false, true, false})
		if c[7].Decimals[0].Unscaled.Cmp(big.NewInt(12345)) != 0 || c[7].Decimals[0].Scale != 2 || c[7].Decimals[2].Unscaled.Int64() != -5 {
			t.Errorf("amount = %v %v", c[7].Decimals[0], c[7].Decimals[2])
		}
		check(t, "day", []int64{c[8].Longs[0], c[8].Longs[2]}, []int64{19000 * 86_400_000, -86_400_000})
	}
	if _, err := src.Next(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("after last batch: %v, want io.EOF", err)
	}
}

func TestNewArrowSource_errors(t *testing.T) {
	tests := []struct {
		name    string
		field   spec.FieldSpec
		binding map[string]string
		want    error
	}{
		{"missing column", spec.FieldSpec{Name: "nope", DataType: spec.Long, SingleValue: true}, nil, segments.ErrColumnMismatch},
		{"string into long", spec.FieldSpec{Name: "name", DataType: spec.Long, SingleValue: true}, nil, segments.ErrUnsupportedConversion},
		{"list into single value", spec.FieldSpec{Name: "tags", DataType: spec.Int, SingleValue: true}, nil, segments.ErrColumnMismatch},
		{"path through non-struct", spec.FieldSpec{Name: "x", DataType: spec.Long, SingleValue: true}, map[string]string{"x": "id.y"}, segments.ErrColumnMismatch},
		{"long into int", spec.FieldSpec{Name: "id", DataType: spec.Int, SingleValue: true}, nil, segments.ErrUnsupportedConversion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema := &spec.Schema{Name: "t", Fields: []spec.FieldSpec{tt.field}}
			_, err := floearrow.NewSource(arrowTestSchema(), batchesOf(), floearrow.Config{Schema: schema, Columns: tt.binding, Name: "data/f1.parquet"})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), "data/f1.parquet") || !strings.Contains(err.Error(), tt.field.Name) {
				t.Errorf("error %q does not name the file and column", err)
			}
		})
	}
}

func check[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestSource_types converts one column of each Arrow type, built from
// JSON with Arrow's own parser; the third row is null in every column.
func TestSource_types(t *testing.T) {
	u := uuid.MustParse("123e4567-e89b-12d3-a456-426614174000")
	tests := []struct {
		name string
		typ  arrow.DataType
		json string
		to   spec.DataType
		mv   bool
		want []any
	}{
		{"int8", arrow.PrimitiveTypes.Int8, `[-5, 7, null]`, spec.Int, false, []any{int64(-5), int64(7), nil}},
		{"uint32", arrow.PrimitiveTypes.Uint32, `[4294967295, 0, null]`, spec.Long, false, []any{int64(4294967295), int64(0), nil}},
		{"int16 to string", arrow.PrimitiveTypes.Int16, `[-5, 300, null]`, spec.String, false, []any{"-5", "300", nil}},
		{"float32", arrow.PrimitiveTypes.Float32, `[1.5, -0.25, null]`, spec.Double, false, []any{1.5, -0.25, nil}},
		{"bool", arrow.FixedWidthTypes.Boolean, `[true, false, null]`, spec.Boolean, false, []any{int64(1), int64(0), nil}},
		{"bool to string", arrow.FixedWidthTypes.Boolean, `[true, false, null]`, spec.String, false, []any{"true", "false", nil}},
		{"large string", arrow.BinaryTypes.LargeString, `["a", "日本", null]`, spec.String, false, []any{"a", "日本", nil}},
		{"string view", arrow.BinaryTypes.StringView, `["short", "a string longer than twelve bytes", null]`, spec.JSON, false, []any{"short", "a string longer than twelve bytes", nil}},
		{"binary", arrow.BinaryTypes.Binary, `["AAE=", "", null]`, spec.Bytes, false, []any{"\x00\x01", "", nil}},
		{"fixed", &arrow.FixedSizeBinaryType{ByteWidth: 2}, `["AAE=", "//8=", null]`, spec.Bytes, false, []any{"\x00\x01", "\xff\xff", nil}},
		{"uuid", extensions.NewUUIDType(), `["` + u.String() + `", "` + uuid.Nil.String() + `", null]`, spec.String, false, []any{u.String(), uuid.Nil.String(), nil}},
		{"time64 us", arrow.FixedWidthTypes.Time64us, `[3600000001, 0, null]`, spec.Long, false, []any{int64(3600000001), int64(0), nil}},
		{"time32 ms", arrow.FixedWidthTypes.Time32ms, `[1500, 0, null]`, spec.Long, false, []any{int64(1_500_000), int64(0), nil}},
		{"date64", arrow.FixedWidthTypes.Date64, `[86400000, -86400000, null]`, spec.Int, false, []any{int64(1), int64(-1), nil}},
		{"date32 string", arrow.FixedWidthTypes.Date32, `[19000, -1, null]`, spec.String, false, []any{"2022-01-08", "1969-12-31", nil}},
		{"timestamp ns", arrow.FixedWidthTypes.Timestamp_ns, `[1700000000123999999, -1, null]`, spec.Timestamp, false, []any{int64(1700000000123), int64(-1), nil}},
		{"timestamp s", arrow.FixedWidthTypes.Timestamp_s, `[1700000000, -1, null]`, spec.Timestamp, false, []any{int64(1700000000000), int64(-1000), nil}},
		{"timestamp raw", arrow.FixedWidthTypes.Timestamp_us, `[1700000000123456, 1, null]`, spec.Long, false, []any{int64(1700000000123456), int64(1), nil}},
		{"decimal256 text", &arrow.Decimal256Type{Precision: 40, Scale: 3}, `["-12.345", "0.001", null]`, spec.String, false, []any{"-12.345", "0.001", nil}},
		{"decimal128 double", &arrow.Decimal128Type{Precision: 10, Scale: 2}, `["1.25", "-3.10", null]`, spec.Double, false, []any{1.25, -3.1, nil}},
		{"map", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), `[[{"key": "b", "value": 2}, {"key": "a", "value": null}], [], null]`,
			spec.JSON, false, []any{`{"b":2,"a":null}`, `{}`, nil}},
		{"list of struct", arrow.ListOf(arrow.StructOf(arrow.Field{Name: "z", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true})),
			`[[{"z": 1, "a": "x\"y"}], [], null]`, spec.JSON, false, []any{`[{"z":1,"a":"x\"y"}]`, `[]`, nil}},
		{"large list", arrow.LargeListOf(arrow.BinaryTypes.String), `[["a", null, "b"], [], null]`, spec.String, true, []any{[]any{"a", "b"}, nil, nil}},
		{"scalar into multi-value", arrow.PrimitiveTypes.Int32, `[4, 5, null]`, spec.Int, true, []any{[]any{int64(4)}, []any{int64(5)}, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arr, _, err := array.FromJSON(memory.DefaultAllocator, tt.typ, strings.NewReader(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			defer arr.Release()
			schema := arrow.NewSchema([]arrow.Field{{Name: "pad", Type: arrow.PrimitiveTypes.Int64}, {Name: "c", Type: tt.typ, Nullable: true}}, nil)
			pad, _, _ := array.FromJSON(memory.DefaultAllocator, arrow.PrimitiveTypes.Int64, strings.NewReader(`[0, 1, 2, 3]`))
			defer pad.Release()
			full := array.NewRecordBatch(schema, []arrow.Array{pad, withLeadingRow(t, arr)}, 4)
			rec := full.NewSlice(1, 4) // a sliced batch: every array has an offset
			full.Release()
			f := spec.FieldSpec{Name: "c", DataType: tt.to, SingleValue: !tt.mv}
			b := firstBatch(t, schema, rec, f)
			for r, want := range tt.want {
				if got := sourcetest.Cell(b.Columns[0], f, r); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("row %d = %#v, want %#v", r, got, want)
				}
			}
		})
	}
}

// withLeadingRow prepends a null row, so slicing it off gives an array
// with a non-zero offset.
func withLeadingRow(t *testing.T, arr arrow.Array) arrow.Array {
	t.Helper()
	nulls := array.MakeArrayOfNull(memory.DefaultAllocator, arr.DataType(), 1)
	defer nulls.Release()
	out, err := array.Concatenate([]arrow.Array{nulls, arr}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSource_dictionaryArrays(t *testing.T) {
	mem := memory.DefaultAllocator
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	values, _, err := array.FromJSON(mem, arrow.BinaryTypes.String, strings.NewReader(`["x", "yy", "zzz"]`))
	if err != nil {
		t.Fatal(err)
	}
	defer values.Release()
	indices, _, err := array.FromJSON(mem, arrow.PrimitiveTypes.Int8, strings.NewReader(`[2, 0, null, 1, 2]`))
	if err != nil {
		t.Fatal(err)
	}
	defer indices.Release()
	dict := array.NewDictionaryArray(dt, indices, values)
	defer dict.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{dict}, 5)
	f := spec.FieldSpec{Name: "c", DataType: spec.String, SingleValue: true}
	b := firstBatch(t, schema, rec, f)
	var got []any
	for r := 0; r < b.Rows; r++ {
		got = append(got, sourcetest.Cell(b.Columns[0], f, r))
	}
	check(t, "dictionary column", fmt.Sprint(got), fmt.Sprint([]any{"zzz", "x", nil, "yy", "zzz"}))
}

// firstBatch reads the first batch of a one-column source over rec; the
// source closes when the test ends.
func firstBatch(t *testing.T, schema *arrow.Schema, rec arrow.RecordBatch, f spec.FieldSpec) *segments.Batch {
	t.Helper()
	src, err := floearrow.NewSource(schema, batchesOf(rec), floearrow.Config{
		Schema: &spec.Schema{Name: "t", Fields: []spec.FieldSpec{f}}, Name: "mem"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	b, err := src.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return b
}
