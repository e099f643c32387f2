package parquet_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"

	"github.com/floehq/floe/internal/parquettest"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/sourcetest"
	floeparquet "github.com/floehq/floe/segments/parquet"
)

// editFooter rewrites a Parquet file's footer (FileMetaData) in place:
// the pages stay as written, so the footer can lie about them.
func editFooter(t *testing.T, path string, edit func(*format.FileMetaData)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	start := len(b) - 8 - n
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[start:len(b)-8], &md); err != nil {
		t.Fatal(err)
	}
	edit(&md)
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	out := append(append([]byte{}, b[:start]...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	out = append(out, "PAR1"...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

type idRow struct {
	ID int64 `parquet:"id"`
}

type listRow struct {
	Tags []int64 `parquet:"tags,list"`
}

type int96Row struct {
	TS deprecated.Int96 `parquet:"ts"`
}

type halfRow struct {
	H [2]byte `parquet:"h"`
}

func idRows(n int) []idRow {
	rows := make([]idRow, n)
	for i := range rows {
		rows[i].ID = int64(i)
	}
	return rows
}

// brokenFile writes a file and breaks it; each case below makes one.
type brokenFile struct {
	name   string
	make   func(t *testing.T, path string)
	schema *spec.Schema
	want   error
	says   string // the message names the defect
	rg     bool   // the message names the row group
}

func longColumn(name string, mv bool) *spec.Schema {
	return &spec.Schema{Name: "t", Fields: []spec.FieldSpec{{Name: name, DataType: spec.Long, SingleValue: !mv, FieldType: spec.Dimension}}}
}

// TestSource_brokenFiles: broken and unsupported inputs fail, naming the
// file, the column and (for page data) the row group, never with invented
// values; unsupported features say "unsupported", not "corrupt".
func TestSource_brokenFiles(t *testing.T) {
	tsSchema := &spec.Schema{Name: "t", Fields: []spec.FieldSpec{{Name: "ts", DataType: spec.Timestamp, SingleValue: true, FieldType: spec.Dimension}}}
	tests := []brokenFile{
		{"pages end before the row count", func(t *testing.T, path string) {
			parquettest.WriteFile(t, path, idRows(1000), parquet.PageBufferSize(256))
			editFooter(t, path, func(md *format.FileMetaData) { md.NumRows, md.RowGroups[0].NumRows = 1100, 1100 })
		}, longColumn("id", false), segments.ErrCorruptSource, "ended before the row group's last row", true},
		{"dictionary page v1 shorter than its values", func(t *testing.T, path string) { writeShortDictPage(t, path, 1) },
			stringColumn("s"), segments.ErrCorruptSource, "dictionary-encoded page 0 holds 1000 indexes for 1100 values", true},
		{"dictionary page v2 shorter than its values", func(t *testing.T, path string) { writeShortDictPage(t, path, 2) },
			stringColumn("s"), segments.ErrCorruptSource, "dictionary-encoded page 0 holds 1000 indexes for 1100 values", true},
		{"PLAIN page v1 shorter than its values", func(t *testing.T, path string) { writeShortPlainPage(t, path, 1) },
			bytesColumn("x"), segments.ErrCorruptSource, "PLAIN page 0 holds 400 bytes of values for 110 values", true},
		{"PLAIN page v2 shorter than its values", func(t *testing.T, path string) { writeShortPlainPage(t, path, 2) },
			bytesColumn("x"), segments.ErrCorruptSource, "PLAIN page 0 holds 400 bytes of values for 110 values", true},
		{"repetition levels start at 1", writeRepAtOne, longColumn("tags", true), segments.ErrCorruptSource,
			"repetition level 1 where a row must start", true},
		{"INT96 time of day out of range", func(t *testing.T, path string) {
			rows := []int96Row{{TS: deprecated.Int96{0, 0, 2_440_588}}, {TS: deprecated.Int96{0x914f0005, 0x4e94, 2_440_588}}}
			parquettest.WriteFile(t, path, rows)
		}, tsSchema, segments.ErrCorruptSource, "INT96 timestamp with time of day", true},
		{"unsupported codec", func(t *testing.T, path string) {
			parquettest.WriteFile(t, path, idRows(10))
			editFooter(t, path, func(md *format.FileMetaData) { md.RowGroups[0].Columns[0].MetaData.Codec = format.LZO })
		}, longColumn("id", false), segments.ErrUnsupportedInput, "unsupported: Parquet compression codec LZO", true},
		{"encrypted footer", func(t *testing.T, path string) {
			parquettest.WriteFile(t, path, idRows(10))
			b, _ := os.ReadFile(path)
			copy(b[len(b)-4:], "PARE")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, longColumn("id", false), segments.ErrUnsupportedInput, "unsupported: encrypted Parquet file", false},
		{"signed plaintext footer", func(t *testing.T, path string) {
			parquettest.WriteFile(t, path, idRows(10))
			editFooterBytes(t, path, func(md *format.FileMetaData) {
				md.EncryptionAlgorithm = format.EncryptionAlgorithm{Value: &format.AesGcmV1{AadFileUnique: []byte("unique")}}
			}, func(footer []byte) []byte { return append(footer, make([]byte, 28)...) }) // nonce and tag
		}, longColumn("id", false), segments.ErrUnsupportedInput, "unsupported: encrypted Parquet file (plaintext footer", false},
		{"page over the nested reader's limit", writeHugePageClaim, structColumn("s"), segments.ErrTooLarge,
			"too large: read nested column: a Parquet page over the 256 MiB", false},
		{"unknown physical type", func(t *testing.T, path string) {
			parquettest.WriteFile(t, path, idRows(10))
			editFooter(t, path, func(md *format.FileMetaData) { md.Schema[1].Type = thrift.New(format.Type(9)) })
		}, longColumn("id", false), segments.ErrUnsupportedSourceType, "Parquet physical type 9", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "broken.parquet")
			tt.make(t, path)
			err := drainFile(t, path, tt.schema)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			col := tt.schema.Fields[0].Name
			for _, s := range []string{path, tt.says} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if !strings.HasPrefix(tt.name, "encrypted") && !strings.HasPrefix(tt.name, "signed") && !strings.Contains(err.Error(), "column "+col) {
				t.Errorf("error %q does not name column %s", err, col)
			}
			if tt.rg && !strings.Contains(err.Error(), "row group 0") {
				t.Errorf("error %q does not name the row group", err)
			}
		})
	}
}

func structColumn(name string) *spec.Schema {
	return &spec.Schema{Name: "t", Fields: []spec.FieldSpec{{Name: name, DataType: spec.JSON, SingleValue: true, FieldType: spec.Dimension}}}
}

type structRow struct {
	S struct {
		A int64  `parquet:"a"`
		B string `parquet:"b"`
	} `parquet:"s"`
}

// writeHugePageClaim writes a struct column (read by floe's reader of
// nested columns) whose first data page header claims 300 MiB uncompressed:
// valid Parquet that reader will not take.
func writeHugePageClaim(t *testing.T, path string) {
	t.Helper()
	rows := make([]structRow, 10)
	for i := range rows {
		rows[i].S.A, rows[i].S.B = int64(i), fmt.Sprint("b", i)
	}
	parquettest.WriteFile(t, path, rows, parquet.Compression(&parquet.Uncompressed))
	editFirstPageHeader(t, path, func(h *format.PageHeader) { h.UncompressedPageSize = 300 << 20 })
}

func bytesColumn(name string) *spec.Schema {
	return &spec.Schema{Name: "t", Fields: []spec.FieldSpec{{Name: name, DataType: spec.Bytes, SingleValue: true, FieldType: spec.Dimension}}}
}

func stringColumn(name string) *spec.Schema {
	return &spec.Schema{Name: "t", Fields: []spec.FieldSpec{{Name: name, DataType: spec.String, SingleValue: true, FieldType: spec.Dimension}}}
}

type dictRow struct {
	S string `parquet:"s,dict"`
}

// writeShortDictPage writes 1,000 dictionary-encoded strings in one data
// page (format version v), then makes the page header and the footer claim
// 1,100: parquet-go pads the missing indexes with 0, which would read as
// 100 made-up copies of the first dictionary entry.
func writeShortDictPage(t *testing.T, path string, v int) {
	t.Helper()
	rows := make([]dictRow, 1000)
	for i := range rows {
		rows[i].S = fmt.Sprint("v", i%7)
	}
	parquettest.WriteFile(t, path, rows, parquet.DataPageVersion(v), parquet.Compression(&parquet.Snappy))
	claimValues(t, path, 1100)
}

type plainFixedRow struct {
	X [4]byte `parquet:"x,plain"`
}

// writeShortPlainPage writes 100 four-byte values in one PLAIN data page
// (format version v, uncompressed), then makes the page header and the
// footer claim 110: parquet-go's decode buffer has room for 110, so it
// would hand out 10 values that the page never held.
func writeShortPlainPage(t *testing.T, path string, v int) {
	t.Helper()
	rows := make([]plainFixedRow, 100)
	for i := range rows {
		rows[i].X = [4]byte{'a', 'b', 'c', byte('0' + i%10)}
	}
	parquettest.WriteFile(t, path, rows, parquet.DataPageVersion(v), parquet.Compression(&parquet.Uncompressed))
	claimValues(t, path, 110)
}

// claimValues makes the first data page's header and the footer of a
// one-page file claim n values (and rows).
func claimValues(t *testing.T, path string, n int32) {
	t.Helper()
	editFirstPageHeader(t, path, func(h *format.PageHeader) {
		if d, ok := h.DataPageHeader.Get(); ok {
			d.NumValues = n
			h.DataPageHeader = thrift.New(d)
		}
		if d, ok := h.DataPageHeaderV2.Get(); ok {
			d.NumValues, d.NumRows = n, n
			h.DataPageHeaderV2 = thrift.New(d)
		}
	})
	editFooter(t, path, func(md *format.FileMetaData) {
		md.NumRows, md.RowGroups[0].NumRows, md.RowGroups[0].Columns[0].MetaData.NumValues = int64(n), int64(n), int64(n)
	})
}

// editFirstPageHeader edits the header of the first data page of the
// file's first column chunk; when the header's encoding grows, the
// chunk's sizes and the later chunks' offsets move with it.
func editFirstPageHeader(t *testing.T, path string, edit func(*format.PageHeader)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	off := openMetadata(t, path).Metadata().RowGroups[0].Columns[0].MetaData.DataPageOffset
	proto := new(thrift.CompactProtocol)
	br := bytes.NewReader(b[off:])
	var h format.PageHeader
	if err := thrift.NewDecoder(proto.NewReader(br)).Decode(&h); err != nil {
		t.Fatal(err)
	}
	size := len(b[off:]) - br.Len()
	edit(&h)
	nb, err := thrift.Marshal(proto, &h)
	if err != nil {
		t.Fatal(err)
	}
	out := append(append(append([]byte{}, b[:off]...), nb...), b[int(off)+size:]...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	shift := int64(len(nb) - size)
	if shift == 0 {
		return
	}
	editFooter(t, path, func(md *format.FileMetaData) {
		for i := range md.RowGroups[0].Columns {
			m := &md.RowGroups[0].Columns[i].MetaData
			if i == 0 {
				m.TotalCompressedSize += shift
				m.TotalUncompressedSize += shift
			} else {
				m.DataPageOffset += shift
				if m.DictionaryPageOffset > 0 {
					m.DictionaryPageOffset += shift
				}
			}
		}
	})
}

// writeRepAtOne writes a list column whose first value claims to continue
// a row (repetition level 1) that never started.
func writeRepAtOne(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	schema := parquet.SchemaOf(listRow{})
	w := parquet.NewWriter(f, schema, parquet.DataPageVersion(1))
	// tags is LIST<int64>: the leaf has max repetition 1 and max
	// definition 3 (optional list, repeated group, optional element... as
	// parquet-go lays it out); take the levels from a real row.
	var real []parquet.Row
	buf := parquet.NewBuffer(schema)
	if err := buf.Write(listRow{Tags: []int64{1, 2}}); err != nil {
		t.Fatal(err)
	}
	rows := buf.Rows()
	real = make([]parquet.Row, 1)
	if _, err := rows.ReadRows(real); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	rows.Close()
	bad := real[0].Clone()
	first := bad[0]
	bad[0] = first.Level(1, first.DefinitionLevel(), first.Column())
	if _, err := w.WriteRows([]parquet.Row{bad, real[0]}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// openMetadata opens a file's Parquet metadata for the test's duration.
func openMetadata(t *testing.T, path string) *parquet.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := floeparquet.OpenMetadata(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

// drainFile reads every batch of a file and returns the first error.
func drainFile(t *testing.T, path string, schema *spec.Schema) error {
	t.Helper()
	src, err := floeparquet.OpenFile(t.Context(), path, floeparquet.Config{Schema: schema})
	if err != nil {
		return err
	}
	defer src.Close()
	for {
		if _, err := src.Next(t.Context()); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// TestSource_float16 reads a FLOAT16 column (an annotation parquet-go
// drops) as Pinot FLOAT values, and infers FLOAT for it.
func TestSource_float16(t *testing.T) {
	halves := map[uint16]float64{0x3c00: 1, 0xc000: -2, 0x3555: 0.333251953125, 0x7bff: 65504, 0x0001: 5.960464477539063e-08}
	var rows []halfRow
	var want []float64
	for bits, v := range halves {
		rows = append(rows, halfRow{H: [2]byte{byte(bits), byte(bits >> 8)}})
		want = append(want, v)
	}
	path := parquettest.WriteFile(t, filepath.Join(t.TempDir(), "half.parquet"), rows)
	editFooter(t, path, func(md *format.FileMetaData) {
		md.Schema[1].LogicalType = format.LogicalType{Value: &format.Float16Type{}}
	})
	schema := &spec.Schema{Name: "t", Fields: []spec.FieldSpec{{Name: "h", DataType: spec.Float, SingleValue: true, FieldType: spec.Metric}}}
	src, err := floeparquet.OpenFile(t.Context(), path, floeparquet.Config{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := sourcetest.ReadAll(t, src, schema)
	for i, r := range got {
		if r[0] != want[i] {
			t.Errorf("row %d = %v, want %v", i, r[0], want[i])
		}
	}
	meta := openMetadata(t, path)
	inf, err := floeparquet.InferSchema(meta, "t", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := inf.Schema.Field("h"); f.DataType != spec.Float {
		t.Errorf("inferred %s for FLOAT16, want FLOAT", f.DataType)
	}
}

type idTaggedRow struct {
	A int64  `parquet:"a,id(7)"`
	B string `parquet:"b,id(9)"`
}

// TestSource_fieldIDs binds Pinot columns by Parquet field id, as Iceberg
// matches columns whatever their names in the file.
func TestSource_fieldIDs(t *testing.T) {
	path := parquettest.WriteFile(t, filepath.Join(t.TempDir(), "ids.parquet"), []idTaggedRow{{1, "one"}, {2, "two"}})
	schema := &spec.Schema{Name: "t", Fields: []spec.FieldSpec{
		{Name: "x", DataType: spec.String, SingleValue: true, FieldType: spec.Dimension},
		{Name: "y", DataType: spec.Long, SingleValue: true, FieldType: spec.Dimension},
	}}
	src, err := floeparquet.OpenFile(t.Context(), path, floeparquet.Config{Schema: schema, FieldIDs: map[string]int{"x": 9, "y": 7}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := sourcetest.ReadAll(t, src, schema)
	if fmt.Sprint(got) != "[[one 1] [two 2]]" {
		t.Fatalf("rows %v, want [[one 1] [two 2]]", got)
	}
	_, err = floeparquet.OpenFile(t.Context(), path, floeparquet.Config{Schema: schema, FieldIDs: map[string]int{"x": 9, "y": 8}})
	if !errors.Is(err, segments.ErrColumnMismatch) || !strings.Contains(err.Error(), "field id 8") || !strings.Contains(err.Error(), "column y") {
		t.Fatalf("missing id: err = %v", err)
	}
}

// TestSource_keyValueWithoutValue reads a file whose footer holds
// key/value metadata entries with a key and no value (file level and
// column-chunk level): the value is optional for some writers, required
// for parquet-go, so floe gives it an empty value.
func TestSource_keyValueWithoutValue(t *testing.T) {
	path := parquettest.WriteFile(t, filepath.Join(t.TempDir(), "kv.parquet"), idRows(10))
	const marker = "\x0bZZZVALUEZZZ"
	editFooterBytes(t, path, func(md *format.FileMetaData) {
		md.KeyValueMetadata = append(md.KeyValueMetadata, format.KeyValue{Key: "file", Value: marker[1:]})
		md.RowGroups[0].Columns[0].MetaData.KeyValueMetadata = []format.KeyValue{{Key: "chunk", Value: marker[1:]}}
	}, func(footer []byte) []byte {
		// Drop each value field (header 0x18, length, bytes).
		return bytes.ReplaceAll(footer, []byte("\x18"+marker), nil)
	})
	pf := openMetadata(t, path)
	if kv := pf.Metadata().RowGroups[0].Columns[0].MetaData.KeyValueMetadata; len(kv) != 1 || kv[0].Key != "chunk" || kv[0].Value != "" {
		t.Fatalf("column chunk key/value metadata %+v, want chunk with an empty value", kv)
	}
	got, err := drainRows(t, path, longColumn("id", false))
	if err != nil || got != 10 {
		t.Fatalf("read %d rows, err %v; want 10", got, err)
	}
}

// editFooterBytes is editFooter plus a last edit of the encoded footer.
func editFooterBytes(t *testing.T, path string, edit func(*format.FileMetaData), raw func([]byte) []byte) {
	t.Helper()
	editFooter(t, path, edit)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	start := len(b) - 8 - n
	footer := raw(append([]byte{}, b[start:len(b)-8]...))
	out := append(append(b[:start:start], footer...), binary.LittleEndian.AppendUint32(nil, uint32(len(footer)))...)
	if err := os.WriteFile(path, append(out, "PAR1"...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// drainRows counts the rows of a file, or returns the first error.
func drainRows(t *testing.T, path string, schema *spec.Schema) (int, error) {
	t.Helper()
	src, err := floeparquet.OpenFile(t.Context(), path, floeparquet.Config{Schema: schema})
	if err != nil {
		return 0, err
	}
	defer src.Close()
	rows := 0
	for {
		b, err := src.Next(t.Context())
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		rows += b.Rows
	}
}

// lz4Codec writes Parquet's deprecated LZ4 codec (id 5) the way parquet-mr
// does (hadoop: one frame of sizes, then the block) or older parquet-cpp
// did (one raw block). parquet-go cannot read it back; floe can.
type lz4Codec struct{ hadoop bool }

func (c lz4Codec) String() string                            { return "LZ4" }
func (c lz4Codec) CompressionCodec() format.CompressionCodec { return format.Lz4 }
func (c lz4Codec) Decode(dst, src []byte) ([]byte, error)    { return nil, errors.New("not for reading") }

func (c lz4Codec) Encode(dst, src []byte) ([]byte, error) {
	block := make([]byte, lz4.CompressBlockBound(len(src)))
	n, err := lz4.CompressBlock(src, block, nil)
	if err != nil {
		return nil, err
	}
	if n == 0 && len(src) > 0 { // incompressible: a literal-only block
		return nil, errors.New("incompressible test data")
	}
	dst = dst[:0]
	if c.hadoop {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(src)))
		dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	}
	return append(dst, block[:n]...), nil
}

type lz4Row struct {
	ID   int64   `parquet:"id"`
	Name string  `parquet:"name,dict"`
	Tags []int32 `parquet:"tags,list"`
	Opt  *string `parquet:"opt,optional"`
}

// lz4Rows makes rows with dictionary strings, lists and nulls.
func lz4Rows(n int) []lz4Row {
	rows := make([]lz4Row, n)
	for i := range rows {
		rows[i] = lz4Row{ID: int64(i) * 7, Name: fmt.Sprint("name-", i%13)}
		for j := 0; j < i%4; j++ {
			rows[i].Tags = append(rows[i].Tags, int32(i+j))
		}
		if i%5 != 0 {
			s := fmt.Sprint("opt-", i%9)
			rows[i].Opt = &s
		}
	}
	return rows
}

func lz4Schema() *spec.Schema {
	return &spec.Schema{Name: "t", Fields: []spec.FieldSpec{
		{Name: "id", DataType: spec.Long, SingleValue: true, FieldType: spec.Dimension},
		{Name: "name", DataType: spec.String, SingleValue: true, FieldType: spec.Dimension},
		{Name: "tags", DataType: spec.Int, FieldType: spec.Dimension},
		{Name: "opt", DataType: spec.String, SingleValue: true, FieldType: spec.Dimension},
	}}
}

// TestSource_lz4 reads both LZ4 variants, data pages v1 and v2, with
// dictionaries, lists and nulls, and gets the rows that were written.
func TestSource_lz4(t *testing.T) {
	rows, schema := lz4Rows(3000), lz4Schema()
	for _, hadoop := range []bool{true, false} {
		for _, v := range []int{1, 2} {
			t.Run(fmt.Sprintf("hadoop=%t page v%d", hadoop, v), func(t *testing.T) {
				path := parquettest.WriteFile(t, filepath.Join(t.TempDir(), "lz4.parquet"), rows,
					parquet.Compression(lz4Codec{hadoop: hadoop}), parquet.DataPageVersion(v),
					parquet.PageBufferSize(2048), parquet.MaxRowsPerRowGroup(1000))
				for _, rg := range openMetadata(t, path).Metadata().RowGroups {
					for _, c := range rg.Columns {
						if c.MetaData.Codec != format.Lz4 {
							t.Fatalf("the writer used codec %s, want LZ4", c.MetaData.Codec)
						}
					}
				}
				tmp := t.TempDir()
				src, err := floeparquet.OpenFile(t.Context(), path, floeparquet.Config{Schema: schema, TempDir: tmp})
				if err != nil {
					t.Fatal(err)
				}
				got := sourcetest.ReadAll(t, src, schema)
				if err := src.Close(); err != nil {
					t.Fatal(err)
				}
				if left, _ := os.ReadDir(tmp); len(left) != 0 {
					t.Errorf("Close left %d files in TempDir", len(left))
				}
				if len(got) != len(rows) {
					t.Fatalf("read %d rows, want %d", len(got), len(rows))
				}
				for i, r := range rows {
					var tags, opt any
					for _, x := range r.Tags {
						tags = append(asAnySlice(tags), any(int64(x)))
					}
					if r.Opt != nil {
						opt = *r.Opt
					}
					want := fmt.Sprint([]any{r.ID, r.Name, tags, opt})
					if g := fmt.Sprint(got[i]); g != want {
						t.Fatalf("row %d = %s, want %s", i, g, want)
					}
				}
			})
		}
	}
}

func asAnySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// TestSource_emptyDataPageV2 reads a file with an empty data page v2
// flagged compressed: its zero-length body is not a compressed stream, so
// it must be read as empty, not decompressed.
func TestSource_emptyDataPageV2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.parquet")
	writeEmptyV2Page(t, path)
	schema := longColumn("id", false)
	src, err := floeparquet.OpenFile(t.Context(), path, floeparquet.Config{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := sourcetest.ReadAll(t, src, schema)
	if len(got) != 100 {
		t.Fatalf("read %d rows, want 100", len(got))
	}
	for i, r := range got {
		if r[0] != int64(i) {
			t.Fatalf("row %d = %v, want %d", i, r[0], i)
		}
	}
}

// writeEmptyV2Page writes 100 ids in Snappy v2 pages, then puts an empty
// v2 page (no values, a zero-length body, flagged compressed) in front of
// the first data page.
func writeEmptyV2Page(t *testing.T, path string) {
	t.Helper()
	parquettest.WriteFile(t, path, idRows(100), parquet.DataPageVersion(2), parquet.Compression(&parquet.Snappy))
	off := openMetadata(t, path).Metadata().RowGroups[0].Columns[0].MetaData.DataPageOffset
	h := format.PageHeader{Type: format.DataPageV2, DataPageHeaderV2: thrift.New(format.DataPageHeaderV2{Encoding: format.Plain})}
	hb, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b[:off:off], append(hb, b[off:]...)...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	editFooter(t, path, func(md *format.FileMetaData) {
		c := &md.RowGroups[0].Columns[0]
		c.MetaData.TotalCompressedSize += int64(len(hb))
		c.ColumnIndexOffset, c.ColumnIndexLength, c.OffsetIndexOffset, c.OffsetIndexLength, c.FileOffset = 0, 0, 0, 0, 0
	})
}
