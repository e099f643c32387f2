package arrow

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/convert"
)

// arrowScratch holds per-column buffers reused from batch to batch.
type arrowScratch struct {
	parent, nulls, mvNulls []bool
	idx, dict              []int
	i32                    []int32
	i64, wide              []int64
	f32                    []float32
	f64                    []float64
	bools                  []bool
	bytes                  [][]byte
}

// appendArrow fills v from one batch column. nulls (nil: none) marks null
// rows, including rows whose parent struct is null.
func (c *arrowColumn) appendArrow(v *segments.Vector, arr arrow.Array, nulls []bool) error {
	if c.field.SingleValue {
		v.Nulls = nulls
		return c.appendArrowValues(v, arr, nil)
	}
	return c.appendArrowMulti(v, arr, nulls)
}

// appendArrowMulti fills a multi-value column from a list (or, one value
// per row, from a scalar) column. Rows left without values are null.
func (c *arrowColumn) appendArrowMulti(v *segments.Vector, arr arrow.Array, nulls []bool) error {
	sc := &c.scratch
	n := arr.Len()
	idx := sc.idx[:0]
	mv := sc.mvNulls[:0]
	v.Offsets = append(v.Offsets[:0], 0)
	values := arr
	list, isList := arr.(array.ListLike)
	if isList {
		values = list.ListValues()
	}
	anyNull := false
	for r := 0; r < n; r++ {
		before := len(idx)
		if nulls == nil || !nulls[r] {
			if isList {
				start, end := list.ValueOffsets(r)
				for j := int(start); j < int(end); j++ {
					if values.IsValid(j) {
						idx = append(idx, j)
					}
				}
			} else {
				idx = append(idx, r)
			}
		}
		empty := len(idx) == before
		anyNull = anyNull || empty
		mv = append(mv, empty)
		v.Offsets = append(v.Offsets, int32(len(idx)))
	}
	sc.idx, sc.mvNulls = idx, mv
	if anyNull {
		v.Nulls = mv
	}
	return c.appendArrowValues(v, values, idx)
}

// srcPick returns vals, or the values at idx gathered into buf.
func srcPick[T any](vals []T, idx []int, buf *[]T) []T {
	if idx == nil {
		return vals
	}
	out := (*buf)[:0]
	for _, i := range idx {
		out = append(out, vals[i])
	}
	*buf = out
	return out
}

// srcPositions returns idx, or 0..n-1 when idx is nil.
func srcPositions(idx []int, n int, buf *[]int) []int {
	if idx != nil {
		return idx
	}
	out := (*buf)[:0]
	for i := 0; i < n; i++ {
		out = append(out, i)
	}
	*buf = out
	return out
}

// appendArrowValues converts arr's values at idx (nil: every slot).
func (c *arrowColumn) appendArrowValues(v *segments.Vector, arr arrow.Array, idx []int) error {
	sc, conv := &c.scratch, c.conv
	if conv.Src.Kind == convert.KindNested {
		if dict, ok := arr.(*array.Dictionary); ok {
			return c.conv.AppendJSON(v, dict.Dictionary(), dictPositions(dict, srcPositions(idx, arr.Len(), &c.scratch.idx), nil))
		}
		return c.conv.AppendJSON(v, arr, idx)
	}
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	if dict, ok := arr.(*array.Dictionary); ok {
		return c.appendArrowDictionary(v, dict, idx)
	}
	switch a := arr.(type) {
	case *array.Int64:
		conv.AppendInt64s(v, srcPick(a.Int64Values(), idx, &sc.i64))
	case *array.Int32:
		conv.AppendInt32s(v, srcPick(a.Int32Values(), idx, &sc.i32), &sc.wide)
	case *array.Float64:
		conv.AppendFloat64s(v, srcPick(a.Float64Values(), idx, &sc.f64))
	case *array.Float32:
		conv.AppendFloat32s(v, srcPick(a.Float32Values(), idx, &sc.f32))
	case *array.Timestamp:
		conv.AppendInt64s(v, srcPick(srcCastSlice[arrow.Timestamp, int64](a.TimestampValues()), idx, &sc.i64))
	case *array.Time64:
		conv.AppendInt64s(v, srcPick(srcCastSlice[arrow.Time64, int64](a.Time64Values()), idx, &sc.i64))
	case *array.Time32:
		conv.AppendInt32s(v, srcPick(srcCastSlice[arrow.Time32, int32](a.Time32Values()), idx, &sc.i32), &sc.wide)
	case *array.Date32:
		conv.AppendInt32s(v, srcPick(srcCastSlice[arrow.Date32, int32](a.Date32Values()), idx, &sc.i32), &sc.wide)
	case *array.Date64:
		days := sc.i64[:0]
		for _, i := range srcPositions(idx, a.Len(), &sc.idx) {
			days = append(days, convert.FloorDiv(int64(a.Value(i)), convert.MillisPerDay))
		}
		sc.i64 = days
		conv.AppendInt64s(v, days)
	default:
		return c.appendArrowOther(v, arr, idx)
	}
	return nil
}

