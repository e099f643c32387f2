// Package sourcetest holds the helpers the source packages' tests share:
// draining a Source into rows of plain Go values to compare.
package sourcetest

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
)

// ReadAll drains a source into rows of Go values, one per schema field
// (see Cell).
func ReadAll(t *testing.T, src segments.Source, schema *spec.Schema) [][]any {
	t.Helper()
	var rows [][]any
	for {
		b, err := src.Next(t.Context())
		if errors.Is(err, io.EOF) {
			return rows
		}
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < b.Rows; r++ {
			row := make([]any, len(schema.Fields))
			for c, f := range schema.Fields {
				row[c] = Cell(b.Columns[c], f, r)
			}
			rows = append(rows, row)
		}
	}
}

// Cell is row r of a vector as a Go value: nil for null, []any for a
// multi-value row; integers as int64, floats as float64, decimals as
// "<unscaled>e-<scale>", strings and bytes as string.
func Cell(v segments.Vector, f spec.FieldSpec, r int) any {
	if v.Nulls != nil && v.Nulls[r] {
		return nil
	}
	if !f.SingleValue {
		var out []any
		for i := v.Offsets[r]; i < v.Offsets[r+1]; i++ {
			out = append(out, scalar(v, int(i)))
		}
		return out
	}
	return scalar(v, r)
}

func scalar(v segments.Vector, i int) any {
	switch {
	case v.Ints != nil:
		return int64(v.Ints[i])
	case v.Longs != nil:
		return v.Longs[i]
	case v.Floats != nil:
		return float64(v.Floats[i])
	case v.Doubles != nil:
		return v.Doubles[i]
	case v.Decimals != nil:
		d := v.Decimals[i]
		return fmt.Sprintf("%se-%d", d.Unscaled, d.Scale)
	case v.Bytes != nil:
		return string(v.Bytes[i])
	}
	return "<no values>"
}
