//go:build integration

package matrix_test

import (
	"math"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// everySchema has a column of every Iceberg type floe maps to a Pinot
// value column, plus a struct and a map (JSON columns: built and loaded,
// not compared by query). tstz is the time column: its values stay within
// 1971..2071, the range a Pinot controller accepts for a segment's time
// interval; ts holds the extreme timestamps.
func everySchema() *iceberg.Schema {
	f := func(id int, name string, typ iceberg.Type, req bool) iceberg.NestedField {
		return iceberg.NestedField{ID: id, Name: name, Type: typ, Required: req}
	}
	return iceberg.NewSchema(0,
		f(1, "id", iceberg.PrimitiveTypes.Int64, true),
		f(2, "flag", iceberg.PrimitiveTypes.Bool, false),
		f(3, "i", iceberg.PrimitiveTypes.Int32, false),
		f(4, "f", iceberg.PrimitiveTypes.Float32, false),
		f(5, "d", iceberg.PrimitiveTypes.Float64, false),
		f(6, "amount", iceberg.DecimalTypeOf(10, 2), false),
		f(7, "day", iceberg.PrimitiveTypes.Date, false),
		f(8, "tod", iceberg.PrimitiveTypes.Time, false),
		f(9, "ts", iceberg.PrimitiveTypes.Timestamp, false),
		f(10, "tstz", iceberg.PrimitiveTypes.TimestampTz, true),
		f(11, "tsn", iceberg.PrimitiveTypes.TimestampNs, false),
		f(12, "name", iceberg.PrimitiveTypes.String, false),
		f(13, "uid", iceberg.PrimitiveTypes.UUID, false),
		f(14, "fx", iceberg.FixedTypeOf(4), false),
		f(15, "bin", iceberg.PrimitiveTypes.Binary, false),
		f(16, "tags", &iceberg.ListType{ElementID: 20, Element: iceberg.PrimitiveTypes.String}, false),
		f(17, "nums", &iceberg.ListType{ElementID: 21, Element: iceberg.PrimitiveTypes.Int64}, false),
		f(18, "attrs", &iceberg.MapType{KeyID: 22, KeyType: iceberg.PrimitiveTypes.String, ValueID: 23,
			ValueType: iceberg.PrimitiveTypes.String}, false),
		f(19, "addr", &iceberg.StructType{FieldList: []iceberg.NestedField{
			f(24, "street", iceberg.PrimitiveTypes.String, false)}}, false),
	)
}

func everyRows() []row {
	u := [16]byte{0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00}
	ff := [16]byte{}
	for i := range ff {
		ff[i] = 0xff
	}
	return []row{
		{"id": int64(1), "flag": true, "i": int32(42), "f": float32(1.25), "d": math.Pi, "amount": int64(12345),
			"day": int32(19700), "tod": int64(45_296_000_001), "ts": int64(1_700_000_000_123_456),
			"tstz": int64(1_700_000_000_654_321), "tsn": int64(1_700_000_000_123_456_789), "name": "orders", "uid": u,
			"fx": []byte{1, 2, 3, 4}, "bin": []byte{0, 255, 10}, "tags": []any{"a", "b", "a"},
			"nums": []any{int64(1), nil, int64(3)}, "attrs": [][2]any{{"k", "v"}, {"x", "y \"q\""}},
			"addr": map[string]any{"street": "Main St"}},
		{"id": int64(2), "amount": int64(-1), "tstz": int64(1_600_000_000_000_001)},
		{"id": int64(3), "flag": false, "i": int32(math.MinInt32 + 1), "f": float32(-1.5e-7), "d": -1.23456e100,
			"amount": int64(9_999_999_999), "day": int32(-1), "tod": int64(0), "ts": int64(-1),
			"tstz": int64(1_600_000_000_000_000), "tsn": int64(-1_500_001), "name": "ünïcödé ✓ \"quoted\" 'x'",
			"uid": ff, "fx": []byte{0, 0, 0, 0}, "bin": []byte{}, "tags": []any{}, "nums": []any{nil},
			"attrs": [][2]any{}, "addr": map[string]any{"street": nil}},
		{"id": int64(4), "i": int32(math.MaxInt32), "amount": int64(-9_999_999_999), "tstz": int64(1_700_000_000_000_000),
			"ts": int64(-62_135_596_800_000_000), "tags": []any{"x"}, "f": float32(3.4e38), "d": 0.1,
			"attrs": [][2]any{{"only", ""}}},
		{"id": int64(5), "flag": true, "i": int32(0), "f": float32(0.1), "d": 1e-300, "amount": int64(0),
			"day": int32(0), "tod": int64(86_399_999_999), "ts": int64(1_000), "tstz": int64(1_000_000_000_000_001),
			"tsn": int64(999_999), "name": "", "fx": []byte{0xde, 0xad, 0xbe, 0xef}, "bin": []byte{0x42},
			"tags": []any{nil, "z"}, "nums": []any{int64(math.MinInt64 + 1), int64(math.MaxInt64)}},
		{"id": int64(6), "flag": false, "i": int32(-7), "f": float32(2), "d": -0.5, "amount": int64(250),
			"day": int32(19000), "tstz": int64(1_700_000_000_000_999), "name": "orders", "bin": []byte{0x42}},
	}
}

// everyType: the every-type table, iceberg-go format v3, then a deletion
// vector.
func everyType(t *testing.T, e *env) {
	ident := table.Identifier{"every", "types"}
	props := iceberg.Properties{"format-version": "3", table.WriteDeleteModeKey: table.WriteModeMergeOnRead}
	g := createGoTable(t, e.cat, ident, everySchema(), props)
	m := e.newTable(t, "m_every", ident[0], ident[1], everySchema(), false, "id", "name")

	g.appendRows(everyRows())
	m.check(t, "append", 6)
	g.delete(iceberg.EqualTo(iceberg.Reference("id"), int64(2)))
	m.check(t, "deletion vector", 5)
}
