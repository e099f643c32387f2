package parquet_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"

	"github.com/floehq/floe/internal/parquettest"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/sourcetest"
	floeparquet "github.com/floehq/floe/segments/parquet"
)

type pqNested struct {
	A string `parquet:"a"`
	B *int32 `parquet:"b,optional"`
}

// pqRow exercises every physical type and the common logical types.
type pqRow struct {
	I32     int32            `parquet:"i32"`
	I16     int16            `parquet:"i16,int(16)"`
	OptI64  *int64           `parquet:"opt_i64,optional"`
	F32     float32          `parquet:"f32"`
	F64     *float64         `parquet:"f64,optional"`
	Flag    bool             `parquet:"flag"`
	OptFlag *bool            `parquet:"opt_flag,optional"`
	Str     *string          `parquet:"str,optional,dict"`
	Bin     []byte           `parquet:"bin"`
	Fixed   [4]byte          `parquet:"fixed"`
	TsUs    int64            `parquet:"ts_us,timestamp(microsecond)"`
	TsMs    int64            `parquet:"ts_ms,timestamp(millisecond)"`
	TsNs    int64            `parquet:"ts_ns,timestamp(nanosecond)"`
	Day     int32            `parquet:"day,date"`
	TimeUs  int64            `parquet:"time_us,time(microsecond)"`
	Dec32   int32            `parquet:"dec32,decimal(2:9)"`
	Dec64   int64            `parquet:"dec64,decimal(3:18)"`
	DecFix  [16]byte         `parquet:"dec_fix,decimal(4:38)"`
	ID      [16]byte         `parquet:"id,uuid"`
	Tags    []int32          `parquet:"tags,list"`
	Names   []string         `parquet:"names,list"`
	Nested  *pqNested        `parquet:"nested,optional"`
	Attrs   map[string]int32 `parquet:"attrs"`
	Legacy  deprecated.Int96 `parquet:"legacy"`
}

const pqRows = 530

func strp(s string) *string { return &s }

func makePQRow(i int) pqRow {
	r := pqRow{
		I32: int32(i*7 - 100), I16: int16(-i), F32: float32(i) / 4, Flag: i%3 == 0,
		Bin:  bytes.Repeat([]byte{byte(i)}, i%5),
		TsUs: 1_700_000_000_000_000 + int64(i)*1_234_567 - 50_000_000, TsMs: 1_600_000_000_000 + int64(i),
		TsNs: -int64(i) * 999_999, Day: int32(19000 + i - 20), TimeUs: int64(i) * 3_600_000_001,
		Dec32: int32(i*101 - 2000), Dec64: int64(i) * -1_000_000_007,
		Tags: make([]int32, i%4), Attrs: map[string]int32{fmt.Sprint("k", i): int32(i)},
		Legacy: deprecated.Int96{uint32(i * 1_000_000), 0, uint32(2_440_588 + i)},
	}
	r.Fixed = [4]byte{byte(i), 1, 2, 3}
	big.NewInt(int64(i) * -98_765_432_101).FillBytes(r.DecFix[:])
	if i%2 == 1 { // negative two's complement for odd rows
		n := new(big.Int).Lsh(big.NewInt(1), 128)
		n.Sub(n, big.NewInt(int64(i)*98_765_432_101))
		n.FillBytes(r.DecFix[:])
	}
	r.ID = uuid.NewSHA1(uuid.NameSpaceOID, []byte(fmt.Sprint(i)))
	for j := range r.Tags {
		r.Tags[j] = int32(i*10 + j)
	}
	if i%4 != 1 {
		v := int64(i) << 33
		r.OptI64 = &v
		f := float64(i) * 1.5
		r.F64 = &f
		b := i%2 == 0
		r.OptFlag = &b
		r.Str = strp([]string{"alpha", "beta", "gamma"}[i%3])
		r.Names = []string{"x", fmt.Sprint(i)}
		b32 := int32(i)
		r.Nested = &pqNested{A: fmt.Sprint("n", i), B: &b32}
	}
	return r
}

// writePQFile writes rows in row groups of 200 with small pages.
func writePQFile(t *testing.T, rows []pqRow, opts ...parquet.WriterOption) string {
	t.Helper()
	opts = append([]parquet.WriterOption{parquet.PageBufferSize(256), parquet.MaxRowsPerRowGroup(200)}, opts...)
	return parquettest.WriteFile(t, filepath.Join(t.TempDir(), "types.parquet"), rows, opts...)
}

