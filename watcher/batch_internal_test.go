package watcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
)

// partSource cuts parts of exactly max rows (the last smaller), splitting
// the batches that cross a part's end, single-value and multi-value
// columns alike, every row once and in order: ceil(rows/max) parts
// whatever the batch size (I9: the count a streamed replacement names).
func TestPartSource_CutsExactly(t *testing.T) {
	sc := &spec.Schema{Fields: []spec.FieldSpec{{Name: "id", DataType: spec.Long, SingleValue: true},
		{Name: "tags", DataType: spec.String}}}
	var rows [][]any
	var want []string
	for i := range 23 {
		tags := []any{}
		for j := range i % 3 {
			tags = append(tags, fmt.Sprintf("t%d.%d", i, j))
		}
		row := []any{int64(i), tags}
		if i%5 == 4 {
			row[1] = nil
		}
		rows = append(rows, row)
		want = append(want, fmt.Sprintf("%d:%v", i, row[1]))
	}
	for _, batch := range []int{1, 4, 5, 7, 23, 100} {
		p := &partSource{src: segments.NewMemorySource(sc, rows, batch), max: 5}
		var sizes []int
		var got []string
		for {
			p.next()
			n := 0
			for {
				b, err := p.Next(context.Background())
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				n += b.Rows
				got = append(got, rowsOf(b)...)
			}
			sizes = append(sizes, n)
			if !p.more(context.Background()) {
				break
			}
		}
		if !slices.Equal(sizes, []int{5, 5, 5, 5, 3}) || !slices.Equal(got, want) {
			t.Fatalf("batches of %d: parts %v (want 5,5,5,5,3), rows %v, want %v", batch, sizes, got, want)
		}
	}
}

// rowsOf renders the rows of b as id:tags (tags nil for a null row).
func rowsOf(b *segments.Batch) []string {
	var out []string
	for r := range b.Rows {
		mv := b.Columns[1]
		var tags any
		if mv.Nulls == nil || !mv.Nulls[r] {
			var list []any
			for _, v := range mv.Bytes[mv.Offsets[r]:mv.Offsets[r+1]] {
				list = append(list, string(v))
			}
			tags = list
		}
		out = append(out, fmt.Sprintf("%d:%v", b.Columns[0].Longs[r], tags))
	}
	return out
}
