//go:build integration

package segments_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/floehq/floe/internal/pinottest"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
)

// This test proves the writer with Pinot's own loader (ImmutableSegmentLoader +
// PinotSegmentRecordReader, Pinot 1.5.1): every data type × SV/MV ×
// dictionary/raw × nullable/not-null × every raw codec, edge values, sorted
// and inverted columns, a one-row segment, long MV lists, V4 huge values and
// a 1,100,000-row segment crossing every chunk boundary. Every value Pinot
// reads back is compared with what Pinot's ingestion rules say it must be.

// edge is an input value and what Pinot must store for it (want == nil:
// the input itself; dropped: the value becomes null / is dropped from MV).
type edge struct {
	in      any
	want    any
	dropped bool
}

func str(s string) edge                     { return edge{in: s} }
func strTo(s, want string) edge             { return edge{in: s, want: want} }
func strBytesTo(b []byte, want string) edge { return edge{in: b, want: want} }

var longASCII = strings.Repeat("x", 600)

// edges lists per data type the values every column cycles through.
func edges(t spec.DataType) []edge {
	switch t {
	case spec.Int:
		return []edge{{in: int32(0)}, {in: int32(1)}, {in: int32(-1)}, {in: int32(math.MinInt32)}, {in: int32(math.MaxInt32)}, {in: int32(42)}}
	case spec.Boolean:
		return []edge{{in: true, want: int32(1)}, {in: false, want: int32(0)}, {in: int32(7), want: int32(1)}}
	case spec.Long:
		return []edge{{in: int64(0)}, {in: int64(math.MinInt64)}, {in: int64(math.MaxInt64)}, {in: int64(-5)}, {in: int64(1) << 40}}
	case spec.Timestamp:
		return []edge{{in: int64(0)}, {in: int64(1700000000000)}, {in: int64(-1)}, {in: int64(253402300799999)}}
	case spec.Float:
		return []edge{{in: float32(1.5)}, {in: float32(math.NaN()), dropped: true}, {in: float32(math.Inf(1))},
			{in: float32(math.Inf(-1))}, {in: float32(math.Copysign(0, -1)), want: float32(0)},
			{in: float32(math.MaxFloat32)}, {in: float32(math.SmallestNonzeroFloat32)}, {in: float32(-3.25)}}
	case spec.Double:
		return []edge{{in: 1.5}, {in: math.NaN(), dropped: true}, {in: math.Inf(1)}, {in: math.Inf(-1)},
			{in: math.Copysign(0, -1), want: 0.0}, {in: math.MaxFloat64}, {in: math.SmallestNonzeroFloat64}, {in: 1e-300}, {in: -2.5e17}}
	case spec.String:
		return []edge{
			str(""), str("héllo"), str("日本語"), str("😀 emoji"), str("\uE000 private"), str("San, Jose"),
			str(" lead"), str("trail "), str(`back\slash`), str("tab\tnew\nline"),
			strTo("a\x00b", "a"),
			strBytesTo([]byte("\xff\xfeok"), "\uFFFD\uFFFDok"),
			strBytesTo([]byte("x\xe2\x82"), "x\uFFFD"),
			strBytesTo([]byte("\xed\xa0\x80z"), "\uFFFDz"),
			strBytesTo([]byte("\xe0\x80\x80"), "\uFFFD\uFFFD\uFFFD"),
			strBytesTo([]byte("\xf0\x9f\x98"), "\uFFFD"),
			strTo(longASCII, longASCII[:512]),
			strTo(strings.Repeat("a", 511)+"😀", strings.Repeat("a", 511)+"?"),
			strTo(strings.Repeat("é", 600), strings.Repeat("é", 512)),
		}
	case spec.JSON:
		return []edge{str(`{"a":1}`), str(`[]`), str(""), str(`{"k":"` + longASCII + `"}`), str(`{"u":"日本"}`),
			strTo(`{"n":1}`+"\x00tail", `{"n":1}`)}
	case spec.Bytes:
		return []edge{{in: []byte{}}, {in: []byte{0x00, 0xff}}, {in: bytes.Repeat([]byte{0xab}, 1000)}, {in: []byte("plain")}}
	case spec.BigDecimal:
		return []edge{{in: "0"}, {in: "1.50"}, {in: "-123456789012345678901234567890.123456789"}, {in: "1E+5"},
			{in: "-1"}, {in: "100"}, {in: "0.000000000000000000000000000001"}, {in: "98765432109876543210E-3"}}
	}
	panic(t)
}

