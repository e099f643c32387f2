package segments_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/read"
)

// Row mode (high-cardinality columns spill their values) must not change a
// single byte: a column that switched to row mode and then needed a
// dictionary after all (half its values repeat, or it is sorted) is written
// exactly as a column forced to keep its dictionary.
func TestBuild_RowModeSameBytesAsDictionary(t *testing.T) {
	const n = 150_000
	schema := &spec.Schema{Name: "rm", Fields: []spec.FieldSpec{
		{Name: "s", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true},      // unique first, then repeats
		{Name: "sorted", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true}, // unique, sorted
		{Name: "l", DataType: spec.Long, FieldType: spec.Metric, SingleValue: true},           // unique first, then repeats
		{Name: "mv", DataType: spec.String, FieldType: spec.Dimension},
		{Name: "u16", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true}, // UTF-16 order differs
		{Name: "pre", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true}, // long shared prefix
		{Name: "raw", DataType: spec.Bytes, FieldType: spec.Dimension, SingleValue: true},  // bytes >= 0xEE
	}}
	highs := []string{"\uE000", "\U0001F600", "\uFFFD", "a", "\u00E9", ""}
	rows := make([][]any, n)
	for r := range rows {
		k := r
		if r >= 70_000 { // 70,000 distinct: row mode after 9 batches, a dictionary in the end
			k = r % 1000
		}
		rows[r] = []any{fmt.Sprintf("v%07d", k*7919%n), fmt.Sprintf("s%07d", r), int64(k * 31), []any{fmt.Sprintf("m%d", k), "x"},
			highs[k%len(highs)] + fmt.Sprint(k*31%n) + highs[k/7%len(highs)],
			"a-shared-prefix-longer-than-16-bytes/" + fmt.Sprint(k*7%n),
			[]byte{0xEF, byte(k >> 16), byte(k >> 8), byte(k), 0xFF}}
	}
	build := func(dict []string) string {
		out := t.TempDir()
		cfg := segments.Config{Schema: schema, TableName: "rm", SegmentName: "rm_0", CreationTime: time.UnixMilli(1), Dictionary: dict}
		res, err := segments.Build(context.Background(), segments.NewMemorySource(schema, rows, 8192), cfg, out)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Columns {
			if c.Encoding != segments.EncodingDictionary {
				t.Fatalf("%s: %s, want DICTIONARY", c.Name, c.Encoding)
			}
		}
		return res.Dir
	}
	auto := build(nil)
	forced := build([]string{"s", "sorted", "l", "mv", "u16", "pre", "raw"})
	for _, f := range []string{"columns.psf", "index_map", "metadata.properties", "creation.meta"} {
		a, _ := os.ReadFile(filepath.Join(auto, "v3", f))
		b, _ := os.ReadFile(filepath.Join(forced, "v3", f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the row-mode and the dictionary path", f)
		}
	}
}

// High-cardinality columns go raw automatically, through row mode.
func TestBuild_AutoRawHighCardinality(t *testing.T) {
	const n = 100_000
	schema := &spec.Schema{Name: "hc", Fields: []spec.FieldSpec{
		{Name: "uid", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true},
		{Name: "amount", DataType: spec.Double, FieldType: spec.Metric, SingleValue: true},
		{Name: "city", DataType: spec.String, FieldType: spec.Dimension, SingleValue: true},
	}}
	rows := make([][]any, n)
	for r := range rows {
		rows[r] = []any{fmt.Sprintf("%x", uint64(r)*0x9E3779B97F4A7C15), float64(r*7919%n) / 3, fmt.Sprintf("c%d", r%10)}
	}
	cfg := segments.Config{Schema: schema, TableName: "hc", SegmentName: "hc_0", CreationTime: time.UnixMilli(1)}
	res, err := segments.Build(context.Background(), segments.NewMemorySource(schema, rows, 4096), cfg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"uid": segments.EncodingRaw, "amount": segments.EncodingRaw, "city": segments.EncodingDictionary}
	for _, c := range res.Columns {
		if c.Encoding != want[c.Name] {
			t.Errorf("%s: %s, want %s", c.Name, c.Encoding, want[c.Name])
		}
		if c.Name == "uid" && (c.Cardinality != n || c.Compression != segments.LZ4) {
			t.Errorf("uid: cardinality %d compression %s", c.Cardinality, c.Compression)
		}
		if c.Name == "amount" && c.Compression != segments.PassThrough {
			t.Errorf("amount: compression %s", c.Compression)
		}
	}
}

// Fixed-width row mode: a raw column is written straight from the spill, an
// in-order column gets running ids, an unordered one searched ids, and
// floats sort by their bits. Every value must read back as it went in, with
// the metadata a dictionary build would give.
func TestBuild_NumericRowModeRoundTrip(t *testing.T) {
	const n = 140_000
	schema := &spec.Schema{Name: "nr", Fields: []spec.FieldSpec{
		{Name: "d", DataType: spec.Double, FieldType: spec.Metric, SingleValue: true},    // unique, raw
		{Name: "f", DataType: spec.Float, FieldType: spec.Metric, SingleValue: true},     // unique, raw
		{Name: "ts", DataType: spec.Long, FieldType: spec.Dimension, SingleValue: true},  // ascending with repeats
		{Name: "i", DataType: spec.Int, FieldType: spec.Dimension, SingleValue: true},    // unique first, then repeats
		{Name: "g", DataType: spec.Double, FieldType: spec.Dimension, SingleValue: true}, // negatives, dictionary
		{Name: "l", DataType: spec.Long, FieldType: spec.Dimension, SingleValue: true},   // negatives, unordered
	}}
	rows := make([][]any, n)
	for r := range rows {
		k := r
		if r >= 70_000 {
			k = r % 5000
		}
		sign := float64(1 - 2*(r%2))
		rows[r] = []any{sign * float64(r*7919%n) / 7, float32(sign) * float32(r*104729%n) / 3,
			int64(r / 2), int32(k*7919%n - n/2), sign * float64(k) / 4, int64(sign) * int64(k) << 33}
	}
	cfg := segments.Config{Schema: schema, TableName: "nr", SegmentName: "nr_0", CreationTime: time.UnixMilli(1)}
	res, err := segments.Build(context.Background(), segments.NewMemorySource(schema, rows, 8192), cfg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"d": segments.EncodingRaw, "f": segments.EncodingRaw, "ts": segments.EncodingDictionary,
		"i": segments.EncodingDictionary, "g": segments.EncodingDictionary, "l": segments.EncodingDictionary}
	for _, c := range res.Columns {
		if c.Encoding != want[c.Name] {
			t.Errorf("%s: %s, want %s", c.Name, c.Encoding, want[c.Name])
		}
		if c.Name == "ts" && (!c.Sorted || c.Cardinality != n/2) {
			t.Errorf("ts: sorted %v cardinality %d, want sorted, %d", c.Sorted, c.Cardinality, n/2)
		}
	}
	seg, err := read.Open(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for ci, f := range schema.Fields {
		d, err := seg.ReadColumn(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		distinct := map[any]bool{}
		for r, v := range d.Values {
			if v != rows[r][ci] {
				t.Fatalf("%s row %d: read %v (%T), wrote %v", f.Name, r, v, v, rows[r][ci])
			}
			distinct[v] = true
		}
		if got := res.Columns[ci].Cardinality; got != len(distinct) {
			t.Errorf("%s: cardinality %d, want %d", f.Name, got, len(distinct))
		}
	}
}
