package segments_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/segments"
)

// Row mode (high-cardinality columns spill their values) must not change a
// single byte: a column that switched to row mode and then needed a
// dictionary after all (half its values repeat, or it is sorted) is written
// exactly as a column forced to keep its dictionary.
func TestBuild_RowModeSameBytesAsDictionary(t *testing.T) {
	const n = 150_000
	schema := &pinot.Schema{Name: "rm", Fields: []pinot.FieldSpec{
		{Name: "s", DataType: pinot.String, FieldType: pinot.Dimension, SingleValue: true},      // unique first, then repeats
		{Name: "sorted", DataType: pinot.String, FieldType: pinot.Dimension, SingleValue: true}, // unique, sorted
		{Name: "l", DataType: pinot.Long, FieldType: pinot.Metric, SingleValue: true},           // unique first, then repeats
		{Name: "mv", DataType: pinot.String, FieldType: pinot.Dimension},
	}}
	rows := make([][]any, n)
	for r := range rows {
		k := r
		if r >= 70_000 { // 70,000 distinct: row mode after 9 batches, a dictionary in the end
			k = r % 1000
		}
		rows[r] = []any{fmt.Sprintf("v%07d", k*7919%n), fmt.Sprintf("s%07d", r), int64(k * 31), []any{fmt.Sprintf("m%d", k), "x"}}
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
	forced := build([]string{"s", "sorted", "l", "mv"})
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
	schema := &pinot.Schema{Name: "hc", Fields: []pinot.FieldSpec{
		{Name: "uid", DataType: pinot.String, FieldType: pinot.Dimension, SingleValue: true},
		{Name: "amount", DataType: pinot.Double, FieldType: pinot.Metric, SingleValue: true},
		{Name: "city", DataType: pinot.String, FieldType: pinot.Dimension, SingleValue: true},
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
