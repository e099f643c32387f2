//go:build integration

package schema_test

import (
	"encoding/json"
	"testing"

	"github.com/floehq/floe/internal/pinottest"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
)

// TestInfer_pinotAccepts checks with Apache Pinot 1.5.1's own parsers and
// validators (SchemaUtils.validate, TableConfigUtils.validate) that every
// inferred schema and table config is accepted: the every-type schema with
// defaults, with the lossless alternatives, flattened, and with an
// overridden time column.
func TestInfer_pinotAccepts(t *testing.T) {
	h := pinottest.New(t)
	cases := []struct {
		name string
		opts schema.Options
	}{
		{"defaults", schema.Options{}},
		{"lossless", schema.Options{Overrides: map[string]schema.Override{
			"ts": {DataType: spec.Long}, "tstz": {DataType: spec.Long}, "tsn": {DataType: spec.Long},
			"tstzn": {DataType: spec.Long}, "day": {DataType: spec.Timestamp}, "i": {DataType: spec.Long},
			"f": {DataType: spec.Double}, "nums": {DataType: spec.Long}, "amount": {FieldType: spec.Dimension},
		}}},
		{"flattened", schema.Options{Overrides: map[string]schema.Override{
			"addr": {Flatten: true}, "addr.geo": {Flatten: true}, "addr.geo.lat": {FieldType: spec.Dimension},
		}}},
		{"metrics and epoch seconds time column", schema.Options{TimeColumn: "id", Overrides: map[string]schema.Override{
			"id": {FieldType: spec.DateTime, TimeUnit: schema.Seconds}, "i": {FieldType: spec.Metric},
			"tod": {FieldType: spec.DateTime}, "tstz": {DataType: spec.Long, FieldType: spec.Metric},
		}}},
		{"date time column", schema.Options{TimeColumn: "day"}},
		{"nanosecond time column", schema.Options{TimeColumn: "tsn", Overrides: map[string]schema.Override{"tsn": {DataType: spec.Long}}}},
		{"no time column", schema.Options{NoTimeColumn: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Name = "sales_orders"
			res, err := schema.Infer(everyType(t), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			src, _ := schema.ParseTableName("`My-Catalog`.sales.orders")
			sj, tj := mustJSON(t, res.Schema), mustJSON(t, schema.TableConfig(res, schema.TableOptions{Source: src, Connection: "c"}))
			if err := h.ValidateSchema(t, sj); err != nil {
				t.Errorf("Pinot refused the schema: %v\n%s", err, sj)
			}
			if err := h.ValidateTableConfig(t, tj, sj); err != nil {
				t.Errorf("Pinot refused the table config: %v\n%s", err, tj)
			}
		})
	}
}

// TestInfer_pinotRefusesBadControls proves the validation above can fail:
// hand-made mistakes that floe's rules forbid are refused by Pinot too.
func TestInfer_pinotRefusesBadControls(t *testing.T) {
	h := pinottest.New(t)
	res, err := schema.Infer(everyType(t), schema.Options{Name: "sales_orders"})
	if err != nil {
		t.Fatal(err)
	}
	bad := *res.Schema
	bad.Fields = append([]spec.FieldSpec{}, res.Schema.Fields...)
	for i, f := range bad.Fields {
		if f.Name == "name" {
			bad.Fields[i].FieldType = spec.Metric // STRING metric: floe refuses it, so must Pinot
		}
	}
	if err := h.ValidateSchema(t, mustJSON(t, &bad)); err == nil {
		t.Error("Pinot accepted a STRING METRIC column")
	}
	tc := schema.TableConfig(res, schema.TableOptions{})
	tc.SegmentsConfig.TimeColumnName = "name" // not a DATE_TIME column
	if err := h.ValidateTableConfig(t, mustJSON(t, tc), mustJSON(t, res.Schema)); err == nil {
		t.Error("Pinot accepted a STRING time column")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
