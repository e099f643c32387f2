package parquet_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/floehq/floe/segments"
	floeparquet "github.com/floehq/floe/segments/parquet"
)

// writeDecimalList writes a file with a LIST of DECIMAL(18,2) column ds,
// a DECIMAL column dec and an INT64 column id.
func writeDecimalList(t *testing.T, path string) string {
	t.Helper()
	dec := parquet.Decimal(2, 18, parquet.Int64Type)
	schema := parquet.NewSchema("t", parquet.Group{"id": parquet.Leaf(parquet.Int64Type), "ds": parquet.List(dec), "dec": dec})
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewWriter(f, schema)
	if err := w.Write(map[string]any{"id": int64(1), "ds": []int64{125, 250}, "dec": int64(7)}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestInferSchema_skipsDecimalLists: Pinot has no multi-value BIG_DECIMAL
// column, so inference skips a list of decimals with the reason and keeps
// the other columns (a single decimal stays BIG_DECIMAL).
func TestInferSchema_skipsDecimalLists(t *testing.T) {
	path := writeDecimalList(t, filepath.Join(t.TempDir(), "declist.parquet"))
	inf, err := floeparquet.InferSchema(openMetadata(t, path), "t", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := inf.Schema.Field("ds"); ok {
		f, _ := inf.Schema.Field("ds")
		t.Errorf("the list of decimals became a column: %+v", f)
	}
	if f, ok := inf.Schema.Field("dec"); !ok || f.DataType != "BIG_DECIMAL" {
		t.Errorf("single decimal: %+v, %v; want BIG_DECIMAL", f, ok)
	}
	if len(inf.Skipped) != 1 || !errors.Is(inf.Skipped[0], segments.ErrUnsupportedConversion) ||
		!strings.Contains(inf.Skipped[0].Error(), "column ds") || !strings.Contains(inf.Skipped[0].Error(), "multi-value BIG_DECIMAL") {
		t.Fatalf("skipped %v, want one entry naming ds and the Pinot rule", inf.Skipped)
	}
}
