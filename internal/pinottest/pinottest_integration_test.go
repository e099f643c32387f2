//go:build integration

package pinottest_test

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/floehq/floe/internal/pinottest"
)

// inputRow is one Parquet row of the self-test file.
type inputRow struct {
	ID    int32     `parquet:"id"`
	Big   int64     `parquet:"big"`
	F     float32   `parquet:"f"`
	D     float64   `parquet:"d"`
	Name  *string   `parquet:"name,optional"`
	Raw   []byte    `parquet:"raw"`
	Flag  bool      `parquet:"flag"`
	TS    time.Time `parquet:"ts,timestamp(millisecond)"`
	Price int64     `parquet:"price,decimal(2:18)"`
	Tags  []int32   `parquet:"tags,list"`
}

const selfTestSchema = `{
  "schemaName": "harness_test",
  "dimensionFieldSpecs": [
    {"name": "id", "dataType": "INT"},
    {"name": "name", "dataType": "STRING"},
    {"name": "raw", "dataType": "BYTES"},
    {"name": "flag", "dataType": "BOOLEAN"},
    {"name": "tags", "dataType": "INT", "singleValueField": false}
  ],
  "metricFieldSpecs": [
    {"name": "big", "dataType": "LONG"},
    {"name": "f", "dataType": "FLOAT"},
    {"name": "d", "dataType": "DOUBLE"},
    {"name": "price", "dataType": "BIG_DECIMAL"}
  ],
  "dateTimeFieldSpecs": [
    {"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"}
  ]
}`

const selfTestTableConfig = `{
  "tableName": "harness_test",
  "tableType": "OFFLINE",
  "segmentsConfig": {"replication": "1", "timeColumnName": "ts"},
  "tableIndexConfig": {
    "loadMode": "MMAP",
    "nullHandlingEnabled": true,
    "invertedIndexColumns": ["name"],
    "createInvertedIndexDuringSegmentGeneration": true,
    "noDictionaryColumns": ["d"]
  },
  "tenants": {},
  "metadata": {}
}`

func strPtr(s string) *string { return &s }

func selfTestRows() []inputRow {
	base := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return []inputRow{
		{ID: 1, Big: math.MaxInt64, F: 1.5, D: 0.1, Name: strPtr("oslo"), Raw: []byte{0, 1, 0xff},
			Flag: true, TS: base, Price: 1250, Tags: []int32{3, 1, 2}},
		{ID: 2, Big: math.MinInt64, F: -3.25e-7, D: 1e300, Name: nil, Raw: []byte{0xde, 0xad},
			Flag: false, TS: base.Add(1500 * time.Millisecond), Price: -1, Tags: []int32{7}},
		{ID: 3, Big: 9007199254740993, F: float32(math.Pi), D: -2.5, Name: strPtr("zürich ☃"),
			Raw: []byte{}, Flag: true, TS: base.Add(time.Hour), Price: 0, Tags: []int32{5, 5}},
		{ID: 4, Big: 0, F: 0, D: math.SmallestNonzeroFloat64, Name: strPtr("oslo"), Raw: []byte{0x42},
			Flag: false, TS: base.Add(-time.Hour), Price: 123456789012345678, Tags: []int32{-4}},
	}
}

func TestHarness_CreateAndReadSegments(t *testing.T) {
	h := pinottest.New(t)
	dir := t.TempDir()
	in := selfTestRows()
	parquetPath := filepath.Join(dir, "input.parquet")
	if err := parquet.WriteFile(parquetPath, in); err != nil {
		t.Fatalf("write parquet: %v", err)
	}
	segDir := h.CreateSegment(t, parquetPath, []byte(selfTestSchema), []byte(selfTestTableConfig),
		filepath.Join(dir, "out"))
	tarPath := filepath.Join(dir, "seg.tar.gz")
	if err := h.Tar(t.Context(), segDir, tarPath); err != nil {
		t.Fatal(err)
	}

	dumps := h.ReadSegments(t, []string{segDir, tarPath})
	if len(dumps) != 2 {
		t.Fatalf("got %d dumps, want 2", len(dumps))
	}
	for _, d := range dumps {
		t.Run(filepath.Base(d.Path), func(t *testing.T) {
			checkSegmentShape(t, d, len(in))
			for i, want := range in {
				checkRow(t, i, d.Rows[i], want)
			}
		})
	}
}

