//go:build integration

package parquet_test

import (
	"context"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/floehq/floe/internal/pinottest"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	floeparquet "github.com/floehq/floe/segments/parquet"
)

// TestBuild_parquetLoadsInPinot converts a generated Parquet file with
// every physical and logical type through parquet.Source and segments.Build, loads
// the segment with Pinot's own loader and compares every value with the
// source rows.
func TestBuild_parquetLoadsInPinot(t *testing.T) {
	h := pinottest.New(t)
	var rows []pqRow
	for i := 0; i < pqRows; i++ {
		rows = append(rows, makePQRow(i))
	}
	path := writePQFile(t, rows)
	schema := pqSchema()
	schema.EnableColumnNullHandle = true
	for _, noDict := range [][]string{nil, {"i32", "opt_i64", "str", "bin", "dec_fix", "id", "tags", "names", "nested", "legacy"}} {
		t.Run(fmt.Sprint("raw columns ", noDict), func(t *testing.T) {
			src, err := floeparquet.OpenFile(context.Background(), path, floeparquet.Config{
				Schema: schema, BatchRows: 100, Columns: map[string]string{"nested_a": "nested.a", "day_int": "day"}})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			res, err := segments.Build(context.Background(), src, segments.Config{Schema: schema, TableName: "t",
				SegmentName: "types_0", NoDictionary: noDict}, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			dump := h.ReadSegments(t, []string{res.Dir})[0]
			if len(dump.Rows) != len(rows) {
				t.Fatalf("Pinot read %d rows, want %d", len(dump.Rows), len(rows))
			}
			for i, r := range rows {
				want := expectedPQRow(r)
				for c, f := range schema.Fields {
					if got := pinotCell(dump.Rows[i][f.Name], f); got != normalizeCell(want[c], f) {
						t.Fatalf("row %d column %s: Pinot read %s, want %s", i, f.Name, got, normalizeCell(want[c], f))
					}
				}
			}
		})
	}
}

// pinotCell renders a Pinot value like sourcetest.Cell renders a segments.Vector cell.
func pinotCell(v pinottest.Value, f spec.FieldSpec) string {
	if v.Null {
		return "<nil>"
	}
	one := func(x any) string {
		switch y := x.(type) {
		case int32:
			return strconv.FormatInt(int64(y), 10)
		case float32:
			return fmt.Sprint(float64(y))
		case *big.Rat:
			return y.RatString()
		case []byte:
			return string(y)
		}
		return fmt.Sprint(x)
	}
	if list, ok := v.V.([]any); ok {
		parts := make([]string, len(list))
		for i, e := range list {
			parts[i] = one(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return one(v.V)
}

// normalizeCell renders an expected value; decimals ("Ne-S") as rationals.
func normalizeCell(v any, f spec.FieldSpec) string {
	if v == nil {
		return "<nil>"
	}
	if f.DataType == spec.BigDecimal {
		s := fmt.Sprint(v)
		unscaled, scale, _ := strings.Cut(s, "e-")
		n, _ := new(big.Int).SetString(unscaled, 10)
		sc, _ := strconv.Atoi(scale)
		return new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(sc)), nil)).RatString()
	}
	return fmt.Sprint(v)
}