// column is one generated column: its spec, config lists and input values.
type genColumn struct {
	spec     spec.FieldSpec
	raw      bool
	dict     bool
	inverted bool
	values   []any  // inputs, one per row
	nullAs   any    // what a null becomes, when not the default null value
	auto     string // expected automatic encoding, when checked
}

// genValues builds n inputs for a column: edge values in turn, with nulls
// every 7th row for nullable columns, MV rows of 0..5 values with nil
// elements, plus one long list.
func genValues(t spec.DataType, sv, withNulls bool, n, seed int) []any {
	es := edges(t)
	out := make([]any, n)
	for r := 0; r < n; r++ {
		if withNulls && (r+seed)%7 == 3 {
			continue
		}
		if sv {
			out[r] = es[(r+seed)%len(es)].in
			continue
		}
		k := (r + seed) % 6
		list := make([]any, 0, k)
		for i := 0; i < k; i++ {
			if i == 2 && withNulls {
				list = append(list, nil)
				continue
			}
			list = append(list, es[(r*3+i+seed)%len(es)].in)
		}
		out[r] = list
	}
	return out
}

// expect returns what Pinot must read for input v of field f.
func expect(c genColumn, v any, nullHandling bool) pinottest.Value {
	f := c.spec
	def := defaultOf(f)
	if c.nullAs != nil {
		def = c.nullAs
	}
	nullable := nullHandling && !f.NotNull
	if f.SingleValue {
		w, ok := expectScalar(f.DataType, v)
		if !ok {
			return pinottest.Value{Null: nullable, V: def}
		}
		return pinottest.Value{V: w}
	}
	list, _ := v.([]any)
	var out []any
	for _, e := range list {
		if e == nil {
			continue
		}
		if w, ok := expectScalar(f.DataType, e); ok {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return pinottest.Value{Null: nullable, V: []any{def}}
	}
	return pinottest.Value{V: out}
}

func expectScalar(t spec.DataType, v any) (any, bool) {
	if v == nil {
		return nil, false
	}
	for _, e := range edges(t) {
		if same(e.in, v) {
			if e.dropped {
				return nil, false
			}
			if e.want != nil {
				return canon(t, e.want), true
			}
			break
		}
	}
	return canon(t, v), true
}

func same(a, b any) bool {
	switch x := a.(type) {
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case float32:
		y, ok := b.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	}
	return a == b
}

// canon converts an input into the type the harness reports.
func canon(t spec.DataType, v any) any {
	switch t {
	case spec.Boolean:
		switch x := v.(type) {
		case bool:
			if x {
				return int32(1)
			}
			return int32(0)
		}
	case spec.String, spec.JSON:
		if b, ok := v.([]byte); ok {
			return string(b)
		}
	case spec.BigDecimal:
		r, ok := new(big.Rat).SetString(v.(string))
		if !ok {
			panic(v)
		}
		return r
	}
	return v
}

func defaultOf(f spec.FieldSpec) any {
	s := f.DefaultNullValueString()
	switch f.DataType {
	case spec.Int, spec.Boolean:
		var i int32
		fmt.Sscan(s, &i)
		return i
	case spec.Long, spec.Timestamp:
		var i int64
		fmt.Sscan(s, &i)
		return i
	case spec.Float:
		if s == "-Infinity" {
			return float32(math.Inf(-1))
		}
		return float32(0)
	case spec.Double:
		if s == "-Infinity" {
			return math.Inf(-1)
		}
		return 0.0
	case spec.Bytes:
		return []byte{}
	case spec.BigDecimal:
		r, _ := new(big.Rat).SetString(s)
		return r
	}
	return s
}

func equalValue(want, got pinottest.Value) bool {
	if want.Null != got.Null {
		return false
	}
	if wl, ok := want.V.([]any); ok {
		gl, ok := got.V.([]any)
		if !ok || len(gl) != len(wl) {
			return false
		}
		for i := range wl {
			if !equalScalar(wl[i], gl[i]) {
				return false
			}
		}
		return true
	}
	return equalScalar(want.V, got.V)
}

func equalScalar(w, g any) bool {
	switch x := w.(type) {
	case *big.Rat:
		y, ok := g.(*big.Rat)
		return ok && x.Cmp(y) == 0
	case []byte:
		y, ok := g.([]byte)
		return ok && bytes.Equal(x, y)
	}
	return same(w, g)
}

// segCase is one segment to build and check.
type segCase struct {
	name         string
	nullHandling bool
	cols         []genColumn
	rows         int
	compression  string
	sorted       string
	timeColumn   string
}

func (sc segCase) schema() *spec.Schema {
	s := &spec.Schema{Name: "t", EnableColumnNullHandle: sc.nullHandling}
	for _, c := range sc.cols {
		s.Fields = append(s.Fields, c.spec)
	}
	return s
}

func (sc segCase) config() segments.Config {
	cfg := segments.Config{Schema: sc.schema(), TableName: "floe_it", SegmentName: sc.name,
		SortedColumn: sc.sorted, TimeColumn: sc.timeColumn, CreationTime: time.UnixMilli(1_700_000_000_000),
		Compression: map[string]string{}}
	for _, c := range sc.cols {
		if c.raw {
			cfg.NoDictionary = append(cfg.NoDictionary, c.spec.Name)
			if sc.compression != "" {
				cfg.Compression[c.spec.Name] = sc.compression
			}
		}
		if c.dict {
			cfg.Dictionary = append(cfg.Dictionary, c.spec.Name)
		}
		if c.inverted {
			cfg.Inverted = append(cfg.Inverted, c.spec.Name)
		}
	}
	return cfg
}

func (sc segCase) source() segments.Source {
	rows := make([][]any, sc.rows)
	for r := range rows {
		row := make([]any, len(sc.cols))
		for i, c := range sc.cols {
			row[i] = c.values[r]
		}
		rows[r] = row
	}
	return segments.NewMemorySource(sc.schema(), rows, 1000)
}

// matrixCase: every type × SV/MV × dict/raw × nullable/not-null, raw
// columns with the given codec.
func matrixCase(name, codec string, nullHandling bool, rows int) segCase {
	sc := segCase{name: name, nullHandling: nullHandling, rows: rows, compression: codec}
	for ti, t := range spec.DataTypes {
		for _, sv := range []bool{true, false} {
			if !sv && (t == spec.JSON || t == spec.BigDecimal) {
				continue // Pinot has no MV JSON or BIG_DECIMAL
			}
			for _, raw := range []bool{false, true} {
				for _, notNull := range []bool{false, true} {
					n := fmt.Sprintf("%s_%s_%s_%s", strings.ToLower(string(t)), map[bool]string{true: "sv", false: "mv"}[sv],
						map[bool]string{true: "raw", false: "dict"}[raw], map[bool]string{true: "nn", false: "null"}[notNull])
					spec := spec.FieldSpec{Name: n, DataType: t, FieldType: spec.Dimension, SingleValue: sv, NotNull: notNull}
					sc.cols = append(sc.cols, genColumn{spec: spec, raw: raw, dict: !raw,
						values: genValues(t, sv, true, rows, ti*3+len(sc.cols))})
				}
			}
		}
	}
	// Metrics (SV only) with their own defaults.
	for _, t := range []spec.DataType{spec.Int, spec.Long, spec.Float, spec.Double, spec.BigDecimal, spec.Bytes} {
		n := "metric_" + strings.ToLower(string(t))
		sc.cols = append(sc.cols, genColumn{spec: spec.FieldSpec{Name: n, DataType: t, FieldType: spec.Metric, SingleValue: true},
			values: genValues(t, true, true, rows, len(sc.cols))})
	}
	return sc
}

func TestPinotReadsFloeSegments(t *testing.T) {
	h := pinottest.New(t)
	ctx := context.Background()
	out := t.TempDir()
	var cases []segCase
	for _, codec := range []string{"LZ4", "PASS_THROUGH", "SNAPPY", "ZSTANDARD"} {
		cases = append(cases, matrixCase("matrix_"+strings.ToLower(codec), codec, true, 300))
	}
	cases = append(cases, matrixCase("matrix_no_null_handling", "", false, 120))
	cases = append(cases, matrixCase("one_row", "", true, 1))
	cases = append(cases, specialCase(), propertiesCase())
	cases = append(cases, hugeValueCases()...)
	var dirs []string
	results := map[string]*segments.Result{}
	for _, sc := range cases {
		res, err := segments.Build(ctx, sc.source(), sc.config(), out)
		if err != nil {
			t.Fatalf("build %s: %v", sc.name, err)
		}
		results[sc.name] = res
		dirs = append(dirs, res.Dir)
	}
	// Every segment again as the tarball floe uploads (S4), unpacked by
	// Pinot's own untar.
	for _, sc := range cases {
		dirs = append(dirs, writeTarball(t, results[sc.name].Dir, filepath.Join(out, sc.name+".tar.gz")))
	}
	dumps := h.ReadSegments(t, dirs)
	for i, sc := range cases {
		checkDump(t, sc, results[sc.name], dumps[i])
		checkDump(t, sc, results[sc.name], dumps[len(cases)+i])
	}
}

// writeTarball packs a segment directory with WriteTarGz.
func writeTarball(t *testing.T, dir, path string) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := segments.WriteTarGz(t.Context(), dir, f); err != nil {
		t.Fatal(err)
	}
	return path
}