func pqSchema() *spec.Schema {
	sv := func(name string, dt spec.DataType) spec.FieldSpec {
		return spec.FieldSpec{Name: name, DataType: dt, SingleValue: true, FieldType: spec.Dimension}
	}
	mv := sv("tags", spec.Long)
	mv.SingleValue = false
	names := sv("names", spec.String)
	names.SingleValue = false
	return &spec.Schema{Name: "t", Fields: []spec.FieldSpec{
		sv("i32", spec.Int), sv("i16", spec.Long), sv("opt_i64", spec.Long), sv("f32", spec.Double),
		sv("f64", spec.Double), sv("flag", spec.Boolean), sv("opt_flag", spec.Boolean), sv("str", spec.String),
		sv("bin", spec.Bytes), sv("fixed", spec.Bytes), sv("ts_us", spec.Timestamp), sv("ts_ms", spec.Long),
		sv("ts_ns", spec.Timestamp), sv("day", spec.Timestamp), sv("time_us", spec.Long), sv("dec32", spec.BigDecimal),
		sv("dec64", spec.BigDecimal), sv("dec_fix", spec.BigDecimal), sv("id", spec.String), mv, names,
		sv("nested", spec.JSON), sv("nested_a", spec.String), sv("attrs", spec.JSON), sv("legacy", spec.Timestamp),
		sv("day_int", spec.Int),
	}}
}

