package convert

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"

	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/text"
)

// AppendJSON appends the JSON text of arr's values at idx (nil: every
// slot) to v.Bytes, nil for a null value; the text lives in c.Arena.
func (c *Converter) AppendJSON(v *segments.Vector, arr arrow.Array, idx []int) error {
	n := len(idx)
	if idx == nil {
		n = arr.Len()
	}
	for k := 0; k < n; k++ {
		i := k
		if idx != nil {
			i = idx[k]
		}
		if arr.IsNull(i) {
			v.Bytes = append(v.Bytes, nil)
			continue
		}
		start := len(c.Arena)
		var err error
		if c.Arena, err = appendJSON(c.Arena, arr, i); err != nil {
			return err
		}
		v.Bytes = append(v.Bytes, c.Arena[start:len(c.Arena):len(c.Arena)])
	}
	return nil
}

// appendJSON appends the JSON text of arr[i]. Struct fields keep the
// schema's order; map entries keep their order; binaries are base64;
// timestamps are epoch millis; dates are ISO dates; NaN and infinities
// become null (JSON has no such numbers).
func appendJSON(dst []byte, arr arrow.Array, i int) ([]byte, error) {
	if arr.IsNull(i) {
		return append(dst, "null"...), nil
	}
	switch a := arr.(type) {
	case *array.Struct:
		return appendStructJSON(dst, a, i)
	case *array.Map:
		return appendMapJSON(dst, a, i)
	case array.ListLike:
		return appendListJSON(dst, a, i)
	case *extensions.VariantArray:
		val, err := a.Value(i)
		if err != nil {
			return dst, fmt.Errorf("%w: decode variant: %v", segments.ErrCorruptSource, err)
		}
		b, err := val.MarshalJSON()
		if err != nil {
			return dst, fmt.Errorf("%w: render variant: %v", segments.ErrCorruptSource, err)
		}
		return append(dst, b...), nil
	case *extensions.UUIDArray:
		dst = append(dst, '"')
		dst = text.AppendUUID(dst, a.Storage().(*array.FixedSizeBinary).Value(i))
		return append(dst, '"'), nil
	case array.ExtensionArray:
		return appendJSON(dst, a.Storage(), i)
	}
	return appendScalarJSON(dst, arr, i)
}

func appendStructJSON(dst []byte, a *array.Struct, i int) ([]byte, error) {
	st := a.DataType().(*arrow.StructType)
	dst = append(dst, '{')
	for f := 0; f < a.NumField(); f++ {
		if f > 0 {
			dst = append(dst, ',')
		}
		dst = text.AppendJSONString(dst, st.Field(f).Name)
		dst = append(dst, ':')
		var err error
		if dst, err = appendJSON(dst, a.Field(f), i); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func appendMapJSON(dst []byte, a *array.Map, i int) ([]byte, error) {
	start, end := a.ValueOffsets(i)
	keys, items := a.Keys(), a.Items()
	dst = append(dst, '{')
	for j := int(start); j < int(end); j++ {
		if j > int(start) {
			dst = append(dst, ',')
		}
		key, err := appendJSON(nil, keys, j)
		if err != nil {
			return dst, err
		}
		if len(key) > 0 && key[0] == '"' {
			dst = append(dst, key...)
		} else {
			dst = text.AppendJSONString(dst, string(key))
		}
		dst = append(dst, ':')
		if dst, err = appendJSON(dst, items, j); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func appendListJSON(dst []byte, a array.ListLike, i int) ([]byte, error) {
	start, end := a.ValueOffsets(i)
	values := a.ListValues()
	dst = append(dst, '[')
	for j := int(start); j < int(end); j++ {
		if j > int(start) {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendJSON(dst, values, j); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// appendScalarJSON renders a primitive value.
func appendScalarJSON(dst []byte, arr arrow.Array, i int) ([]byte, error) {
	switch a := arr.(type) {
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i)), nil
	case *array.Float32:
		return srcJSONFloat(dst, float64(a.Value(i)), 32), nil
	case *array.Float64:
		return srcJSONFloat(dst, a.Value(i), 64), nil
	case *array.Decimal128:
		return append(dst, segments.Decimal{Unscaled: a.Value(i).BigInt(), Scale: a.DataType().(*arrow.Decimal128Type).Scale}.String()...), nil
	case *array.Decimal256:
		return append(dst, segments.Decimal{Unscaled: a.Value(i).BigInt(), Scale: a.DataType().(*arrow.Decimal256Type).Scale}.String()...), nil
	case *array.Timestamp:
		u := ArrowUnit(a.DataType().(*arrow.TimestampType).Unit)
		return strconv.AppendInt(dst, ToMillis(int64(a.Value(i)), u), 10), nil
	case *array.Date32:
		return srcJSONDate(dst, int64(a.Value(i))), nil
	case *array.Date64:
		return srcJSONDate(dst, FloorDiv(int64(a.Value(i)), MillisPerDay)), nil
	case *array.Time64:
		u := ArrowUnit(a.DataType().(*arrow.Time64Type).Unit)
		return strconv.AppendInt(dst, ToMicros(int64(a.Value(i)), u), 10), nil
	case *array.Time32:
		u := ArrowUnit(a.DataType().(*arrow.Time32Type).Unit)
		return strconv.AppendInt(dst, ToMicros(int64(a.Value(i)), u), 10), nil
	case *array.String, *array.LargeString, *array.StringView:
		b, _ := ArrowBytes(arr, []int{i}, nil)
		return text.AppendJSONString(dst, string(b[0])), nil
	case *array.Binary, *array.LargeBinary, *array.BinaryView, *array.FixedSizeBinary:
		b, _ := ArrowBytes(arr, []int{i}, nil)
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, b[0])
		return append(dst, '"'), nil
	case *array.Int8, *array.Int16, *array.Uint8, *array.Uint16, *array.Uint32:
		return strconv.AppendInt(dst, ArrowSmallInt(a, i), 10), nil
	case *array.Int32:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), nil
	case *array.Int64:
		return strconv.AppendInt(dst, a.Value(i), 10), nil
	case *array.Uint64:
		return strconv.AppendUint(dst, a.Value(i), 10), nil
	case *array.Null:
		return append(dst, "null"...), nil
	}
	return dst, fmt.Errorf("%w: Arrow type %s inside a nested value", segments.ErrUnsupportedSourceType, arr.DataType())
}

func srcJSONFloat(dst []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}

func srcJSONDate(dst []byte, days int64) []byte {
	dst = append(dst, '"')
	dst = time.Unix(days*86400, 0).UTC().AppendFormat(dst, time.DateOnly)
	return append(dst, '"')
}
