//go:build integration

package schema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"reflect"
	"testing"

	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/floehq/floe/internal/pinottest"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
	"github.com/floehq/floe/segments"
	floearrow "github.com/floehq/floe/segments/arrow"
)

// TestInfer_valuesRoundTrip is floe's every-type proof: an Iceberg v3
// table with a field of every type, written by iceberg-go with nulls and
// edge values, is scanned by iceberg-go, converted by the segments Arrow
// source along the inferred bindings, built into a segment, read back by
// Apache Pinot 1.5.1's own segment loader and reader, and compared with the
// values that were written: timestamps (µs and ns, before and after 1970),
// decimals, uuids, dates, bytes, geometry WKB, lists and nested JSON.
func TestInfer_valuesRoundTrip(t *testing.T) {
	h := pinottest.New(t)
	ctx := t.Context()
	tbl := createEveryTypeTable(t, ctx)
	variants := []struct {
		name           string
		opts           schema.Options
		lossless, flat bool
	}{
		{"defaults", schema.Options{}, false, false},
		{"lossless and flattened", schema.Options{Overrides: map[string]schema.Override{
			"ts": {DataType: spec.Long}, "tstz": {DataType: spec.Long}, "tsn": {DataType: spec.Long},
			"tstzn": {DataType: spec.Long}, "day": {DataType: spec.Timestamp}, "i": {DataType: spec.Long},
			"f": {DataType: spec.Double}, "addr": {Flatten: true},
		}}, true, true},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			v.opts.Name = "sales_orders"
			res, err := schema.Infer(tbl.Schema(), v.opts)
			if err != nil {
				t.Fatal(err)
			}
			dumps := h.ReadSegments(t, []string{buildSegment(t, ctx, tbl, res, "sales_orders_every_type_0")})
			checkDumpColumns(t, dumps[0], res)
			rows := evRows()
			if len(dumps[0].Rows) != len(rows) {
				t.Fatalf("Pinot read %d rows, want %d", len(dumps[0].Rows), len(rows))
			}
			for _, got := range dumps[0].Rows {
				id, _ := got["id"].V.(int64)
				if id < 1 || int(id) > len(rows) {
					t.Fatalf("row with unexpected id %v", got["id"])
				}
				for col, want := range expectedRow(rows[id-1], v.lossless, v.flat) {
					compareValue(t, id, col, got[col], want)
				}
			}
		})
	}
}

func buildSegment(t *testing.T, ctx context.Context, tbl *table.Table, res *schema.Result, name string) string {
	t.Helper()
	arrowSchema, batches, err := tbl.Scan().ToArrowRecords(ctx)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	src, err := floearrow.NewSource(arrowSchema, batches, floearrow.Config{
		Schema: res.Schema, Columns: res.ArrowColumns(), Name: "every-type"})
	if err != nil {
		t.Fatalf("bind Arrow source: %v", err)
	}
	defer src.Close()
	out, err := segments.Build(ctx, src, segments.Config{Schema: res.Schema, TableName: res.Schema.Name,
		SegmentName: name, TimeColumn: res.TimeColumn}, t.TempDir())
	if err != nil {
		t.Fatalf("build segment: %v", err)
	}
	return out.Dir
}

func checkDumpColumns(t *testing.T, d pinottest.SegmentDump, res *schema.Result) {
	t.Helper()
	if len(d.Columns) != len(res.Columns) {
		t.Errorf("Pinot sees %d columns, inferred %d", len(d.Columns), len(res.Columns))
	}
	for _, c := range res.Columns {
		got, ok := d.Columns[c.Field.Name]
		if !ok || got.DataType != c.Field.DataType || got.SingleValue != c.Field.SingleValue || got.FieldType != c.Field.FieldType {
			t.Errorf("column %s: Pinot has %+v, inferred %s %s sv=%v", c.Field.Name, got, c.Field.DataType, c.Field.FieldType, c.Field.SingleValue)
		}
	}
}

// want is an expected Pinot value; json holds the decoded JSON a JSON
// column must hold.
type want struct {
	null   bool
	v      any
	isJSON bool
}

func val(v any) want     { return want{v: v} }
func jsonVal(v any) want { return want{v: v, isJSON: true} }

func wantPtr[T any](p *T, conv func(T) any) want {
	if p == nil {
		return want{null: true}
	}
	return val(conv(*p))
}