func checkDump(t *testing.T, sc segCase, res *segments.Result, d pinottest.SegmentDump) {
	t.Helper()
	if d.TotalDocs != sc.rows || len(d.Rows) != sc.rows {
		t.Fatalf("%s: Pinot read %d docs / %d rows, want %d", sc.name, d.TotalDocs, len(d.Rows), sc.rows)
	}
	if want := fmt.Sprint(res.CRC); d.CRC != want {
		t.Errorf("%s: crc %s, want %s", sc.name, d.CRC, want)
	}
	bad := 0
	for _, c := range sc.cols {
		name := c.spec.Name
		info, ok := d.Columns[name]
		if !ok {
			t.Errorf("%s: Pinot has no column %s", sc.name, name)
			continue
		}
		if c.auto != "" && info.HasDictionary != (c.auto == segments.EncodingDictionary) {
			t.Errorf("%s/%s: hasDictionary=%v, want %s", sc.name, name, info.HasDictionary, c.auto)
		}
		if c.auto == "" && info.HasDictionary == c.raw {
			t.Errorf("%s/%s: hasDictionary=%v, want %v", sc.name, name, info.HasDictionary, !c.raw)
		}
		if name == sc.sorted && !info.Sorted {
			t.Errorf("%s/%s: Pinot does not see the column as sorted", sc.name, name)
		}
		if c.inverted && !info.HasInvertedIndex && !info.Sorted {
			t.Errorf("%s/%s: no inverted index", sc.name, name)
		}
		var wants []pinottest.Value
		for r := 0; r < sc.rows; r++ {
			want := expect(c, c.values[r], sc.nullHandling)
			wants = append(wants, want)
			got := d.Rows[r][name]
			if !equalValue(want, got) {
				bad++
				if bad <= 20 {
					t.Errorf("%s/%s row %d: Pinot read %s, want %s (input %s)", sc.name, name, r, show(got), show(want), show(pinottest.Value{V: c.values[r]}))
				}
			}
		}
		checkMinMax(t, sc.name, c.spec, info, wants)
		if def := defaultOf(c.spec); !equalScalar(def, info.DefaultNullValue.V) {
			t.Errorf("%s/%s: Pinot default null value %s, want %s", sc.name, name, show(info.DefaultNullValue), show(pinottest.Value{V: def}))
		}
	}
	if bad > 20 {
		t.Errorf("%s: %d mismatches in all", sc.name, bad)
	}
	t.Logf("%s: %d rows × %d columns checked against Pinot (%d mismatches)", sc.name, sc.rows, len(sc.cols), bad)
}

