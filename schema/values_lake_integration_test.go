//go:build integration

package schema_test

import (
	"context"
	"encoding/binary"
	"math"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/floehq/floe/internal/lakefixture"
)

// evRow is one row of the every-type table; nil pointers, nil slices and
// maps, and empty v are nulls.
type evRow struct {
	id     int64
	flag   *bool
	i      *int32
	f      *float32
	d      *float64
	amount int64 // unscaled, decimal(10,2)
	day    *int32
	tod    *int64 // µs of the day
	ts     *int64 // µs
	tstz   int64  // µs
	tsn    *int64 // ns
	tstzn  *int64 // ns
	name   *string
	uid    *[16]byte
	fx     []byte
	bin    []byte
	tags   []string
	nums   []*int64
	street string
	geo    *[2]float64
	attrs  map[string]string
	items  []evItem
	v      string // variant as JSON text
	geom   []byte
	geog   []byte
	prices []int64 // unscaled, decimal(9,3)
}

type evItem struct {
	sku string
	qty *int32
}

func ptr[T any](v T) *T { return &v }

// wkbPoint is the little-endian WKB of POINT(x y).
func wkbPoint(x, y float64) []byte {
	b := []byte{1, 1, 0, 0, 0}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(y))
}

func evRows() []evRow {
	u := [16]byte{0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00}
	ff := [16]byte{}
	for i := range ff {
		ff[i] = 0xff
	}
	return []evRow{
		{id: 1, flag: ptr(true), i: ptr(int32(42)), f: ptr(float32(1.25)), d: ptr(3.141592653589793), amount: 12345,
			day: ptr(int32(19700)), tod: ptr(int64(45_296_000_001)), ts: ptr(int64(1_700_000_000_123_456)),
			tstz: 1_700_000_000_654_321, tsn: ptr(int64(1_700_000_000_123_456_789)), tstzn: ptr(int64(1_700_000_000_999_999_999)),
			name: ptr("orders"), uid: &u, fx: []byte{1, 2, 3, 4}, bin: []byte{0, 255, 10}, tags: []string{"a", "b", "a"},
			nums: []*int64{ptr(int64(1)), nil, ptr(int64(3))}, street: "Main St", geo: &[2]float64{52.1, 4.3},
			attrs: map[string]string{"k": "v", "x": "y"}, items: []evItem{{"A", ptr(int32(2))}, {"B", nil}},
			v: `{"a":1,"b":[true,"x",null],"c":{"d":"e"}}`, geom: wkbPoint(1, 2), geog: wkbPoint(3, 4),
			prices: []int64{1500, -1, 999_999_999}},
		{id: 2, amount: -1, tstz: 1_600_000_000_000_001},
		{id: 3, flag: ptr(false), i: ptr(int32(math.MinInt32)), f: ptr(float32(-1.5e-7)), d: ptr(-1.23456e100),
			amount: 9_999_999_999, day: ptr(int32(-1)), tod: ptr(int64(0)), ts: ptr(int64(-1)), tstz: 1_600_000_000_000_000,
			tsn: ptr(int64(-1_500_001)), tstzn: ptr(int64(1)), name: ptr("ünïcödé ✓ \"quoted\""), uid: &ff,
			fx: []byte{0, 0, 0, 0}, bin: []byte{}, tags: []string{}, nums: []*int64{}, street: "", geo: &[2]float64{-90, 180},
			attrs: map[string]string{}, items: []evItem{}, v: `"just text"`, geom: wkbPoint(-1.5, 0), geog: wkbPoint(0, 0),
			prices: []int64{}},
		{id: 4, i: ptr(int32(math.MaxInt32)), amount: -9_999_999_999, tstz: 1_700_000_000_000_000,
			ts: ptr(int64(-62_135_596_800_000_000)), tags: []string{"x"}, nums: []*int64{nil},
			street: "2nd", attrs: map[string]string{"only": ""}, items: []evItem{{"C", ptr(int32(-7))}}, v: `42`},
	}
}

