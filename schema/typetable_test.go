package schema_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/pinot/spec"
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
		types []spec.DataType
		sv    bool
		enc   schema.Encoding
		ft    spec.FieldType
		lossy bool
	}{
		{"boolean", P.Bool, []spec.DataType{spec.Boolean}, true, schema.EncodeValue, spec.Dimension, false},
		{"int", P.Int32, []spec.DataType{spec.Int, spec.Long}, true, schema.EncodeValue, spec.Dimension, false},
		{"long", P.Int64, []spec.DataType{spec.Long}, true, schema.EncodeValue, spec.Dimension, false},
		{"float", P.Float32, []spec.DataType{spec.Float, spec.Double}, true, schema.EncodeValue, spec.Metric, false},
		{"double", P.Float64, []spec.DataType{spec.Double}, true, schema.EncodeValue, spec.Metric, false},
		{"decimal", iceberg.DecimalTypeOf(10, 2), []spec.DataType{spec.BigDecimal}, true, schema.EncodeValue, spec.Metric, false},
		{"decimal38", iceberg.DecimalTypeOf(38, 0), []spec.DataType{spec.BigDecimal}, true, schema.EncodeValue, spec.Metric, false},
		{"date", P.Date, []spec.DataType{spec.Int, spec.Timestamp}, true, schema.EncodeValue, spec.DateTime, false},
		{"time", P.Time, []spec.DataType{spec.Long}, true, schema.EncodeValue, spec.Dimension, false},
		{"timestamp", P.Timestamp, []spec.DataType{spec.Timestamp, spec.Long}, true, schema.EncodeValue, spec.DateTime, true},
		{"timestamptz", P.TimestampTz, []spec.DataType{spec.Timestamp, spec.Long}, true, schema.EncodeValue, spec.DateTime, true},
		{"timestamp_ns", P.TimestampNs, []spec.DataType{spec.Timestamp, spec.Long}, true, schema.EncodeValue, spec.DateTime, true},
		{"timestamptz_ns", P.TimestampTzNs, []spec.DataType{spec.Timestamp, spec.Long}, true, schema.EncodeValue, spec.DateTime, true},
		{"string", P.String, []spec.DataType{spec.String}, true, schema.EncodeValue, spec.Dimension, false},
		{"uuid", P.UUID, []spec.DataType{spec.String}, true, schema.EncodeValue, spec.Dimension, false},
		{"fixed", iceberg.FixedTypeOf(3), []spec.DataType{spec.Bytes}, true, schema.EncodeValue, spec.Dimension, false},
		{"binary", P.Binary, []spec.DataType{spec.Bytes}, true, schema.EncodeValue, spec.Dimension, false},
		{"geometry", iceberg.GeometryType{}, []spec.DataType{spec.Bytes}, true, schema.EncodeValue, spec.Dimension, false},
		{"geography", geography(t), []spec.DataType{spec.Bytes}, true, schema.EncodeValue, spec.Dimension, false},
		{"list<int>", listOf(P.Int32, true), []spec.DataType{spec.Int, spec.Long}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<long>", listOf(P.Int64, true), []spec.DataType{spec.Long}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<boolean>", listOf(P.Bool, true), []spec.DataType{spec.Boolean}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<float>", listOf(P.Float32, true), []spec.DataType{spec.Float, spec.Double}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<double>", listOf(P.Float64, true), []spec.DataType{spec.Double}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<string>", listOf(P.String, true), []spec.DataType{spec.String}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<uuid>", listOf(P.UUID, true), []spec.DataType{spec.String}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<date>", listOf(P.Date, true), []spec.DataType{spec.Int, spec.Timestamp}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<time>", listOf(P.Time, true), []spec.DataType{spec.Long}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<timestamp>", listOf(P.Timestamp, true), []spec.DataType{spec.Timestamp, spec.Long}, false, schema.EncodeValue, spec.Dimension, true},
		{"list<timestamptz_ns>", listOf(P.TimestampTzNs, true), []spec.DataType{spec.Timestamp, spec.Long}, false, schema.EncodeValue, spec.Dimension, true},
		{"list<binary>", listOf(P.Binary, true), []spec.DataType{spec.Bytes}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<fixed>", listOf(iceberg.FixedTypeOf(4), true), []spec.DataType{spec.Bytes}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<geometry>", listOf(iceberg.GeometryType{}, true), []spec.DataType{spec.Bytes}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<decimal> is MV STRING", listOf(iceberg.DecimalTypeOf(9, 3), true), []spec.DataType{spec.String}, false, schema.EncodeValue, spec.Dimension, false},
		{"list<unknown> is JSON", listOf(P.Unknown, false), []spec.DataType{spec.JSON}, true, schema.EncodeJSON, spec.Dimension, false},
		{"list<struct> is JSON", listOf(point, true), []spec.DataType{spec.JSON}, true, schema.EncodeJSON, spec.Dimension, false},
		{"list<list> is JSON", listOf(listOf(P.Int32, true), true), []spec.DataType{spec.JSON}, true, schema.EncodeJSON, spec.Dimension, false},
		{"list<map> is JSON", listOf(&iceberg.MapType{KeyID: 1, KeyType: P.String, ValueID: 2, ValueType: P.Int32}, true), []spec.DataType{spec.JSON}, true, schema.EncodeJSON, spec.Dimension, false},
		{"list<variant> is JSON", listOf(iceberg.VariantType{}, false), []spec.DataType{spec.JSON}, true, schema.EncodeJSON, spec.Dimension, false},
		{"map", &iceberg.MapType{KeyID: 1, KeyType: P.String, ValueID: 2, ValueType: point}, []spec.DataType{spec.JSON}, true, schema.EncodeJSON, spec.Dimension, false},
		{"struct", point, []spec.DataType{spec.JSON}, true, schema.EncodeJSON, spec.Dimension, false},
		{"variant", iceberg.VariantType{}, []spec.DataType{spec.JSON}, true, schema.EncodeJSON, spec.Dimension, false},
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
			if _, ok := r.Target(spec.Long); !ok {
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