// checkMinMax compares Pinot's parsed min/max with the expected values.
func checkMinMax(t *testing.T, seg string, f spec.FieldSpec, info pinottest.ColumnInfo, wants []pinottest.Value) {
	t.Helper()
	var all []any
	for _, w := range wants {
		if l, ok := w.V.([]any); ok {
			all = append(all, l...)
		} else {
			all = append(all, w.V)
		}
	}
	less := func(a, b any) bool { return compareAny(f.DataType, a, b) < 0 }
	lo, hi := all[0], all[0]
	for _, v := range all[1:] {
		if less(v, lo) {
			lo = v
		}
		if less(hi, v) {
			hi = v
		}
	}
	if f.DataType.StoredType() == spec.String {
		invalid := func(s string) bool {
			return len(utf16.Encode([]rune(s))) > 512 || strings.ContainsFunc(s, func(r rune) bool { return r >= 0x10000 })
		}
		if invalid(lo.(string)) || invalid(hi.(string)) {
			if !info.MinMaxValueInvalid && info.Min.V != nil {
				t.Errorf("%s/%s: min/max should be invalid, Pinot has %s..%s", seg, f.Name, show(info.Min), show(info.Max))
			}
			return
		}
	}
	if !equalScalar(lo, info.Min.V) || !equalScalar(hi, info.Max.V) {
		t.Errorf("%s/%s: Pinot min/max %s..%s, want %s..%s", seg, f.Name, show(info.Min), show(info.Max),
			show(pinottest.Value{V: lo}), show(pinottest.Value{V: hi}))
	}
}

