package schema_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/schema"
)

func geography(t *testing.T) iceberg.Type { return mustGeography(t, "EPSG:4326", "vincenty") }

// mustGeography builds a geography type. The every-type table uses the
// default CRS: iceberg-go v0.7.0 writes geo columns without their CRS and
// then refuses to read a non-default CRS back ("cannot promote").
func mustGeography(t *testing.T, crs, algo string) iceberg.Type {
	t.Helper()
	g, err := iceberg.GeographyTypeOf(crs, algo)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func listOf(e iceberg.Type, required bool) *iceberg.ListType {
	return &iceberg.ListType{ElementID: 100, Element: e, ElementRequired: required}
}

func structOf(fields ...iceberg.NestedField) *iceberg.StructType {
	return &iceberg.StructType{FieldList: fields}
}

// TestRuleFor pins every row of the type table (doc.go): default Pinot type,
// the allowed alternatives, single/multi value, encoding, default field type
// and whether the default loses precision.
func TestRuleFor(t *testing.T) {
	P := iceberg.PrimitiveTypes
	point := structOf(iceberg.NestedField{ID: 101, Name: "x", Type: P.Float64})
	tests := []struct {
		name  string
		typ   iceberg.Type
		types []pinot.DataType
		sv    bool
		enc   schema.Encoding
		ft    pinot.FieldType
		lossy bool
	}{
		{"boolean", P.Bool, []pinot.DataType{pinot.Boolean}, true, schema.EncodeValue, pinot.Dimension, false},
		{"int", P.Int32, []pinot.DataType{pinot.Int, pinot.Long}, true, schema.EncodeValue, pinot.Dimension, false},
		{"long", P.Int64, []pinot.DataType{pinot.Long}, true, schema.EncodeValue, pinot.Dimension, false},
		{"float", P.Float32, []pinot.DataType{pinot.Float, pinot.Double}, true, schema.EncodeValue, pinot.Metric, false},
		{"double", P.Float64, []pinot.DataType{pinot.Double}, true, schema.EncodeValue, pinot.Metric, false},
		{"decimal", iceberg.DecimalTypeOf(10, 2), []pinot.DataType{pinot.BigDecimal}, true, schema.EncodeValue, pinot.Metric, false},
		{"decimal38", iceberg.DecimalTypeOf(38, 0), []pinot.DataType{pinot.BigDecimal}, true, schema.EncodeValue, pinot.Metric, false},
		{"date", P.Date, []pinot.DataType{pinot.Int, pinot.Timestamp}, true, schema.EncodeValue, pinot.DateTime, false},
		{"time", P.Time, []pinot.DataType{pinot.Long}, true, schema.EncodeValue, pinot.Dimension, false},
		{"timestamp", P.Timestamp, []pinot.DataType{pinot.Timestamp, pinot.Long}, true, schema.EncodeValue, pinot.DateTime, true},
		{"timestamptz", P.TimestampTz, []pinot.DataType{pinot.Timestamp, pinot.Long}, true, schema.EncodeValue, pinot.DateTime, true},
		{"timestamp_ns", P.TimestampNs, []pinot.DataType{pinot.Timestamp, pinot.Long}, true, schema.EncodeValue, pinot.DateTime, true},
		{"timestamptz_ns", P.TimestampTzNs, []pinot.DataType{pinot.Timestamp, pinot.Long}, true, schema.EncodeValue, pinot.DateTime, true},
		{"string", P.String, []pinot.DataType{pinot.String}, true, schema.EncodeValue, pinot.Dimension, false},
		{"uuid", P.UUID, []pinot.DataType{pinot.String}, true, schema.EncodeValue, pinot.Dimension, false},
		{"fixed", iceberg.FixedTypeOf(3), []pinot.DataType{pinot.Bytes}, true, schema.EncodeValue, pinot.Dimension, false},
		{"binary", P.Binary, []pinot.DataType{pinot.Bytes}, true, schema.EncodeValue, pinot.Dimension, false},
		{"geometry", iceberg.GeometryType{}, []pinot.DataType{pinot.Bytes}, true, schema.EncodeValue, pinot.Dimension, false},
		{"geography", geography(t), []pinot.DataType{pinot.Bytes}, true, schema.EncodeValue, pinot.Dimension, false},
		{"list<int>", listOf(P.Int32, true), []pinot.DataType{pinot.Int, pinot.Long}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<long>", listOf(P.Int64, true), []pinot.DataType{pinot.Long}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<boolean>", listOf(P.Bool, true), []pinot.DataType{pinot.Boolean}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<float>", listOf(P.Float32, true), []pinot.DataType{pinot.Float, pinot.Double}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<double>", listOf(P.Float64, true), []pinot.DataType{pinot.Double}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<string>", listOf(P.String, true), []pinot.DataType{pinot.String}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<uuid>", listOf(P.UUID, true), []pinot.DataType{pinot.String}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<date>", listOf(P.Date, true), []pinot.DataType{pinot.Int, pinot.Timestamp}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<time>", listOf(P.Time, true), []pinot.DataType{pinot.Long}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<timestamp>", listOf(P.Timestamp, true), []pinot.DataType{pinot.Timestamp, pinot.Long}, false, schema.EncodeValue, pinot.Dimension, true},
		{"list<timestamptz_ns>", listOf(P.TimestampTzNs, true), []pinot.DataType{pinot.Timestamp, pinot.Long}, false, schema.EncodeValue, pinot.Dimension, true},
		{"list<binary>", listOf(P.Binary, true), []pinot.DataType{pinot.Bytes}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<fixed>", listOf(iceberg.FixedTypeOf(4), true), []pinot.DataType{pinot.Bytes}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<geometry>", listOf(iceberg.GeometryType{}, true), []pinot.DataType{pinot.Bytes}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<decimal> is MV STRING", listOf(iceberg.DecimalTypeOf(9, 3), true), []pinot.DataType{pinot.String}, false, schema.EncodeValue, pinot.Dimension, false},
		{"list<unknown> is JSON", listOf(P.Unknown, false), []pinot.DataType{pinot.JSON}, true, schema.EncodeJSON, pinot.Dimension, false},
		{"list<struct> is JSON", listOf(point, true), []pinot.DataType{pinot.JSON}, true, schema.EncodeJSON, pinot.Dimension, false},
		{"list<list> is JSON", listOf(listOf(P.Int32, true), true), []pinot.DataType{pinot.JSON}, true, schema.EncodeJSON, pinot.Dimension, false},
		{"list<map> is JSON", listOf(&iceberg.MapType{KeyID: 1, KeyType: P.String, ValueID: 2, ValueType: P.Int32}, true), []pinot.DataType{pinot.JSON}, true, schema.EncodeJSON, pinot.Dimension, false},
		{"list<variant> is JSON", listOf(iceberg.VariantType{}, false), []pinot.DataType{pinot.JSON}, true, schema.EncodeJSON, pinot.Dimension, false},
		{"map", &iceberg.MapType{KeyID: 1, KeyType: P.String, ValueID: 2, ValueType: point}, []pinot.DataType{pinot.JSON}, true, schema.EncodeJSON, pinot.Dimension, false},
		{"struct", point, []pinot.DataType{pinot.JSON}, true, schema.EncodeJSON, pinot.Dimension, false},
		{"variant", iceberg.VariantType{}, []pinot.DataType{pinot.JSON}, true, schema.EncodeJSON, pinot.Dimension, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := schema.RuleFor(tt.typ)
			if err != nil {
				t.Fatalf("RuleFor(%s): %v", tt.typ, err)
			}
			if got := r.DataTypes(); !slices.Equal(got, tt.types) {
				t.Errorf("data types = %v, want %v", got, tt.types)
			}
			if r.SingleValue != tt.sv || r.Encoding != tt.enc || r.FieldType != tt.ft {
				t.Errorf("sv/enc/ft = %v/%v/%v, want %v/%v/%v", r.SingleValue, r.Encoding, r.FieldType, tt.sv, tt.enc, tt.ft)
			}
			if lossy := r.Default().Lossy != ""; lossy != tt.lossy {
				t.Errorf("default lossy = %q, want lossy=%v", r.Default().Lossy, tt.lossy)
			}
			for _, alt := range r.Targets[1:] {
				if alt.Lossy != "" {
					t.Errorf("alternative %s is lossy (%q): alternatives exist to be exact", alt.DataType, alt.Lossy)
				}
			}
			if r.Skip {
				t.Errorf("Skip = true for %s", tt.typ)
			}
		})
	}
}

func TestRuleFor_unknownIsSkipped(t *testing.T) {
	r, err := schema.RuleFor(iceberg.PrimitiveTypes.Unknown)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Skip || len(r.Targets) != 0 {
		t.Fatalf("unknown: Skip=%v targets=%v, want skipped with no targets", r.Skip, r.Targets)
	}
}

func TestRuleFor_structFlattenable(t *testing.T) {
	for _, typ := range []iceberg.Type{
		structOf(iceberg.NestedField{ID: 1, Name: "a", Type: iceberg.PrimitiveTypes.Int32}),
		&iceberg.MapType{KeyID: 1, KeyType: iceberg.PrimitiveTypes.String, ValueID: 2, ValueType: iceberg.PrimitiveTypes.Int32},
		iceberg.VariantType{},
	} {
		r, err := schema.RuleFor(typ)
		if err != nil {
			t.Fatal(err)
		}
		_, isStruct := typ.(*iceberg.StructType)
		if r.Flattenable != isStruct {
			t.Errorf("%s: Flattenable = %v, want %v", typ, r.Flattenable, isStruct)
		}
	}
}

type oddType struct{}

func (oddType) String() string             { return "odd" }
func (oddType) Type() string               { return "odd" }
func (oddType) Equals(o iceberg.Type) bool { return false }

func TestRuleFor_unsupported(t *testing.T) {
	_, err := schema.RuleFor(oddType{})
	if !errors.Is(err, schema.ErrUnsupportedType) {
		t.Fatalf("err = %v, want ErrUnsupportedType", err)
	}
}

// TestTypeTable checks the documented table has a row per type of format
// v1–v3 and that timestamp defaults name their lossless alternative.
func TestTypeTable(t *testing.T) {
	rows := schema.TypeTable()
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.Iceberg] = true
		if !r.Skip && len(r.Targets) == 0 {
			t.Errorf("%s: no targets", r.Iceberg)
		}
		if d := r.Default(); !r.Skip && d.Lossy != "" {
			if _, ok := r.Target(pinot.Long); !ok {
				t.Errorf("%s: lossy default %s offers no lossless LONG", r.Iceberg, d.DataType)
			}
		}
	}
	for _, want := range []string{"boolean", "int", "long", "float", "double", "decimal(38, 9)", "date", "time",
		"timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns", "string", "uuid", "fixed[16]", "binary",
		"geometry", "geography", "unknown", "variant", "list<int>", "list<decimal(38, 9)>"} {
		if !seen[want] {
			t.Errorf("type table has no row %q", want)
		}
	}
}