func wantBytes(b []byte) want {
	if b == nil {
		return want{null: true}
	}
	return val(b)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// expectedRow computes, independently of floe's converter, what Pinot must
// hold for r: TIMESTAMP is epoch millis floored, LONG timestamps the raw
// µs/ns, BOOLEAN 0/1, uuid canonical text, lists without null elements and
// empty lists as null (Pinot's multi-value rules), nested values as JSON.
func expectedRow(r evRow, lossless, flat bool) map[string]want {
	ts := func(div int64) func(int64) any {
		return func(v int64) any {
			if lossless {
				return v
			}
			return floorDiv(v, div)
		}
	}
	w := map[string]want{
		"id":     val(r.id),
		"flag":   wantPtr(r.flag, func(b bool) any { return map[bool]int32{false: 0, true: 1}[b] }),
		"i":      wantPtr(r.i, func(v int32) any { return map[bool]any{false: v, true: int64(v)}[lossless] }),
		"f":      wantPtr(r.f, func(v float32) any { return map[bool]any{false: v, true: float64(v)}[lossless] }),
		"d":      wantPtr(r.d, func(v float64) any { return v }),
		"amount": val(big.NewRat(r.amount, 100)),
		"day":    wantPtr(r.day, func(v int32) any { return map[bool]any{false: v, true: int64(v) * 86_400_000}[lossless] }),
		"tod":    wantPtr(r.tod, func(v int64) any { return v }),
		"ts":     wantPtr(r.ts, ts(1_000)),
		"tstz":   val(ts(1_000)(r.tstz)),
		"tsn":    wantPtr(r.tsn, ts(1_000_000)),
		"tstzn":  wantPtr(r.tstzn, ts(1_000_000)),
		"name":   wantPtr(r.name, func(s string) any { return s }),
		"uid":    wantPtr(r.uid, func(u [16]byte) any { return uuid.UUID(u).String() }),
		"fx":     wantBytes(r.fx), "bin": wantBytes(r.bin), "geom": wantBytes(r.geom), "geog": wantBytes(r.geog),
		"tags":   wantMV(r.tags, func(s string) (any, bool) { return s, true }),
		"nums":   wantMV(r.nums, func(p *int64) (any, bool) { return deref(p) }),
		"attrs":  wantJSONOf(r.attrs != nil, r.attrs),
		"items":  wantJSONOf(r.items != nil, itemsJSON(r.items)),
		"v":      wantJSONText(r.v),
		"prices": wantMV(r.prices, func(u int64) (any, bool) { return big.NewRat(u, 1000).FloatString(3), true }),
	}
	addWantAddr(w, r, flat)
	return w
}

func deref(p *int64) (any, bool) {
	if p == nil {
		return nil, false
	}
	return *p, true
}

func wantMV[T any](list []T, conv func(T) (any, bool)) want {
	var out []any
	for _, e := range list {
		if v, ok := conv(e); ok {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return want{null: true}
	}
	return val(out)
}

func wantJSONOf(present bool, v any) want {
	if !present {
		return want{null: true}
	}
	b, _ := json.Marshal(v)
	return wantJSONText(string(b))
}

func wantJSONText(s string) want {
	if s == "" {
		return want{null: true}
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return jsonVal(dropNulls(v))
}

func itemsJSON(items []evItem) []map[string]any {
	out := []map[string]any{}
	for _, it := range items {
		m := map[string]any{"sku": it.sku}
		if it.qty != nil {
			m["qty"] = *it.qty
		}
		out = append(out, m)
	}
	return out
}

func addWantAddr(w map[string]want, r evRow, flat bool) {
	var geo map[string]any
	if r.geo != nil {
		geo = map[string]any{"lat": r.geo[0], "lon": r.geo[1]}
	}
	if !flat {
		w["addr"] = wantJSONOf(true, map[string]any{"street": r.street, "geo": geo})
		return
	}
	w["addr.street"] = val(r.street)
	w["addr.geo"] = wantJSONOf(geo != nil, geo)
}

// dropNulls removes null members from JSON objects: a missing member and a
// null one mean the same in a JSON column.
func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
			} else {
				x[k] = dropNulls(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = dropNulls(e)
		}
	}
	return v
}

func compareValue(t *testing.T, id int64, col string, got pinottest.Value, w want) {
	t.Helper()
	if w.null || got.Null {
		if w.null != got.Null {
			t.Errorf("row %d column %s: null=%v (value %v), want null=%v (value %v)", id, col, got.Null, got.V, w.null, w.v)
		}
		return
	}
	ok := false
	switch x := w.v.(type) {
	case *big.Rat:
		g, isRat := got.V.(*big.Rat)
		ok = isRat && g.Cmp(x) == 0
	case []byte:
		g, isBytes := got.V.([]byte)
		ok = isBytes && bytes.Equal(g, x)
	default:
		if w.isJSON {
			s, _ := got.V.(string)
			var g any
			ok = json.Unmarshal([]byte(s), &g) == nil && reflect.DeepEqual(dropNulls(g), w.v)
		} else {
			ok = reflect.DeepEqual(got.V, w.v)
		}
	}
	if !ok {
		t.Errorf("row %d column %s: Pinot read %#v (%s), want %#v", id, col, got.V, got.Text, w.v)
	}
}