func checkSegmentShape(t *testing.T, d pinottest.SegmentDump, rows int) {
	t.Helper()
	if d.TotalDocs != rows || len(d.Rows) != rows {
		t.Fatalf("totalDocs=%d rows=%d, want %d", d.TotalDocs, len(d.Rows), rows)
	}
	if got := d.Metadata["segment.total.docs"]; got != "4" {
		t.Errorf("metadata segment.total.docs = %q, want 4", got)
	}
	if got := d.Metadata["segment.table.name"]; got != "harness_test" {
		t.Errorf("metadata segment.table.name = %q", got)
	}
	if d.Version != "v3" {
		t.Errorf("version = %q, want v3", d.Version)
	}
	tags := d.Columns["tags"]
	if tags.SingleValue || tags.MaxNumberOfMultiValues != 3 || tags.TotalNumberOfEntries != 7 {
		t.Errorf("tags column = %+v, want MV with max 3 and 7 entries", tags)
	}
	if c := d.Columns["d"]; c.HasDictionary {
		t.Errorf("column d has a dictionary, want raw")
	}
	if c := d.Columns["name"]; !c.HasInvertedIndex || !c.HasNullValueVector || c.NullCount != 1 {
		t.Errorf("name column = %+v, want inverted index and 1 null", c)
	}
	if c := d.Columns["big"]; c.Min.V != int64(math.MinInt64) || c.Max.V != int64(math.MaxInt64) {
		t.Errorf("big min/max = %v/%v", c.Min.V, c.Max.V)
	}
}

func checkRow(t *testing.T, i int, got pinottest.Row, want inputRow) {
	t.Helper()
	eq := func(col string, g, w any) {
		t.Helper()
		if g != w {
			t.Errorf("row %d column %s = %#v (%T), want %#v (%T)", i, col, g, g, w, w)
		}
	}
	eq("id", got["id"].V, want.ID)
	eq("big", got["big"].V, want.Big)
	eq("f", got["f"].V, want.F)
	eq("d", got["d"].V, want.D)
	eq("flag", got["flag"].V, map[bool]int32{false: 0, true: 1}[want.Flag])
	eq("ts", got["ts"].V, want.TS.UnixMilli())
	eq("raw", string(got["raw"].V.([]byte)), string(want.Raw))
	if want.Name == nil {
		eq("name.Null", got["name"].Null, true)
		eq("name(default)", got["name"].V, "null")
	} else {
		eq("name.Null", got["name"].Null, false)
		eq("name", got["name"].V, *want.Name)
	}
	price, ok := got["price"].V.(*big.Rat)
	if !ok || price.Cmp(big.NewRat(want.Price, 100)) != 0 {
		t.Errorf("row %d price = %v (%s), want %d/100", i, got["price"].V, got["price"].Text, want.Price)
	}
	tags, _ := got["tags"].V.([]any)
	if len(tags) != len(want.Tags) {
		t.Fatalf("row %d tags = %v, want %v", i, tags, want.Tags)
	}
	for j := range tags {
		eq("tags", tags[j], want.Tags[j])
	}
}

