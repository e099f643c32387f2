package schema_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
)

// everyType is an Iceberg schema with a field of every type of format v1–v3.
func everyType(t *testing.T) *iceberg.Schema {
	t.Helper()
	P := iceberg.PrimitiveTypes
	f := func(id int, name string, typ iceberg.Type, req bool) iceberg.NestedField {
		return iceberg.NestedField{ID: id, Name: name, Type: typ, Required: req}
	}
	geo := structOf(f(40, "lat", P.Float64, false), f(41, "lon", P.Float64, false))
	return iceberg.NewSchema(0,
		f(1, "id", P.Int64, true),
		f(2, "flag", P.Bool, false),
		f(3, "i", P.Int32, false),
		f(4, "f", P.Float32, false),
		f(5, "d", P.Float64, false),
		f(6, "amount", iceberg.DecimalTypeOf(10, 2), true),
		f(7, "day", P.Date, false),
		f(8, "tod", P.Time, false),
		f(9, "ts", P.Timestamp, false),
		f(10, "tstz", P.TimestampTz, true),
		f(11, "tsn", P.TimestampNs, false),
		f(12, "tstzn", P.TimestampTzNs, false),
		f(13, "name", P.String, false),
		f(14, "uid", P.UUID, false),
		f(15, "fx", iceberg.FixedTypeOf(4), false),
		f(16, "bin", P.Binary, false),
		f(17, "tags", &iceberg.ListType{ElementID: 30, Element: P.String, ElementRequired: true}, false),
		f(18, "nums", &iceberg.ListType{ElementID: 31, Element: P.Int64}, false),
		f(19, "addr", structOf(f(32, "street", P.String, true), f(33, "geo", geo, false)), true),
		f(20, "attrs", &iceberg.MapType{KeyID: 34, KeyType: P.String, ValueID: 35, ValueType: P.String}, false),
		f(21, "items", &iceberg.ListType{ElementID: 36, Element: structOf(f(37, "sku", P.String, false), f(38, "qty", P.Int32, false))}, false),
		f(22, "v", iceberg.VariantType{}, false),
		f(23, "geom", iceberg.GeometryType{}, false),
		f(24, "geog", mustGeography(t, iceberg.DefaultGeoCRS, "vincenty"), false),
		f(25, "nothing", P.Unknown, false),
		f(26, "prices", &iceberg.ListType{ElementID: 39, Element: iceberg.DecimalTypeOf(9, 3), ElementRequired: true}, false),
	)
}

type wantCol struct {
	name    string
	dt      spec.DataType
	ft      spec.FieldType
	sv      bool
	notNull bool
	format  string
	id      int
	enc     schema.Encoding
	lossy   bool
}

func checkColumns(t *testing.T, res *schema.Result, want []wantCol) {
	t.Helper()
	if len(res.Columns) != len(want) {
		var got []string
		for _, c := range res.Columns {
			got = append(got, c.Field.Name)
		}
		t.Fatalf("columns = %v, want %d columns", got, len(want))
	}
	for i, w := range want {
		c := res.Columns[i]
		f := c.Field
		if f.Name != w.name || f.DataType != w.dt || f.FieldType != w.ft || f.SingleValue != w.sv ||
			f.NotNull != w.notNull || f.Format != w.format || c.FieldID != w.id || c.Encoding != w.enc {
			t.Errorf("column %d = {%s %s %s sv=%v notNull=%v %q id=%d %s}, want %+v",
				i, f.Name, f.DataType, f.FieldType, f.SingleValue, f.NotNull, f.Format, c.FieldID, c.Encoding, w)
		}
		if (c.Lossy != "") != w.lossy {
			t.Errorf("column %s: Lossy = %q, want lossy=%v", f.Name, c.Lossy, w.lossy)
		}
		if got := strings.Join(c.Path, "."); got != w.name {
			t.Errorf("column %s: path %q", f.Name, got)
		}
		if sf, ok := res.Schema.Field(w.name); !ok || sf != f {
			t.Errorf("column %s: schema field %+v differs from binding %+v", w.name, sf, f)
		}
	}
}

const (
	ms   = "1:MILLISECONDS:TIMESTAMP"
	days = "1:DAYS:EPOCH"
	V    = schema.EncodeValue
	J    = schema.EncodeJSON
	F    = schema.EncodeFlatten
)

