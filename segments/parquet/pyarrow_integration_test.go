//go:build integration

package parquet_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/floehq/floe/internal/parquettest"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments/internal/sourcetest"
	floeparquet "github.com/floehq/floe/segments/parquet"
)

// pyarrowSchema is the Pinot schema the pyarrow fixtures are read with.
func pyarrowSchema() *spec.Schema {
	sv := func(name string, dt spec.DataType) spec.FieldSpec {
		return spec.FieldSpec{Name: name, DataType: dt, SingleValue: true}
	}
	mv := func(name string, dt spec.DataType) spec.FieldSpec {
		return spec.FieldSpec{Name: name, DataType: dt}
	}
	return &spec.Schema{Name: "pa", Fields: []spec.FieldSpec{
		sv("i32", spec.Int), sv("i64", spec.Long), sv("f64", spec.Double), sv("s", spec.String),
		sv("dec32", spec.BigDecimal), sv("dec64", spec.BigDecimal), sv("dec128", spec.BigDecimal),
		sv("ts", spec.Timestamp), sv("d", spec.Int), mv("tags", spec.Int), mv("names", spec.String),
		sv("st", spec.JSON), sv("st_a", spec.String), sv("m", spec.JSON),
	}}
}

// TestSource_pyarrowFiles reads files pyarrow wrote (v1 pages that
// split lists, dictionary strings, INT32/INT64/FLBA decimals, INT96
// timestamps, non-compliant list names, structs, maps) and compares every
// cell with the values pyarrow was given.
func TestSource_pyarrowFiles(t *testing.T) {
	dir := writePyarrowFixtures(t)
	want := readExpectedJSONL(t, filepath.Join(dir, "expected.jsonl"))
	schema := pyarrowSchema()
	for _, file := range []string{"legacy.parquet", "int96.parquet"} {
		t.Run(file, func(t *testing.T) {
			got := readRows(t, filepath.Join(dir, file), floeparquet.Config{
				Schema: schema, BatchRows: 333, Columns: map[string]string{"st_a": "st.a"}}, len(want))
			for i := range got {
				for c, f := range schema.Fields {
					g, w := normalizeJSONValue(got[i][c]), want[i][f.Name]
					if !reflect.DeepEqual(g, w) {
						t.Fatalf("row %d column %s = %#v, want %#v", i, f.Name, g, w)
					}
				}
			}
		})
	}
}

// TestSource_pyarrowFloat16 reads the FLOAT16 column pyarrow wrote as
// Pinot FLOAT, each value equal to what pyarrow reads back.
func TestSource_pyarrowFloat16(t *testing.T) {
	dir := writePyarrowFixtures(t)
	want := readExpectedJSONL(t, filepath.Join(dir, "float16_expected.jsonl"))
	schema := &spec.Schema{Name: "t", Fields: []spec.FieldSpec{
		{Name: "id", DataType: spec.Long, SingleValue: true, FieldType: spec.Dimension},
		{Name: "h", DataType: spec.Float, SingleValue: true, FieldType: spec.Metric},
	}}
	got := readRows(t, filepath.Join(dir, "float16.parquet"), floeparquet.Config{Schema: schema}, len(want))
	for i := range got {
		if g, w := normalizeJSONValue(got[i][1]), want[i]["h"]; !reflect.DeepEqual(g, w) {
			t.Fatalf("row %d: h = %#v, pyarrow reads %#v", i, g, w)
		}
	}
}

// readRows reads a whole file through the Parquet source and checks it
// holds n rows.
func readRows(t *testing.T, path string, cfg floeparquet.Config, n int) [][]any {
	t.Helper()
	src, err := floeparquet.OpenFile(t.Context(), path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := sourcetest.ReadAll(t, src, cfg.Schema)
	if len(got) != n {
		t.Fatalf("read %d rows, want %d", len(got), n)
	}
	return got
}

// TestSource_lz4MatchesPyarrow: files in Parquet's deprecated LZ4 codec,
// Hadoop-framed and raw, read by floe give the values pyarrow reads.
func TestSource_lz4MatchesPyarrow(t *testing.T) {
	py := filepath.Join("..", "..", ".venv", "bin", "python")
	rows, schema := lz4Rows(2000), lz4Schema()
	const dump = "import json, sys, pyarrow.parquet as pq\n" +
		"for r in pq.read_table(sys.argv[1]).to_pylist():\n" +
		"    r['tags'] = r['tags'] or None\n" +
		"    print(json.dumps(r))\n"
	for _, hadoop := range []bool{true, false} {
		t.Run(fmt.Sprint("hadoop=", hadoop), func(t *testing.T) {
			path := parquettest.WriteFile(t, filepath.Join(t.TempDir(), "lz4.parquet"), rows,
				parquet.Compression(lz4Codec{hadoop: hadoop}), parquet.PageBufferSize(2048))
			out, err := exec.CommandContext(t.Context(), py, "-c", dump, path).Output()
			if err != nil {
				t.Fatalf("pyarrow read: %v (scripts/setup-python.sh makes .venv)", err)
			}
			jsonl := filepath.Join(t.TempDir(), "want.jsonl")
			if err := os.WriteFile(jsonl, out, 0o644); err != nil {
				t.Fatal(err)
			}
			want := readExpectedJSONL(t, jsonl)
			got := readRows(t, path, floeparquet.Config{Schema: schema}, len(want))
			for i := range got {
				for c, f := range schema.Fields {
					if g, w := normalizeJSONValue(got[i][c]), want[i][f.Name]; !reflect.DeepEqual(g, w) {
						t.Fatalf("row %d column %s = %#v, pyarrow reads %#v", i, f.Name, g, w)
					}
				}
			}
		})
	}
}

// writePyarrowFixtures runs testdata/pyarrow/write_fixtures.py with the
// repo venv's pyarrow and returns the directory it wrote.
func writePyarrowFixtures(t *testing.T) string {
	t.Helper()
	py := filepath.Join("..", "..", ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("pyarrow is missing: run scripts/setup-python.sh (creates .venv with pyarrow): %v", err)
	}
	dir := t.TempDir()
	if out, err := exec.CommandContext(t.Context(), py, filepath.Join("testdata", "pyarrow", "write_fixtures.py"), dir).CombinedOutput(); err != nil {
		t.Fatalf("write fixtures with pyarrow: %v\n%s", err, out)
	}
	return dir
}

func readExpectedJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, m)
	}
	return rows
}

// normalizeJSONValue maps a cell to what encoding/json decodes: numbers
// as float64, lists as []any.
func normalizeJSONValue(v any) any {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeJSONValue(e)
		}
		return out
	}
	return v
}
