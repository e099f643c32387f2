package convert

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/floehq/floe/segments"
)

// MergeNulls ORs arr's nulls into prev, reusing buf.
func MergeNulls(prev []bool, arr arrow.Array, buf *[]bool) []bool {
	if arr.NullN() == 0 {
		return prev
	}
	n := arr.Len()
	out := (*buf)[:0]
	for i := 0; i < n; i++ {
		out = append(out, arr.IsNull(i) || (prev != nil && prev[i]))
	}
	*buf = out
	return out
}

// ArrowUnit is the time unit of an Arrow time or timestamp type.
func ArrowUnit(u arrow.TimeUnit) TimeUnit {
	switch u {
	case arrow.Second:
		return Seconds
	case arrow.Millisecond:
		return Millis
	case arrow.Microsecond:
		return Micros
	}
	return Nanos
}

// ArrowSmallInt reads a narrow integer as int64.
func ArrowSmallInt(arr arrow.Array, i int) int64 {
	switch a := arr.(type) {
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Uint8:
		return int64(a.Value(i))
	case *array.Uint16:
		return int64(a.Value(i))
	case *array.Uint32:
		return int64(a.Value(i))
	}
	return 0
}

// ArrowBytes reads string and binary arrays without copying.
func ArrowBytes(arr arrow.Array, pos []int, out [][]byte) ([][]byte, error) {
	switch a := arr.(type) {
	case *array.String:
		for _, i := range pos {
			out = append(out, srcStringBytes(a.Value(i)))
		}
	case *array.LargeString:
		for _, i := range pos {
			out = append(out, srcStringBytes(a.Value(i)))
		}
	case *array.StringView:
		for _, i := range pos {
			out = append(out, srcStringBytes(a.Value(i)))
		}
	case *array.Binary:
		for _, i := range pos {
			out = append(out, a.Value(i))
		}
	case *array.LargeBinary:
		for _, i := range pos {
			out = append(out, a.Value(i))
		}
	case *array.BinaryView:
		for _, i := range pos {
			out = append(out, a.Value(i))
		}
	case *array.FixedSizeBinary:
		for _, i := range pos {
			out = append(out, a.Value(i))
		}
	default:
		return out, fmt.Errorf("%w: Arrow array %s", segments.ErrUnsupportedSourceType, arr.DataType())
	}
	return out, nil
}

// srcStringBytes views a string's bytes without copying; the builder copies
// what it keeps and never writes to them.
func srcStringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