func TestInfer_everyType(t *testing.T) {
	res, err := schema.Infer(everyType(t), schema.Options{Name: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	checkColumns(t, res, []wantCol{
		{"id", spec.Long, spec.Dimension, true, true, "", 1, V, false},
		{"flag", spec.Boolean, spec.Dimension, true, false, "", 2, V, false},
		{"i", spec.Int, spec.Dimension, true, false, "", 3, V, false},
		{"f", spec.Float, spec.Metric, true, false, "", 4, V, false},
		{"d", spec.Double, spec.Metric, true, false, "", 5, V, false},
		{"amount", spec.BigDecimal, spec.Metric, true, true, "", 6, V, false},
		{"day", spec.Int, spec.DateTime, true, false, days, 7, V, false},
		{"tod", spec.Long, spec.Dimension, true, false, "", 8, V, false},
		{"ts", spec.Timestamp, spec.DateTime, true, false, ms, 9, V, true},
		{"tstz", spec.Timestamp, spec.DateTime, true, true, ms, 10, V, true},
		{"tsn", spec.Timestamp, spec.DateTime, true, false, ms, 11, V, true},
		{"tstzn", spec.Timestamp, spec.DateTime, true, false, ms, 12, V, true},
		{"name", spec.String, spec.Dimension, true, false, "", 13, V, false},
		{"uid", spec.String, spec.Dimension, true, false, "", 14, V, false},
		{"fx", spec.Bytes, spec.Dimension, true, false, "", 15, V, false},
		{"bin", spec.Bytes, spec.Dimension, true, false, "", 16, V, false},
		{"tags", spec.String, spec.Dimension, false, false, "", 17, V, true},
		{"nums", spec.Long, spec.Dimension, false, false, "", 18, V, true},
		{"addr", spec.JSON, spec.Dimension, true, true, "", 19, J, false},
		{"attrs", spec.JSON, spec.Dimension, true, false, "", 20, J, false},
		{"items", spec.JSON, spec.Dimension, true, false, "", 21, J, false},
		{"v", spec.JSON, spec.Dimension, true, false, "", 22, J, false},
		{"geom", spec.Bytes, spec.Dimension, true, false, "", 23, V, false},
		{"geog", spec.Bytes, spec.Dimension, true, false, "", 24, V, false},
		{"prices", spec.String, spec.Dimension, false, false, "", 26, V, true},
	})
	if res.TimeColumn != "tstz" {
		t.Errorf("time column = %q, want tstz (the required timestamp)", res.TimeColumn)
	}
	if !slices.Equal(res.MultiValue, []string{"tags", "nums", "prices"}) {
		t.Errorf("multi-value = %v", res.MultiValue)
	}
	if !res.Schema.EnableColumnNullHandle || res.Schema.Name != "orders" {
		t.Errorf("schema name %q null handling %v", res.Schema.Name, res.Schema.EnableColumnNullHandle)
	}
	if f, _ := res.Schema.Field("name"); f.MaxLength != schema.DefaultMaxLength {
		t.Errorf("STRING maxLength = %d, want %d", f.MaxLength, schema.DefaultMaxLength)
	}
	if c, _ := res.Column("nums"); !strings.Contains(c.Lossy, "null list elements") {
		t.Errorf("nums (optional elements) Lossy = %q", c.Lossy)
	}
	if c, _ := res.Column("tags"); strings.Contains(c.Lossy, "null list elements") {
		t.Errorf("tags (required elements) Lossy = %q", c.Lossy)
	}
}

func TestInfer_flatten(t *testing.T) {
	ov := map[string]schema.Override{"addr": {Flatten: true}}
	res, err := schema.Infer(everyType(t), schema.Options{Name: "orders", Overrides: ov, NoTimeColumn: true})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := res.Column("addr.street")
	if !ok || c.Encoding != F || c.Field.DataType != spec.String || !c.Field.NotNull || c.FieldID != 32 ||
		!slices.Equal(c.Path, []string{"addr", "street"}) {
		t.Errorf("addr.street = %+v", c)
	}
	if c, ok = res.Column("addr.geo"); !ok || c.Encoding != J || c.Field.DataType != spec.JSON || c.Field.NotNull {
		t.Errorf("addr.geo = %+v", c)
	}
	if _, ok := res.Column("addr"); ok {
		t.Error("flattened struct kept its own column")
	}
	if res.TimeColumn != "" {
		t.Errorf("NoTimeColumn: time column = %q", res.TimeColumn)
	}

	ov["addr.geo"] = schema.Override{Flatten: true}
	ov["addr.geo.lat"] = schema.Override{FieldType: spec.Dimension}
	res, err = schema.Infer(everyType(t), schema.Options{Name: "orders", Overrides: ov})
	if err != nil {
		t.Fatal(err)
	}
	lat, _ := res.Column("addr.geo.lat")
	lon, _ := res.Column("addr.geo.lon")
	if lat.Field.FieldType != spec.Dimension || lon.Field.FieldType != spec.Metric || lon.Encoding != F ||
		lon.Field.NotNull || !slices.Equal(lon.Path, []string{"addr", "geo", "lon"}) {
		t.Errorf("lat = %+v, lon = %+v", lat, lon)
	}
}

func TestInfer_timeColumn(t *testing.T) {
	P := iceberg.PrimitiveTypes
	tests := []struct {
		name   string
		fields []iceberg.NestedField
		opts   schema.Options
		want   string
	}{
		{"none without dates", []iceberg.NestedField{{ID: 1, Name: "a", Type: P.Int64}}, schema.Options{}, ""},
		{"date only", []iceberg.NestedField{{ID: 1, Name: "a", Type: P.Int64}, {ID: 2, Name: "d", Type: P.Date}}, schema.Options{}, "d"},
		{"timestamp beats date", []iceberg.NestedField{{ID: 1, Name: "d", Type: P.Date}, {ID: 2, Name: "t", Type: P.TimestampTzNs}}, schema.Options{}, "t"},
		{"required date beats optional timestamp", []iceberg.NestedField{{ID: 1, Name: "t", Type: P.Timestamp}, {ID: 2, Name: "d", Type: P.Date, Required: true}}, schema.Options{}, "d"},
		{"first of equals", []iceberg.NestedField{{ID: 1, Name: "t1", Type: P.Timestamp}, {ID: 2, Name: "t2", Type: P.Timestamp}}, schema.Options{}, "t1"},
		{"chosen", []iceberg.NestedField{{ID: 1, Name: "t1", Type: P.Timestamp}, {ID: 2, Name: "t2", Type: P.Timestamp}}, schema.Options{TimeColumn: "t2"}, "t2"},
		{"overridden long", []iceberg.NestedField{{ID: 1, Name: "epoch", Type: P.Int64}},
			schema.Options{TimeColumn: "epoch", Overrides: map[string]schema.Override{"epoch": {FieldType: spec.DateTime}}}, "epoch"},
		{"no time column", []iceberg.NestedField{{ID: 1, Name: "t", Type: P.Timestamp}}, schema.Options{NoTimeColumn: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Name = "t"
			res, err := schema.Infer(iceberg.NewSchema(0, tt.fields...), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.TimeColumn != tt.want {
				t.Errorf("time column = %q, want %q", res.TimeColumn, tt.want)
			}
		})
	}
}

// TestInfer_skipUnmappable: with SkipUnmappable, a column of an
// unsupported type or with a name Pinot rejects is left out and reported,
// and the rest of the table is inferred.
func TestInfer_skipUnmappable(t *testing.T) {
	P := iceberg.PrimitiveTypes
	s := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: P.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "odd", Type: oddType{}},
		iceberg.NestedField{ID: 3, Name: "a b", Type: P.Int32},
	)
	res, err := schema.Infer(s, schema.Options{Name: "t", SkipUnmappable: true, NoTimeColumn: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Schema.Fields) != 1 || res.Schema.Fields[0].Name != "id" {
		t.Fatalf("fields %+v, want only id", res.Schema.Fields)
	}
	if len(res.Skipped) != 2 || !errors.Is(res.Skipped[0], schema.ErrUnsupportedType) || !errors.Is(res.Skipped[1], schema.ErrInvalidName) ||
		!strings.Contains(res.Skipped[0].Error(), `"odd"`) || !strings.Contains(res.Skipped[1].Error(), `"a b"`) {
		t.Fatalf("skipped %v, want the odd type and the spaced name", res.Skipped)
	}
}

func TestInfer_errors(t *testing.T) {
	P := iceberg.PrimitiveTypes
	sch := func(fields ...iceberg.NestedField) *iceberg.Schema { return iceberg.NewSchema(0, fields...) }
	tests := []struct {
		name    string
		s       *iceberg.Schema
		opts    schema.Options
		is      error
		mention []string
	}{
		{"time column not DATE_TIME", everyType(t), schema.Options{TimeColumn: "name"}, schema.ErrIllegalOverride, []string{`"name"`, "tstz"}},
		{"time column unknown", everyType(t), schema.Options{TimeColumn: "nosuch"}, schema.ErrUnknownColumn, []string{`"nosuch"`}},
		{"time column and none", everyType(t), schema.Options{TimeColumn: "ts", NoTimeColumn: true}, schema.ErrIllegalOverride, []string{`"ts"`}},
		{"space in name", sch(iceberg.NestedField{ID: 1, Name: "a b", Type: P.Int32}), schema.Options{}, schema.ErrInvalidName, []string{`"a b"`}},
		{"dollar name", sch(iceberg.NestedField{ID: 1, Name: "$docId", Type: P.Int32}), schema.Options{}, schema.ErrInvalidName, []string{`"$docId"`}},
		{"flatten collision", sch(
			iceberg.NestedField{ID: 1, Name: "a.b", Type: P.Int32},
			iceberg.NestedField{ID: 2, Name: "a", Type: structOf(iceberg.NestedField{ID: 3, Name: "b", Type: P.Int32})}),
			schema.Options{Overrides: map[string]schema.Override{"a": {Flatten: true}}}, schema.ErrInvalidName, []string{`"a.b"`, "1", "3"}},
		{"bad table name", everyType(t), schema.Options{Name: "a__b"}, schema.ErrInvalidName, []string{"a__b"}},
		{"dotted table name", everyType(t), schema.Options{Name: "a.b"}, schema.ErrInvalidName, []string{"a.b"}},
		{"unsupported type", sch(iceberg.NestedField{ID: 1, Name: "odd", Type: oddType{}}), schema.Options{}, schema.ErrUnsupportedType, []string{`"odd"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.Name == "" {
				tt.opts.Name = "t"
			}
			_, err := schema.Infer(tt.s, tt.opts)
			if !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
			for _, m := range tt.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %s", err, m)
				}
			}
		})
	}
	if _, err := schema.Infer(nil, schema.Options{Name: "t"}); err == nil {
		t.Error("nil schema: no error")
	}
}