// compareAny orders expected values like Pinot does (independent of the
// writer's code: UTF-16 order via utf16.Encode).
func compareAny(t spec.DataType, a, b any) int {
	switch x := a.(type) {
	case int32:
		return cmpOrdered(x, b.(int32))
	case int64:
		return cmpOrdered(x, b.(int64))
	case float32:
		return cmpOrdered(x, b.(float32))
	case float64:
		return cmpOrdered(x, b.(float64))
	case *big.Rat:
		return x.Cmp(b.(*big.Rat))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case string:
		return slices.Compare(utf16.Encode([]rune(x)), utf16.Encode([]rune(b.(string))))
	}
	panic(fmt.Sprintf("%T", a))
}

func show(v pinottest.Value) string {
	s := fmt.Sprintf("%#v", v.V)
	if r, ok := v.V.(*big.Rat); ok {
		s = r.RatString()
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	if v.Null {
		s += " (null)"
	}
	return s
}

// specialCase: a sorted column, inverted indexes (SV and MV), a time column,
// long MV lists.
func specialCase() segCase {
	const n = 5000
	sorted := make([]any, n)
	inv := make([]any, n)
	invMV := make([]any, n)
	longMV := make([]any, n)
	ts := make([]any, n)
	for r := 0; r < n; r++ {
		sorted[r] = int32(r / 7)
		inv[r] = fmt.Sprintf("v%03d", r%97)
		invMV[r] = []any{int64(r % 13), int64(r % 5), int64(r % 13)}
		if r%1000 == 0 {
			list := make([]any, 20000)
			for i := range list {
				list[i] = fmt.Sprintf("e%d", i%3000)
			}
			longMV[r] = list
		} else {
			longMV[r] = []any{"a"}
		}
		ts[r] = int64(1_700_000_000_000 + r*1000)
	}
	ts[17] = nil // null in the time column: default 0 is outside the valid range → creation time
	return segCase{name: "special", nullHandling: true, rows: n, sorted: "sorted_int", timeColumn: "ts", cols: []genColumn{
		{spec: spec.FieldSpec{Name: "sorted_int", DataType: spec.Int, FieldType: spec.Dimension, SingleValue: true}, values: sorted},
		{spec: spec.FieldSpec{Name: "inv_str", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true}, inverted: true, values: inv},
		{spec: spec.FieldSpec{Name: "inv_mv", DataType: spec.Long, FieldType: spec.Dimension}, inverted: true, values: invMV},
		{spec: spec.FieldSpec{Name: "long_mv_dict", DataType: spec.String, FieldType: spec.Dimension}, dict: true, values: longMV},
		{spec: spec.FieldSpec{Name: "long_mv_raw", DataType: spec.String, FieldType: spec.Dimension}, raw: true, values: longMV},
		{spec: spec.FieldSpec{Name: "ts", DataType: spec.Timestamp, FieldType: spec.DateTime, SingleValue: true,
			Format: "1:MILLISECONDS:TIMESTAMP", Granularity: "1:MILLISECONDS"}, values: ts, nullAs: int64(1_700_000_000_000)},
	}}
}

// hugeValueCases: raw BYTES values larger than the V4 chunk, per codec: two
// huge chunks, each after regular chunks of small values. The chunk is
// 1 MiB (the cap, segments/doc.go), so a value just over it is a huge
// chunk; larger ones prove nothing more and cost seconds under -race.
func hugeValueCases() []segCase {
	var out []segCase
	for _, codec := range []string{"LZ4", "PASS_THROUGH", "SNAPPY", "ZSTANDARD"} {
		vals := make([]any, 50)
		for r := range vals {
			size := 10 + r
			if r%25 == 3 {
				size = 1<<20 + r // > 1 MiB chunk
			}
			b := make([]byte, size)
			for i := range b {
				b[i] = byte(i*7 + r)
			}
			vals[r] = b
		}
		out = append(out, segCase{name: "huge_" + strings.ToLower(codec), nullHandling: true, rows: len(vals), compression: codec,
			cols: []genColumn{{spec: spec.FieldSpec{Name: "blob", DataType: spec.Bytes, FieldType: spec.Dimension, SingleValue: true},
				raw: true, values: vals}}})
	}
	return out
}

// TestPinotReadsBigSegment builds 1,100,000 rows (crossing every chunk
// boundary: 1024-doc fixed chunks, MV 2048-value chunks, V4 chunk sizes)
// and checks every value with Pinot.
func TestPinotReadsBigSegment(t *testing.T) {
	h := pinottest.New(t)
	const n = 1_100_003
	cols := []genColumn{
		{spec: spec.FieldSpec{Name: "id", DataType: spec.Long, FieldType: spec.Metric, SingleValue: true}},
		{spec: spec.FieldSpec{Name: "price", DataType: spec.Double, FieldType: spec.Metric, SingleValue: true}, raw: true},
		{spec: spec.FieldSpec{Name: "city", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true}},
		{spec: spec.FieldSpec{Name: "uid", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true}, raw: true},
		{spec: spec.FieldSpec{Name: "tags", DataType: spec.Int, FieldType: spec.Dimension}},
		{spec: spec.FieldSpec{Name: "tags_raw", DataType: spec.String, FieldType: spec.Dimension}, raw: true},
		// No flags: high cardinality sends these through row mode to raw.
		{spec: spec.FieldSpec{Name: "uid_auto", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true}, auto: segments.EncodingRaw},
		{spec: spec.FieldSpec{Name: "rand", DataType: spec.Double, FieldType: spec.Metric, SingleValue: true}, auto: segments.EncodingRaw},
	}
	for i := range cols {
		cols[i].values = make([]any, n)
	}
	for r := 0; r < n; r++ {
		cols[0].values[r] = int64(r)
		cols[1].values[r] = float64(r) * 0.25
		if r%11 == 0 {
			cols[1].values[r] = nil
		}
		cols[2].values[r] = fmt.Sprintf("city-%d", r%1000)
		cols[3].values[r] = fmt.Sprintf("uid-%09d-%x", r, r*2654435761)
		k := r % 4
		l := make([]any, k)
		s := make([]any, k)
		for i := range l {
			l[i] = int32(r%100 + i)
			s[i] = fmt.Sprintf("t%d", (r+i)%50)
		}
		cols[4].values[r] = l
		cols[5].values[r] = s
		cols[6].values[r] = fmt.Sprintf("%x", uint64(r)*0x9E3779B97F4A7C15)
		cols[7].values[r] = float64(r*7919%n) / 7
		if r%13 == 0 {
			cols[6].values[r] = nil
			cols[7].values[r] = math.NaN()
		}
	}
	sc := segCase{name: "big", nullHandling: true, rows: n, cols: cols, compression: "ZSTANDARD"}
	start := time.Now()
	res, err := segments.Build(context.Background(), sc.source(), sc.config(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built %d rows in %v (%.0f rows/s), %d bytes", n, time.Since(start), float64(n)/time.Since(start).Seconds(), res.Bytes)
	dumps := h.ReadSegments(t, []string{res.Dir})
	checkDump(t, sc, res, dumps[0])
}

// propertiesCase: STRING min/max and defaults that need metadata.properties
// escaping (',', '\\', leading/trailing spaces, non-ASCII, control chars).
func propertiesCase() segCase {
	col := func(name, def string, vals ...string) genColumn {
		in := make([]any, 4)
		for i := range in {
			in[i] = vals[i%len(vals)]
		}
		in[3] = nil
		return genColumn{spec: spec.FieldSpec{Name: name, DataType: spec.String, FieldType: spec.Dimension,
			SingleValue: true, DefaultNullValue: def}, values: in}
	}
	return segCase{name: "properties", nullHandling: true, rows: 4, cols: []genColumn{
		col("spaces", " d ", " lead", "trail ", "  both  "),
		col("commas", "x, y", "a,b", "c,,d", ","),
		col("slashes", `\\`, `a\b`, `\\`, `z\`),
		col("unicode", "ü", "é", "日本", "\u00e9"),
		col("controls", "tab\t", "t\tx", "n\nx", "\x01"),
		col("equals", "=", "a=b", "c:d", "#!"),
	}}
}

// TestPinotReadsGoldenSegment loads the segment pinned in
// testdata/tiny/segment.golden, so the golden bytes are Pinot-proven.
func TestPinotReadsGoldenSegment(t *testing.T) {
	h := pinottest.New(t)
	res := buildTiny(t, tinyConfig())
	d := h.ReadSegments(t, []string{res.Dir})[0]
	if got := d.Metadata["custom.source"]; got != "s3://bucket/a,b.parquet" {
		t.Errorf("custom.source = %q", got)
	}
	if _, isList := d.MetadataLists["custom.source"]; isList {
		t.Error("custom.source was split into a list: ',' not escaped")
	}
	if got := d.Metadata["segment.time.unit"]; got != "MILLISECONDS" {
		t.Errorf("segment.time.unit = %q", got)
	}
	type cell struct {
		row  int
		col  string
		want pinottest.Value
	}
	cells := []cell{
		{0, "price", pinottest.Value{V: 1.5}},
		{1, "price", pinottest.Value{Null: true, V: 0.0}},
		{3, "price", pinottest.Value{Null: true, V: 0.0}}, // NaN
		{4, "price", pinottest.Value{V: 0.0}},             // -0.0
		{2, "city", pinottest.Value{Null: true, V: "null"}},
		{1, "city", pinottest.Value{V: "San, Jose"}},
		{1, "tags", pinottest.Value{Null: true, V: []any{"null"}}},
		{3, "tags", pinottest.Value{V: []any{"a", "a", "d"}}},
		{4, "tags", pinottest.Value{Null: true, V: []any{"null"}}}, // empty list
		{2, "note", pinottest.Value{V: " lead"}},
		{4, "note", pinottest.Value{V: "😀"}},
		{0, "amount", pinottest.Value{V: big.NewRat(3, 2)}},
		{2, "amount", pinottest.Value{Null: true, V: new(big.Rat)}},
		{3, "amount", pinottest.Value{V: big.NewRat(1000, 1)}},
		{4, "ts", pinottest.Value{V: int64(1700000000003)}},
	}
	for _, c := range cells {
		if got := d.Rows[c.row][c.col]; !equalValue(c.want, got) {
			t.Errorf("row %d %s: Pinot read %s, want %s", c.row, c.col, show(got), show(c.want))
		}
	}
	if info := d.Columns["tags"]; !info.HasInvertedIndex || !info.HasNullValueVector {
		t.Errorf("tags: inverted %v, null vector %v", info.HasInvertedIndex, info.HasNullValueVector)
	}
}