// createEveryTypeTable writes evRows into a v3 Iceberg table (SQL catalog
// on sqlite, local warehouse) with iceberg-go and returns it reloaded.
func createEveryTypeTable(t *testing.T, ctx context.Context) *table.Table {
	t.Helper()
	dir := t.TempDir()
	cat := lakefixture.OpenT(t, lakefixture.Options{Name: "lake", DBPath: filepath.Join(dir, "catalog.db"), Warehouse: "file://" + filepath.Join(dir, "wh")}).Catalog
	if err := cat.CreateNamespace(ctx, table.Identifier{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	ident := table.Identifier{"sales", "orders"}
	tbl, err := cat.CreateTable(ctx, ident, everyType(t), icecatalog.WithProperties(iceberg.Properties{"format-version": "3"}))
	if err != nil {
		t.Fatalf("create v3 table: %v", err)
	}
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	rec := buildEveryTypeRecord(t, sc, evRows())
	defer rec.Release()
	at := array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
	defer at.Release()
	if _, err := tbl.AppendTable(ctx, at, int64(rec.NumRows()), nil); err != nil {
		t.Fatalf("append rows: %v", err)
	}
	tbl, err = cat.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func buildEveryTypeRecord(t *testing.T, sc *arrow.Schema, rows []evRow) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, r := range rows {
		appendEvScalars(t, b, sc, r)
		appendEvNested(t, b, sc, r)
	}
	return b.NewRecordBatch()
}

func field(t *testing.T, b *array.RecordBuilder, sc *arrow.Schema, name string) array.Builder {
	t.Helper()
	idx := sc.FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("Arrow schema has no column %q", name)
	}
	return b.Field(idx[0])
}

// storage unwraps an extension builder (geoarrow WKB) to its storage.
func storage(b array.Builder) array.Builder {
	if e, ok := b.(interface{ StorageBuilder() array.Builder }); ok {
		return e.StorageBuilder()
	}
	return b
}

func opt[T any](b array.Builder, v *T, app func(T)) {
	if v == nil {
		b.AppendNull()
		return
	}
	app(*v)
}

func optBytes(b array.Builder, v []byte, app func([]byte)) {
	if v == nil {
		b.AppendNull()
		return
	}
	app(v)
}

func appendEvScalars(t *testing.T, b *array.RecordBuilder, sc *arrow.Schema, r evRow) {
	f := func(n string) array.Builder { return field(t, b, sc, n) }
	f("id").(*array.Int64Builder).Append(r.id)
	opt(f("flag"), r.flag, f("flag").(*array.BooleanBuilder).Append)
	opt(f("i"), r.i, f("i").(*array.Int32Builder).Append)
	opt(f("f"), r.f, f("f").(*array.Float32Builder).Append)
	opt(f("d"), r.d, f("d").(*array.Float64Builder).Append)
	f("amount").(*array.Decimal128Builder).Append(decimal128.FromI64(r.amount))
	opt(f("day"), r.day, func(v int32) { f("day").(*array.Date32Builder).Append(arrow.Date32(v)) })
	opt(f("tod"), r.tod, func(v int64) { f("tod").(*array.Time64Builder).Append(arrow.Time64(v)) })
	opt(f("ts"), r.ts, func(v int64) { f("ts").(*array.TimestampBuilder).Append(arrow.Timestamp(v)) })
	f("tstz").(*array.TimestampBuilder).Append(arrow.Timestamp(r.tstz))
	opt(f("tsn"), r.tsn, func(v int64) { f("tsn").(*array.TimestampBuilder).Append(arrow.Timestamp(v)) })
	opt(f("tstzn"), r.tstzn, func(v int64) { f("tstzn").(*array.TimestampBuilder).Append(arrow.Timestamp(v)) })
	opt(f("name"), r.name, f("name").(*array.StringBuilder).Append)
	opt(f("uid"), r.uid, func(v [16]byte) { f("uid").(*extensions.UUIDBuilder).Append(uuid.UUID(v)) })
	optBytes(f("fx"), r.fx, f("fx").(*array.FixedSizeBinaryBuilder).Append)
	optBytes(f("bin"), r.bin, f("bin").(*array.BinaryBuilder).Append)
	optBytes(f("geom"), r.geom, storage(f("geom")).(*array.BinaryBuilder).Append)
	optBytes(f("geog"), r.geog, storage(f("geog")).(*array.BinaryBuilder).Append)
	f("nothing").AppendNull()
}

func appendEvNested(t *testing.T, b *array.RecordBuilder, sc *arrow.Schema, r evRow) {
	f := func(n string) array.Builder { return field(t, b, sc, n) }
	if lb := f("tags").(*array.ListBuilder); r.tags == nil {
		lb.AppendNull()
	} else {
		lb.Append(true)
		for _, s := range r.tags {
			lb.ValueBuilder().(*array.StringBuilder).Append(s)
		}
	}
	if lb := f("nums").(*array.ListBuilder); r.nums == nil {
		lb.AppendNull()
	} else {
		lb.Append(true)
		for _, n := range r.nums {
			opt(lb.ValueBuilder(), n, lb.ValueBuilder().(*array.Int64Builder).Append)
		}
	}
	appendEvAddr(f("addr").(*array.StructBuilder), r)
	if mb := f("attrs").(*array.MapBuilder); r.attrs == nil {
		mb.AppendNull()
	} else {
		mb.Append(true)
		for k, v := range r.attrs {
			mb.KeyBuilder().(*array.StringBuilder).Append(k)
			mb.ItemBuilder().(*array.StringBuilder).Append(v)
		}
	}
	appendEvItems(f("items").(*array.ListBuilder), r.items)
	if lb := f("prices").(*array.ListBuilder); r.prices == nil {
		lb.AppendNull()
	} else {
		lb.Append(true)
		for _, p := range r.prices {
			lb.ValueBuilder().(*array.Decimal128Builder).Append(decimal128.FromI64(p))
		}
	}
	vb := f("v")
	if r.v == "" {
		vb.AppendNull()
	} else if err := vb.UnmarshalJSON([]byte("[" + r.v + "]")); err != nil {
		t.Fatalf("variant %s: %v", r.v, err)
	}
}

func appendEvAddr(sb *array.StructBuilder, r evRow) {
	sb.Append(true)
	sb.FieldBuilder(0).(*array.StringBuilder).Append(r.street)
	geo := sb.FieldBuilder(1).(*array.StructBuilder)
	if r.geo == nil {
		geo.AppendNull()
		return
	}
	geo.Append(true)
	geo.FieldBuilder(0).(*array.Float64Builder).Append(r.geo[0])
	geo.FieldBuilder(1).(*array.Float64Builder).Append(r.geo[1])
}

func appendEvItems(lb *array.ListBuilder, items []evItem) {
	if items == nil {
		lb.AppendNull()
		return
	}
	lb.Append(true)
	sb := lb.ValueBuilder().(*array.StructBuilder)
	for _, it := range items {
		sb.Append(true)
		sb.FieldBuilder(0).(*array.StringBuilder).Append(it.sku)
		opt(sb.FieldBuilder(1), it.qty, sb.FieldBuilder(1).(*array.Int32Builder).Append)
	}
}
