package segments

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
	"slices"
	"unsafe"
)

// Row mode of a fixed-width column at finish: the spill holds every value in
// row order. distinctRows reads it once and keeps the sorted distinct values;
// then either rowIDs streams it again for each value's dictionary id, or
// writeRawRows streams it straight into the raw forward index (a raw column
// needs no ids at all).

// distinctRows reads the spilled values back and keeps their sorted
// distinct values in d.vals. It reports whether the values were already
// non-decreasing in row order.
func (d *numDict[T]) distinctRows() (_ bool, err error) {
	defer func() {
		if err != nil {
			d.sp.remove()
		}
	}()
	d.flushRows()
	if d.err != nil {
		return false, d.err
	}
	s := make([]T, d.nRows)
	if err := d.sp.readInto(valueBytes(s)); err != nil {
		return false, err
	}
	d.inOrder = nonDecreasing(s)
	if !d.inOrder {
		sortNums(s)
	}
	s = slices.Compact(s)
	if len(s) < cap(s)/2 {
		s = slices.Clone(s) // let the big buffer go
	}
	d.vals = slices.Clip(s)
	return d.inOrder, nil
}

// rowIDs (after distinctRows) streams the spill again and returns each
// value's final id: a running count when the values came in order, else a
// binary search in the distinct values. It removes the spill.
func (d *numDict[T]) rowIDs() ([]int32, error) {
	defer d.sp.remove()
	ids := make([]int32, d.nRows)
	i, id := 0, int32(-1)
	var prev T
	err := d.streamRows(rowBuf, func(vals []T) {
		if d.inOrder {
			for _, v := range vals {
				if id < 0 || v != prev {
					id, prev = id+1, v
				}
				ids[i] = id
				i++
			}
			return
		}
		for _, v := range vals {
			ids[i] = int32(searchNum(d.vals, v))
			i++
		}
	})
	return ids, err
}

// writeRawRows (after distinctRows) writes the raw SV forward index from
// the spill in row order, the same bytes as from ids, and removes the spill.
func (d *numDict[T]) writeRawRows(w io.Writer, dir string, compID int) error {
	defer d.sp.remove()
	var zero T
	if _, err := d.sp.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(d.sp.f, 1<<20)
	chunk := make([]T, fixedDocsPerChunk)
	var readErr error
	err := writeFixedChunks(w, dir, d.nRows, int(unsafe.Sizeof(zero)), compID, func(dst []byte, from, to int) []byte {
		vals := chunk[:to-from]
		if _, err := io.ReadFull(r, valueBytes(vals)); err != nil && readErr == nil {
			readErr = err
		}
		return appendBigEndian(dst, vals)
	})
	if err == nil {
		err = readErr
	}
	return err
}

// distinct is the number of distinct values (after distinctRows).
func (d *numDict[T]) distinct() int { return len(d.vals) }

// numRows is a fixed-width row-mode column, whatever its value type.
type numRows interface {
	distinctRows() (bool, error)
	distinct() int
	rowIDs() ([]int32, error)
	writeRawRows(w io.Writer, dir string, compID int) error
}

// numRows is the column's row-mode fixed-width values.
func (c *column) numRows() numRows {
	switch {
	case c.ints != nil:
		return c.ints
	case c.longs != nil:
		return c.longs
	case c.floats != nil:
		return c.floats
	}
	return c.doubles
}

// streamRows reads the spilled values in row order, n at a time.
func (d *numDict[T]) streamRows(n int, fn func([]T)) error {
	if _, err := d.sp.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(d.sp.f, 1<<20)
	chunk := make([]T, n)
	for i := 0; i < d.nRows; {
		k := min(n, d.nRows-i)
		if _, err := io.ReadFull(r, valueBytes(chunk[:k])); err != nil {
			return err
		}
		fn(chunk[:k])
		i += k
	}
	return nil
}

// nonDecreasing reports whether s is in ascending order (no NaNs here).
func nonDecreasing[T int32 | int64 | float32 | float64](s []T) bool {
	for i := 1; i < len(s); i++ {
		if s[i] < s[i-1] {
			return false
		}
	}
	return true
}

// searchNum is the index of the first element of sorted s not below v. The
// values hold no NaN, so a plain < replaces cmp.Compare's NaN handling.
func searchNum[T int32 | int64 | float32 | float64](s []T, v T) int {
	lo, hi := 0, len(s)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if s[h] < v {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// sortNums sorts ascending. 64-bit values are radix sorted as unsigned keys
// with the same order; 32-bit floats (never NaN or -0.0 here) are sorted as
// integers with the same order, which skips the NaN checks of the generic
// float comparison.
func sortNums[T int32 | int64 | float32 | float64](s []T) {
	switch v := any(s).(type) {
	case []float64:
		k := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
		for i, x := range k { // sign set: flip every bit; else set the sign
			k[i] = x ^ (uint64(int64(x)>>63) | 1<<63)
		}
		radixSort(k, nil)
		for i, x := range k {
			k[i] = x ^ (^uint64(int64(x)>>63) | 1<<63)
		}
	case []int64:
		k := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
		for i := range k {
			k[i] ^= 1 << 63
		}
		radixSort(k, nil)
		for i := range k {
			k[i] ^= 1 << 63
		}
	case []float32:
		k := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
		for i, x := range k { // negative: flip the magnitude bits (its own inverse)
			k[i] = x ^ (x >> 31 & math.MaxInt32)
		}
		slices.Sort(k)
		for i, x := range k {
			k[i] = x ^ (x >> 31 & math.MaxInt32)
		}
	default:
		slices.Sort(s)
	}
}

// appendBigEndian appends the BE bytes of each value.
func appendBigEndian[T int32 | int64 | float32 | float64](dst []byte, vals []T) []byte {
	switch v := any(vals).(type) {
	case []int32:
		for _, x := range v {
			dst = binary.BigEndian.AppendUint32(dst, uint32(x))
		}
	case []int64:
		for _, x := range v {
			dst = binary.BigEndian.AppendUint64(dst, uint64(x))
		}
	case []float32:
		for _, x := range v {
			dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(x))
		}
	case []float64:
		for _, x := range v {
			dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(x))
		}
	}
	return dst
}