// appendArrowOther converts the less common Arrow arrays value by value.
func (c *arrowColumn) appendArrowOther(v *segments.Vector, arr arrow.Array, idx []int) error {
	sc, conv := &c.scratch, c.conv
	pos := srcPositions(idx, arr.Len(), &sc.idx)
	switch a := arr.(type) {
	case *array.Boolean:
		out := sc.bools[:0]
		for _, i := range pos {
			out = append(out, a.Value(i))
		}
		sc.bools = out
		conv.AppendBools(v, out)
	case *array.Int8, *array.Int16, *array.Uint8, *array.Uint16, *array.Uint32:
		out := sc.i64[:0]
		for _, i := range pos {
			out = append(out, convert.ArrowSmallInt(a, i))
		}
		sc.i64 = out
		conv.AppendInt64s(v, out)
	case *array.Decimal128:
		for _, i := range pos {
			conv.AppendDecimal(v, segments.Decimal{Unscaled: a.Value(i).BigInt(), Scale: conv.Src.Scale})
		}
	case *array.Decimal256:
		for _, i := range pos {
			conv.AppendDecimal(v, segments.Decimal{Unscaled: a.Value(i).BigInt(), Scale: conv.Src.Scale})
		}
	default:
		out, err := convert.ArrowBytes(arr, pos, sc.bytes[:0])
		if err != nil {
			return err
		}
		sc.bytes = out
		conv.AppendByteSlices(v, out)
	}
	return nil
}

// srcCastSlice reinterprets a slice of a named integer type as its
// underlying type (same size, same layout).
func srcCastSlice[From, To any](s []From) []To {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*To)(unsafe.Pointer(&s[0])), len(s))
}

// appendArrowDictionary converts a dictionary-encoded array by reading its
// dictionary at each row's index. Null rows read entry 0 (their slot is
// ignored); a dictionary with no entries holds only nulls.
func (c *arrowColumn) appendArrowDictionary(v *segments.Vector, a *array.Dictionary, idx []int) error {
	pos := srcPositions(idx, a.Len(), &c.scratch.idx)
	if a.Dictionary().Len() == 0 {
		convert.AppendZeros(v, convert.SlotOf(c.field.DataType), len(pos))
		return nil
	}
	mapped := dictPositions(a, pos, c.scratch.dict[:0])
	c.scratch.dict = mapped
	return c.appendArrowValues(v, a.Dictionary(), mapped)
}

// dictPositions maps row positions to dictionary entries.
func dictPositions(a *array.Dictionary, pos []int, out []int) []int {
	n := a.Dictionary().Len()
	for _, i := range pos {
		j := 0
		if a.IsValid(i) {
			j = a.GetValueIndex(i)
		}
		if j < 0 || j >= n {
			j = 0
		}
		out = append(out, j)
	}
	return out
}
