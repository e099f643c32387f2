package watcher

import "github.com/floehq/floe/segments"

// Batch surgery for the build: cutting deleted rows out of a batch in
// place (the delete filter over floe's Parquet source) and splitting a
// batch where a segment ends (partSource). Single-value columns hold one
// value per row; a multi-value column's Offsets (rows+1 of them) index its
// value slice, possibly from a non-zero start.

// compactBatch keeps the rows of b that keep marks (kept of them), in
// order, in place: one value per row of a single-value column, the value
// ranges of a multi-value column's rows with their offsets.
func compactBatch(b *segments.Batch, keep []bool, kept int) {
	for c := range b.Columns {
		v := &b.Columns[c]
		v.Nulls = compactSlice(v.Nulls, keep)
		if v.Offsets != nil {
			compactMulti(v, keep, kept)
			continue
		}
		v.Ints = compactSlice(v.Ints, keep)
		v.Longs = compactSlice(v.Longs, keep)
		v.Floats = compactSlice(v.Floats, keep)
		v.Doubles = compactSlice(v.Doubles, keep)
		v.Bytes = compactSlice(v.Bytes, keep)
		v.Decimals = compactSlice(v.Decimals, keep)
	}
	b.Rows = kept
}

// compactMulti compacts a multi-value column: the kept rows' values move
// to the front of its value slice, in order, and Offsets (kept+1 of them)
// bound them anew.
func compactMulti(v *segments.Vector, keep []bool, kept int) {
	off := v.Offsets
	v.Ints = compactRanges(v.Ints, off, keep)
	v.Longs = compactRanges(v.Longs, off, keep)
	v.Floats = compactRanges(v.Floats, off, keep)
	v.Doubles = compactRanges(v.Doubles, off, keep)
	v.Bytes = compactRanges(v.Bytes, off, keep)
	v.Decimals = compactRanges(v.Decimals, off, keep)
	w := 0
	for r, k := range keep { // off[r+1]-off[r] is row r's length; off[w] ≤ off[r] is only rewritten behind r
		n := off[r+1] - off[r]
		if k {
			off[w+1] = off[w] + n
			w++
		}
	}
	v.Offsets = off[:kept+1]
}

// compactRanges keeps, in order, the values of vs that rows kept by keep
// hold (row r holds vs[off[r]:off[r+1]]); vs empty stays empty.
func compactRanges[T any](vs []T, off []int32, keep []bool) []T {
	if len(vs) == 0 {
		return vs
	}
	j := off[0]
	for r, k := range keep {
		if k {
			j += int32(copy(vs[j:], vs[off[r]:off[r+1]]))
		}
	}
	return vs[:j]
}

// splitBatch cuts b after its first k rows (0 < k < b.Rows): the two
// batches share b's value slices; a multi-value column's second part keeps
// its offsets as they are (they index the same values).
func splitBatch(b *segments.Batch, k int) (head, rest *segments.Batch) {
	head = &segments.Batch{Rows: k, Columns: make([]segments.Vector, len(b.Columns))}
	rest = &segments.Batch{Rows: b.Rows - k, Columns: make([]segments.Vector, len(b.Columns))}
	for c := range b.Columns {
		v := &b.Columns[c]
		h, r := &head.Columns[c], &rest.Columns[c]
		if v.Offsets != nil { // the value slices stay whole: the offsets index them
			*h, *r = *v, *v
			h.Offsets, r.Offsets = v.Offsets[:k+1], v.Offsets[k:]
		}
		h.Nulls, r.Nulls = cutAt(v.Nulls, k)
		if v.Offsets != nil {
			continue
		}
		h.Ints, r.Ints = cutAt(v.Ints, k)
		h.Longs, r.Longs = cutAt(v.Longs, k)
		h.Floats, r.Floats = cutAt(v.Floats, k)
		h.Doubles, r.Doubles = cutAt(v.Doubles, k)
		h.Bytes, r.Bytes = cutAt(v.Bytes, k)
		h.Decimals, r.Decimals = cutAt(v.Decimals, k)
	}
	return head, rest
}

// cutAt splits a per-row slice after row k (an empty slice stays empty in
// both parts).
func cutAt[T any](vs []T, k int) ([]T, []T) {
	if len(vs) == 0 {
		return vs, vs
	}
	return vs[:k:k], vs[k:]
}

// compactSlice keeps the values of vs whose row keep marks (vs has one
// value per row, or is empty).
func compactSlice[T any](vs []T, keep []bool) []T {
	if len(vs) == 0 {
		return vs
	}
	j := 0
	for r, k := range keep {
		if k {
			vs[j] = vs[r]
			j++
		}
	}
	return vs[:j]
}