// expectedPQRow computes what each Pinot column should hold, with Go's
// own time, uuid and big-number code.
func expectedPQRow(r pqRow) []any {
	var optI64, f64, optFlag, str, nested, nestedA, names any
	if r.OptI64 != nil {
		optI64, f64, optFlag, str = *r.OptI64, *r.F64, boolInt(*r.OptFlag), *r.Str
		nested = fmt.Sprintf(`{"a":%q,"b":%d}`, r.Nested.A, *r.Nested.B)
		nestedA = r.Nested.A
		names = []any{r.Names[0], r.Names[1]}
	}
	var tags any
	for _, x := range r.Tags {
		tags = append(asSlice(tags), any(int64(x)))
	}
	dec := new(big.Int).SetBytes(r.DecFix[:])
	if r.DecFix[0]&0x80 != 0 {
		dec.Sub(dec, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	legacy := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(r.Legacy[2])-2_440_588).Add(time.Duration(r.Legacy[0])).UnixMilli()
	return []any{
		int64(r.I32), int64(r.I16), optI64, float64(r.F32), f64, boolInt(r.Flag), optFlag, str,
		string(r.Bin), string(r.Fixed[:]), time.UnixMicro(r.TsUs).UnixMilli(), r.TsMs,
		time.Unix(0, r.TsNs).UnixMilli(), time.Unix(int64(r.Day)*86400, 0).UnixMilli(), r.TimeUs,
		fmt.Sprintf("%de-2", r.Dec32), fmt.Sprintf("%de-3", r.Dec64), fmt.Sprintf("%se-4", dec),
		uuid.UUID(r.ID).String(), tags, names, nested, nestedA,
		fmt.Sprintf(`{"k%d":%d}`, r.Legacy[2]-2_440_588, r.Legacy[2]-2_440_588), legacy, int64(r.Day),
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func TestSource_Next(t *testing.T) {
	var rows []pqRow
	for i := 0; i < pqRows; i++ {
		rows = append(rows, makePQRow(i))
	}
	schema := pqSchema()
	for _, tc := range []struct{ batchRows, pageVersion int }{{7, 2}, {64, 2}, {100000, 2}, {7, 1}, {100000, 1}} {
		path := writePQFile(t, rows, parquet.DataPageVersion(tc.pageVersion), parquet.Compression(&parquet.Zstd))
		batchRows := tc.batchRows
		t.Run(fmt.Sprintf("batch %d page v%d", tc.batchRows, tc.pageVersion), func(t *testing.T) {
			src, err := floeparquet.OpenFile(context.Background(), path, floeparquet.Config{
				Schema: schema, BatchRows: batchRows,
				Columns: map[string]string{"nested_a": "nested.a", "day_int": "day"},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			got := sourcetest.ReadAll(t, src, schema)
			if len(got) != len(rows) {
				t.Fatalf("read %d rows, want %d", len(got), len(rows))
			}
			for i, r := range rows {
				want := expectedPQRow(r)
				for c, f := range schema.Fields {
					if fmt.Sprint(got[i][c]) != fmt.Sprint(want[c]) {
						t.Errorf("row %d column %s = %v, want %v", i, f.Name, got[i][c], want[c])
					}
				}
			}
		})
	}
}

func TestSource_pagesAndGroups(t *testing.T) {
	var rows []pqRow
	for i := 0; i < pqRows; i++ {
		rows = append(rows, makePQRow(i))
	}
	path := writePQFile(t, rows)
	pf := openMetadata(t, path)
	if n := len(pf.RowGroups()); n < 3 {
		t.Fatalf("fixture has %d row groups, want ≥3 so batches cross row groups", n)
	}
	pages := pf.RowGroups()[0].ColumnChunks()[0].Pages()
	defer pages.Close()
	n := 0
	for ; ; n++ {
		if _, err := pages.ReadPage(); err != nil {
			break
		}
	}
	if n < 2 {
		t.Fatalf("fixture column chunk has %d pages, want ≥2 so batches cross pages", n)
	}
}

type badRow struct {
	ID   int64  `parquet:"id"`
	Name string `parquet:"name"`
	U64  uint64 `parquet:"u64,uint(64)"`
}

func writeBadFile(t *testing.T, n int) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[badRow](&buf, parquet.PageBufferSize(128), parquet.Compression(&parquet.Snappy))
	for i := 0; i < n; i++ {
		if _, err := w.Write([]badRow{{ID: int64(i), Name: strings.Repeat("x", i%7), U64: uint64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bad.parquet")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, buf.Bytes()
}

func TestOpenParquetFile_errors(t *testing.T) {
	path, data := writeBadFile(t, 500)
	long := func(name string) *spec.Schema {
		return &spec.Schema{Name: "t", Fields: []spec.FieldSpec{{Name: name, DataType: spec.Long, SingleValue: true}}}
	}
	truncated := filepath.Join(t.TempDir(), "truncated.parquet")
	if err := os.WriteFile(truncated, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, column string
		schema             *spec.Schema
		want               error
	}{
		{"truncated", truncated, "", long("id"), segments.ErrCorruptSource},
		{"unsupported physical type", path, "u64", long("u64"), segments.ErrUnsupportedSourceType},
		{"string into LONG", path, "name", long("name"), segments.ErrUnsupportedConversion},
		{"missing column", path, "nope", long("nope"), segments.ErrColumnMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := floeparquet.OpenFile(context.Background(), tt.file, floeparquet.Config{Schema: tt.schema})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.file) || !strings.Contains(err.Error(), tt.column) {
				t.Errorf("error %q does not name file %s and column %q", err, tt.file, tt.column)
			}
		})
	}
}

func TestSource_Next_corruptPages(t *testing.T) {
	path, data := writeBadFile(t, 500)
	// Overwrite the column data (everything between the magic and the
	// footer's first quarter) with garbage, keeping the footer intact.
	bad := append([]byte(nil), data...)
	for i := 4; i < len(bad)/2; i++ {
		bad[i] = byte(i*31 + 7)
	}
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	schema := &spec.Schema{Name: "t", Fields: []spec.FieldSpec{{Name: "id", DataType: spec.Long, SingleValue: true}}}
	src, err := floeparquet.OpenFile(context.Background(), path, floeparquet.Config{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for {
		_, err = src.Next(context.Background())
		if err != nil {
			break
		}
	}
	if !errors.Is(err, segments.ErrCorruptSource) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "column id") {
		t.Fatalf("err = %v, want segments.ErrCorruptSource naming %s and column id", err, path)
	}
}

func TestInferParquetSchema(t *testing.T) {
	path := writePQFile(t, []pqRow{makePQRow(0), makePQRow(1)})
	pf := openMetadata(t, path)
	inf, err := floeparquet.InferSchema(pf, "tbl", "ts_us", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(inf.Skipped) != 0 {
		t.Errorf("skipped %v", inf.Skipped)
	}
	s := inf.Schema
	want := map[string]string{
		"i32": "INT sv", "i16": "INT sv", "opt_i64": "LONG sv", "f32": "FLOAT sv", "f64": "DOUBLE sv",
		"flag": "BOOLEAN sv", "str": "STRING sv", "bin": "BYTES sv", "fixed": "BYTES sv", "ts_us": "TIMESTAMP sv",
		"ts_ns": "TIMESTAMP sv", "day": "INT sv", "time_us": "LONG sv", "dec32": "BIG_DECIMAL sv",
		"dec_fix": "BIG_DECIMAL sv", "id": "STRING sv", "tags": "INT mv", "names": "STRING mv",
		"nested": "JSON sv", "attrs": "JSON sv", "legacy": "TIMESTAMP sv",
	}
	for name, w := range want {
		f, ok := s.Field(name)
		if !ok {
			t.Errorf("no field %s", name)
			continue
		}
		kind := "sv"
		if !f.SingleValue {
			kind = "mv"
		}
		if got := fmt.Sprintf("%s %s", f.DataType, kind); got != w {
			t.Errorf("field %s = %s, want %s", name, got, w)
		}
	}
	ts, _ := s.Field("ts_us")
	if ts.FieldType != spec.DateTime || ts.Format != "1:MILLISECONDS:TIMESTAMP" {
		t.Errorf("time column = %+v", ts)
	}
	if opt, _ := s.Field("opt_i64"); opt.NotNull {
		t.Errorf("optional column inferred notNull")
	}
	if req, _ := s.Field("i32"); !req.NotNull {
		t.Errorf("required column not inferred notNull")
	}
	if _, err := floeparquet.InferSchema(pf, "tbl", "nope", nil); !errors.Is(err, segments.ErrColumnMismatch) {
		t.Errorf("missing time column: err = %v", err)
	}
}