func TestHarness_ReadRejectsCorruptSegment(t *testing.T) {
	h := pinottest.New(t)
	dir := t.TempDir()
	parquetPath := filepath.Join(dir, "input.parquet")
	if err := parquet.WriteFile(parquetPath, selfTestRows()); err != nil {
		t.Fatalf("write parquet: %v", err)
	}
	segDir := h.CreateSegment(t, parquetPath, []byte(selfTestSchema), []byte(selfTestTableConfig),
		filepath.Join(dir, "out"))
	tests := []struct {
		name    string
		corrupt func(t *testing.T, seg string)
		want    string
	}{
		{"truncated columns.psf", func(t *testing.T, seg string) {
			if err := os.Truncate(filepath.Join(seg, "v3", "columns.psf"), 16); err != nil {
				t.Fatal(err)
			}
		}, "load segment"},
		// name has cardinality 3 and 2 bits per dictId: all-ones bits read as dictId 3.
		{"dictId out of range", func(t *testing.T, seg string) {
			fillIndex(t, seg, "name.forward_index", 0xff)
		}, "column name: doc 0 has dictId 3 outside [0,3)"},
		// all-zero bits point every doc at dictId 0, which the inverted index contradicts.
		{"forward disagrees with inverted", func(t *testing.T, seg string) {
			fillIndex(t, seg, "name.forward_index", 0x00)
		}, "column name: inverted index for dictId 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seg := filepath.Join(t.TempDir(), filepath.Base(segDir))
			if err := os.CopyFS(seg, os.DirFS(segDir)); err != nil {
				t.Fatal(err)
			}
			tt.corrupt(t, seg)
			_, err := h.Read(t.Context(), []string{seg})
			if !errors.Is(err, pinottest.ErrSegment) {
				t.Fatalf("Read(corrupt) error = %v, want ErrSegment", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Read(corrupt) error = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

// fillIndex overwrites the payload (after the 8-byte marker) of one v3
// index entry, located through index_map, with b.
func fillIndex(t *testing.T, seg, key string, b byte) {
	t.Helper()
	indexMap, err := os.ReadFile(filepath.Join(seg, "v3", "index_map"))
	if err != nil {
		t.Fatal(err)
	}
	var start, size int64 = -1, -1
	for _, line := range strings.Split(string(indexMap), "\n") {
		k, v, ok := strings.Cut(line, " = ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			t.Fatalf("index_map line %q: %v", line, err)
		}
		switch k {
		case key + ".startOffset":
			start = n
		case key + ".size":
			size = n
		}
	}
	if start < 0 || size <= 8 {
		t.Fatalf("index_map has no usable entry %s:\n%s", key, indexMap)
	}
	f, err := os.OpenFile(filepath.Join(seg, "v3", "columns.psf"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{b}, int(size-8)), start+8); err != nil {
		t.Fatal(err)
	}
}

func TestHarness_ValidateSchema(t *testing.T) {
	h := pinottest.New(t)
	tests := []struct {
		name    string
		schema  string
		wantErr bool
	}{
		{"good", selfTestSchema, false},
		{"unknown data type", `{"schemaName":"s","dimensionFieldSpecs":[{"name":"a","dataType":"INTEGERX"}]}`, true},
		{"duplicate column", `{"schemaName":"s","dimensionFieldSpecs":[{"name":"a","dataType":"INT"}],` +
			`"metricFieldSpecs":[{"name":"a","dataType":"LONG"}]}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := h.ValidateSchema(t, []byte(tt.schema))
			if (err != nil) != tt.wantErr {
				t.Fatalf("ValidateSchema error = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, pinottest.ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
		})
	}
}

func TestHarness_ValidateTableConfig(t *testing.T) {
	h := pinottest.New(t)
	badTime := `{"tableName":"harness_test","tableType":"OFFLINE",` +
		`"segmentsConfig":{"replication":"1","timeColumnName":"nope"},"tableIndexConfig":{},"tenants":{},"metadata":{}}`
	if err := h.ValidateTableConfig(t, []byte(selfTestTableConfig), []byte(selfTestSchema)); err != nil {
		t.Fatalf("good table config: %v", err)
	}
	err := h.ValidateTableConfig(t, []byte(badTime), []byte(selfTestSchema))
	if !errors.Is(err, pinottest.ErrInvalid) {
		t.Fatalf("table config with unknown time column: error = %v, want ErrInvalid", err)
	}
	if err := h.ValidateTableConfig(t, []byte(selfTestTableConfig), nil); err != nil {
		t.Fatalf("good table config without schema: %v", err)
	}
	err = h.ValidateTableConfig(t, []byte(`{"tableName":"x","tableType":"OFFLINE"}`), nil)
	if !errors.Is(err, pinottest.ErrInvalid) || !strings.Contains(err.Error(), "segmentsConfig") {
		t.Fatalf("table config without segmentsConfig: error = %v, want ErrInvalid naming segmentsConfig", err)
	}
}
