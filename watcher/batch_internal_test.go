package watcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/watcher/plan"
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

// A unit's parts of partSize rows are exactly plannedSegments, none over
// the cap, for every record count and cap: the count the streamed
// replacement names before the build (I9), with no small last part.
func TestPartSize_GivesPlannedSegments(t *testing.T) {
	for rows := int64(1); rows <= 300; rows++ {
		for max := int64(1); max <= 60; max++ {
			u := plan.Unit{Files: []plan.File{{Rows: rows / 2}, {Rows: rows - rows/2}}}
			n, size := plannedSegments(u, max), partSize(u, max)
			parts := (rows + size - 1) / size
			if size > max || parts != int64(n) || (n > 1 && rows-(parts-1)*size > size) {
				t.Fatalf("%d rows, cap %d: %d planned, parts of %d give %d", rows, max, n, size, parts)
			}
		}
	}
	if size := partSize(plan.Unit{Files: []plan.File{{Rows: 10_000_001}}}, 5_000_000); size != 3_333_334 {
		t.Fatalf("10,000,001 rows under a 5,000,000 cap: parts of %d, want 3,333,334 (three even parts)", size)
	}
}

// A deletion vector's rows are left out of the rows a unit is planned for
// (its cardinality is exact), so a unit whose DV deletes more than a part's
// worth gives the fewer segments it is planned for; with a position
// delete file beside the DV (which may repeat its positions) nothing is
// left out.
func TestPlannedSegments_LeaveOutDeletionVectors(t *testing.T) {
	dv := func(rows int64) iceberg.DataFile {
		b, err := iceberg.NewDataFileBuilder(*iceberg.UnpartitionedSpec, iceberg.EntryContentPosDeletes, "s3://l/dv.puffin",
			iceberg.PuffinFile, nil, nil, nil, rows, 100)
		if err != nil {
			t.Fatal(err)
		}
		return b.ReferencedDataFile("s3://l/a.parquet").ContentOffset(4).ContentSizeInBytes(40).Build()
	}
	file := func(tasks ...table.FileScanTask) plan.Unit {
		return plan.Unit{Files: []plan.File{{Path: "s3://l/a.parquet", Rows: 10_000_001, Tasks: tasks}}}
	}
	for _, tc := range []struct {
		name string
		u    plan.Unit
		want int
	}{
		{"no deletes", file(table.FileScanTask{}), 3},
		{"a DV of 5,000,001 rows", file(table.FileScanTask{DeletionVectorFiles: []iceberg.DataFile{dv(5_000_001)}}), 1},
		{"a DV and a position delete file", file(table.FileScanTask{DeletionVectorFiles: []iceberg.DataFile{dv(5_000_001)},
			DeleteFiles: []iceberg.DataFile{dv(1)}}), 3},
	} {
		if got := plannedSegments(tc.u, 5_000_000); got != tc.want {
			t.Errorf("%s: %d segments planned, want %d", tc.name, got, tc.want)
		}
	}
}
