package convert

import (
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/text"
)

// AppendInt64s appends integer-coded source values (integers, timestamps,
// times, dates, INT64 decimals) converted to the target type.
func (c *Converter) AppendInt64s(v *segments.Vector, in []int64) {
	switch c.Src.Kind {
	case KindTimestamp:
		if c.Target == spec.Timestamp {
			for _, x := range in {
				v.Longs = append(v.Longs, ToMillis(x, c.Src.Unit))
			}
			return
		}
		v.Longs = append(v.Longs, in...)
	case KindTime:
		for _, x := range in {
			v.Longs = append(v.Longs, ToMicros(x, c.Src.Unit))
		}
	case KindDate:
		c.appendDays(v, in)
	case KindDecimal:
		for _, x := range in {
			c.AppendDecimal(v, segments.Decimal{Unscaled: big.NewInt(x), Scale: c.Src.Scale})
		}
	default:
		c.appendIntegers(v, in)
	}
}

// appendIntegers converts plain integers.
func (c *Converter) appendIntegers(v *segments.Vector, in []int64) {
	switch c.Target {
	case spec.Int:
		for _, x := range in {
			v.Ints = append(v.Ints, int32(x))
		}
	case spec.Long, spec.Timestamp:
		v.Longs = append(v.Longs, in...)
	case spec.Float:
		for _, x := range in {
			v.Floats = append(v.Floats, float32(x))
		}
	case spec.Double:
		for _, x := range in {
			v.Doubles = append(v.Doubles, float64(x))
		}
	case spec.BigDecimal:
		for _, x := range in {
			v.Decimals = append(v.Decimals, segments.Decimal{Unscaled: big.NewInt(x)})
		}
	case spec.String:
		for _, x := range in {
			start := len(c.Arena)
			c.Arena = strconv.AppendInt(c.Arena, x, 10)
			v.Bytes = append(v.Bytes, c.Arena[start:len(c.Arena):len(c.Arena)])
		}
	}
}

// appendDays converts days since the epoch.
func (c *Converter) appendDays(v *segments.Vector, in []int64) {
	switch c.Target {
	case spec.Int:
		for _, x := range in {
			v.Ints = append(v.Ints, int32(x))
		}
	case spec.Long:
		v.Longs = append(v.Longs, in...)
	case spec.Timestamp:
		for _, x := range in {
			v.Longs = append(v.Longs, x*MillisPerDay)
		}
	case spec.String:
		for _, x := range in {
			start := len(c.Arena)
			c.Arena = time.Unix(x*86400, 0).UTC().AppendFormat(c.Arena, time.DateOnly)
			v.Bytes = append(v.Bytes, c.Arena[start:len(c.Arena):len(c.Arena)])
		}
	}
}

// AppendInt32s appends 32-bit integer-coded values; INT targets take them
// as they are, the rest widen first.
func (c *Converter) AppendInt32s(v *segments.Vector, in []int32, scratch *[]int64) {
	if c.Target == spec.Int && (c.Src.Kind == KindInt || c.Src.Kind == KindUint || c.Src.Kind == KindDate) {
		v.Ints = append(v.Ints, in...)
		return
	}
	wide := (*scratch)[:0]
	for _, x := range in {
		if c.Src.Kind == KindUint {
			wide = append(wide, int64(uint32(x)))
		} else {
			wide = append(wide, int64(x))
		}
	}
	*scratch = wide
	c.AppendInt64s(v, wide)
}

// AppendBools converts booleans.
func (c *Converter) AppendBools(v *segments.Vector, in []bool) {
	for _, b := range in {
		var x int32
		if b {
			x = 1
		}
		switch c.Target {
		case spec.Boolean, spec.Int:
			v.Ints = append(v.Ints, x)
		case spec.Long:
			v.Longs = append(v.Longs, int64(x))
		case spec.String:
			v.Bytes = append(v.Bytes, c.Text([]byte(strconv.FormatBool(b))))
		}
	}
}

// AppendFloat32s converts 32-bit floats.
func (c *Converter) AppendFloat32s(v *segments.Vector, in []float32) {
	switch c.Target {
	case spec.Float:
		v.Floats = append(v.Floats, in...)
	case spec.Double:
		for _, x := range in {
			v.Doubles = append(v.Doubles, float64(x))
		}
	case spec.String:
		for _, x := range in {
			v.Bytes = append(v.Bytes, c.Text([]byte(text.JavaFloat(float64(x), 32))))
		}
	}
}

// AppendFloat64s converts 64-bit floats.
func (c *Converter) AppendFloat64s(v *segments.Vector, in []float64) {
	switch c.Target {
	case spec.Double:
		v.Doubles = append(v.Doubles, in...)
	case spec.Float:
		for _, x := range in {
			v.Floats = append(v.Floats, float32(x))
		}
	case spec.String:
		for _, x := range in {
			v.Bytes = append(v.Bytes, c.Text([]byte(text.JavaFloat(x, 64))))
		}
	}
}

// AppendByteSlices converts byte-coded values: strings, binaries, UUIDs,
// big-endian decimals, WKB and JSON text. Slices are kept, not copied,
// except where the text changes.
func (c *Converter) AppendByteSlices(v *segments.Vector, in [][]byte) {
	switch c.Src.Kind {
	case KindUUID:
		if c.Target == spec.Bytes {
			v.Bytes = append(v.Bytes, in...)
			return
		}
		for _, b := range in {
			if len(b) != 16 {
				v.Bytes = append(v.Bytes, nil)
				continue
			}
			start := len(c.Arena)
			c.Arena = text.AppendUUID(c.Arena, b)
			v.Bytes = append(v.Bytes, c.Arena[start:len(c.Arena):len(c.Arena)])
		}
	case KindDecimal:
		for _, b := range in {
			c.AppendDecimal(v, DecimalFromBE(b, c.Src.Scale))
		}
	case KindFloat16:
		for _, b := range in {
			c.AppendFloat32s(v, []float32{Float16(b)})
		}
	default:
		v.Bytes = append(v.Bytes, in...)
	}
}

// AppendInt96s converts INT96 timestamps to epoch millis.
func (c *Converter) AppendInt96s(v *segments.Vector, in [][3]uint32) {
	for _, w := range in {
		v.Longs = append(v.Longs, int96Millis(w))
	}
}

// AppendDecimal converts one exact decimal.
func (c *Converter) AppendDecimal(v *segments.Vector, d segments.Decimal) {
	switch c.Target {
	case spec.BigDecimal:
		v.Decimals = append(v.Decimals, d)
	case spec.Double:
		f, _ := strconv.ParseFloat(d.String(), 64)
		v.Doubles = append(v.Doubles, f)
	case spec.String:
		v.Bytes = append(v.Bytes, c.Text([]byte(d.String())))
	}
}

// Float16 reads a 2-byte little-endian IEEE 754 half-precision float
// (Parquet's FLOAT16); any other length reads as NaN.
func Float16(b []byte) float32 {
	if len(b) != 2 {
		return float32(math.NaN())
	}
	h := uint32(b[0]) | uint32(b[1])<<8
	sign, exp, frac := (h>>15)<<31, (h>>10)&0x1f, h&0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0: // normal: rebias 15 → 127
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0:
		return math.Float32frombits(sign)
	}
	// subnormal: frac × 2^-24
	f := float32(frac) / (1 << 24)
	if sign != 0 {
		f = -f
	}
	return f
}
