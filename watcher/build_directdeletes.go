package watcher

import (
	"context"
	"errors"
	"io"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
)

// directKeys binds each equality group of flt to the columns of the
// batches floe's Parquet source yields for b (b.read's fields, in order),
// when those hold the key values unchanged: every field feeds a
// single-value column, an Iceberg long or int a LONG, an int an INT, a
// string a STRING. ok is false otherwise.
func directKeys(b binding, sc *iceberg.Schema, flt *deleteFilter) (cols [][]int, types [][]spec.DataType, ok bool) {
	byID := map[int]int{}
	for i, f := range b.read.Fields {
		if f.SingleValue {
			byID[b.ids[f.Name]] = i
		}
	}
	for _, g := range flt.groups {
		var gc []int
		var gt []spec.DataType
		for _, id := range g.fields {
			i, bound := byID[id]
			f, found := sc.FindFieldByID(id)
			if !bound || !found || !unchangedKey(f.Type, b.read.Fields[i].DataType) {
				return nil, nil, false
			}
			gc, gt = append(gc, i), append(gt, b.read.Fields[i].DataType)
		}
		cols, types = append(cols, gc), append(types, gt)
	}
	return cols, types, true
}

// unchangedKey reports whether floe's Parquet source gives the values of
// an Iceberg field of type t in a column of data type dt as the key
// encoding holds them (appendKeyVector).
func unchangedKey(t iceberg.Type, dt spec.DataType) bool {
	switch t.(type) {
	case iceberg.Int64Type:
		return dt == spec.Long
	case iceberg.Int32Type:
		return dt == spec.Long || dt == spec.Int
	case iceberg.StringType:
		return dt == spec.String
	}
	return false
}

// filteredSource applies a data file's position and equality deletes to
// the batches of floe's Parquet source (B1): the deleted rows are cut out
// of each batch, in place.
type filteredSource struct {
	segments.Source
	flt   *deleteFilter
	cols  [][]int // per equality group, the batch column of each field
	types [][]spec.DataType
	keep  []bool
}

// Next returns the next batch without its deleted rows.
func (s *filteredSource) Next(ctx context.Context) (*segments.Batch, error) {
	for {
		b, err := s.Source.Next(ctx)
		if errors.Is(err, io.EOF) {
			if perr := s.flt.checkPositions(); perr != nil {
				return nil, perr
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		kept := s.mark(b)
		switch kept {
		case b.Rows:
			return b, nil
		case 0:
			continue
		}
		compactBatch(b, s.keep, kept)
		return b, nil
	}
}

// mark sets s.keep for the rows of b and returns how many are kept.
func (s *filteredSource) mark(b *segments.Batch) int {
	if cap(s.keep) < b.Rows {
		s.keep = make([]bool, b.Rows)
	}
	s.keep = s.keep[:b.Rows]
	kept := 0
	for r := range b.Rows {
		s.keep[r] = !s.deleted(b, r)
		if s.keep[r] {
			kept++
		}
	}
	return kept
}

func (s *filteredSource) deleted(b *segments.Batch, r int) bool {
	d := s.flt
	if d.atDeletedPosition() {
		return true
	}
	for gi, g := range d.groups {
		d.key = d.key[:0]
		for i, c := range s.cols[gi] {
			d.key = appendKeyVector(d.key, &b.Columns[c], s.types[gi][i], r)
		}
		if g.holds(d.key) {
			return true
		}
	}
	return false
}

// appendKeyVector appends row r of a single-value column of data type dt
// (LONG, INT or STRING, directKeys) in appendKeyValue's encoding.
func appendKeyVector(buf []byte, v *segments.Vector, dt spec.DataType, r int) []byte {
	switch {
	case v.Nulls != nil && v.Nulls[r]:
		return append(buf, 'n')
	case dt == spec.Long:
		return appendKeyInt(buf, v.Longs[r])
	case dt == spec.Int:
		return appendKeyInt(buf, int64(v.Ints[r]))
	}
	return appendKeyBytes(buf, v.Bytes[r])
}
