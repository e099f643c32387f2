package segments

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/floehq/floe/pinot"
)

// appendInt64s appends integer-coded source values (integers, timestamps,
// times, dates, INT64 decimals) converted to the target type.
func (c *converter) appendInt64s(v *Vector, in []int64) {
	switch c.src.kind {
	case kindTimestamp:
		if c.target == pinot.Timestamp {
			for _, x := range in {
				v.Longs = append(v.Longs, srcToMillis(x, c.src.unit))
			}
			return
		}
		v.Longs = append(v.Longs, in...)
	case kindTime:
		for _, x := range in {
			v.Longs = append(v.Longs, srcToMicros(x, c.src.unit))
		}
	case kindDate:
		c.appendDays(v, in)
	case kindDecimal:
		for _, x := range in {
			c.appendDecimal(v, Decimal{Unscaled: big.NewInt(x), Scale: c.src.scale})
		}
	default:
		c.appendIntegers(v, in)
	}
}

// appendIntegers converts plain integers.
func (c *converter) appendIntegers(v *Vector, in []int64) {
	switch c.target {
	case pinot.Int:
		for _, x := range in {
			v.Ints = append(v.Ints, int32(x))
		}
	case pinot.Long, pinot.Timestamp:
		v.Longs = append(v.Longs, in...)
	case pinot.Float:
		for _, x := range in {
			v.Floats = append(v.Floats, float32(x))
		}
	case pinot.Double:
		for _, x := range in {
			v.Doubles = append(v.Doubles, float64(x))
		}
	case pinot.BigDecimal:
		for _, x := range in {
			v.Decimals = append(v.Decimals, Decimal{Unscaled: big.NewInt(x)})
		}
	case pinot.String:
		for _, x := range in {
			start := len(c.arena)
			c.arena = strconv.AppendInt(c.arena, x, 10)
			v.Bytes = append(v.Bytes, c.arena[start:len(c.arena):len(c.arena)])
		}
	}
}

// appendDays converts days since the epoch.
func (c *converter) appendDays(v *Vector, in []int64) {
	switch c.target {
	case pinot.Int:
		for _, x := range in {
			v.Ints = append(v.Ints, int32(x))
		}
	case pinot.Long:
		v.Longs = append(v.Longs, in...)
	case pinot.Timestamp:
		for _, x := range in {
			v.Longs = append(v.Longs, x*srcMillisPerDay)
		}
	case pinot.String:
		for _, x := range in {
			start := len(c.arena)
			c.arena = time.Unix(x*86400, 0).UTC().AppendFormat(c.arena, time.DateOnly)
			v.Bytes = append(v.Bytes, c.arena[start:len(c.arena):len(c.arena)])
		}
	}
}

// appendInt32s appends 32-bit integer-coded values; INT targets take them
// as they are, the rest widen first.
func (c *converter) appendInt32s(v *Vector, in []int32, scratch *[]int64) {
	if c.target == pinot.Int && (c.src.kind == kindInt || c.src.kind == kindUint || c.src.kind == kindDate) {
		v.Ints = append(v.Ints, in...)
		return
	}
	wide := (*scratch)[:0]
	for _, x := range in {
		if c.src.kind == kindUint {
			wide = append(wide, int64(uint32(x)))
		} else {
			wide = append(wide, int64(x))
		}
	}
	*scratch = wide
	c.appendInt64s(v, wide)
}

// appendBools converts booleans.
func (c *converter) appendBools(v *Vector, in []bool) {
	for _, b := range in {
		var x int32
		if b {
			x = 1
		}
		switch c.target {
		case pinot.Boolean, pinot.Int:
			v.Ints = append(v.Ints, x)
		case pinot.Long:
			v.Longs = append(v.Longs, int64(x))
		case pinot.String:
			v.Bytes = append(v.Bytes, c.text([]byte(strconv.FormatBool(b))))
		}
	}
}

// appendFloat32s converts 32-bit floats.
func (c *converter) appendFloat32s(v *Vector, in []float32) {
	switch c.target {
	case pinot.Float:
		v.Floats = append(v.Floats, in...)
	case pinot.Double:
		for _, x := range in {
			v.Doubles = append(v.Doubles, float64(x))
		}
	case pinot.String:
		for _, x := range in {
			v.Bytes = append(v.Bytes, c.text([]byte(srcJavaFloat(float64(x), 32))))
		}
	}
}

// appendFloat64s converts 64-bit floats.
func (c *converter) appendFloat64s(v *Vector, in []float64) {
	switch c.target {
	case pinot.Double:
		v.Doubles = append(v.Doubles, in...)
	case pinot.Float:
		for _, x := range in {
			v.Floats = append(v.Floats, float32(x))
		}
	case pinot.String:
		for _, x := range in {
			v.Bytes = append(v.Bytes, c.text([]byte(srcJavaFloat(x, 64))))
		}
	}
}

// appendByteSlices converts byte-coded values: strings, binaries, UUIDs,
// big-endian decimals, WKB and JSON text. Slices are kept, not copied,
// except where the text changes.
func (c *converter) appendByteSlices(v *Vector, in [][]byte) {
	switch c.src.kind {
	case kindUUID:
		if c.target == pinot.Bytes {
			v.Bytes = append(v.Bytes, in...)
			return
		}
		for _, b := range in {
			if len(b) != 16 {
				v.Bytes = append(v.Bytes, nil)
				continue
			}
			start := len(c.arena)
			c.arena = srcAppendUUID(c.arena, b)
			v.Bytes = append(v.Bytes, c.arena[start:len(c.arena):len(c.arena)])
		}
	case kindDecimal:
		for _, b := range in {
			c.appendDecimal(v, srcDecimalFromBE(b, c.src.scale))
		}
	default:
		v.Bytes = append(v.Bytes, in...)
	}
}

// appendInt96s converts INT96 timestamps to epoch millis.
func (c *converter) appendInt96s(v *Vector, in [][3]uint32) {
	for _, w := range in {
		v.Longs = append(v.Longs, srcInt96Millis(w))
	}
}

// appendDecimal converts one exact decimal.
func (c *converter) appendDecimal(v *Vector, d Decimal) {
	switch c.target {
	case pinot.BigDecimal:
		v.Decimals = append(v.Decimals, d)
	case pinot.Double:
		f, _ := strconv.ParseFloat(srcDecimalText(d), 64)
		v.Doubles = append(v.Doubles, f)
	case pinot.String:
		v.Bytes = append(v.Bytes, c.text([]byte(srcDecimalText(d))))
	}
}

// srcDecimalText renders a decimal in plain notation (Java's toPlainString).
func srcDecimalText(d Decimal) string {
	if d.Unscaled == nil {
		return "0"
	}
	s := d.Unscaled.String()
	if d.Scale <= 0 {
		if d.Unscaled.Sign() == 0 {
			return "0"
		}
		return s + strings.Repeat("0", int(-d.Scale))
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if len(s) <= int(d.Scale) {
		s = strings.Repeat("0", int(d.Scale)-len(s)+1) + s
	}
	point := len(s) - int(d.Scale)
	s = s[:point] + "." + s[point:]
	if neg {
		s = "-" + s
	}
	return s
}

// srcJavaFloat renders a float the way Java's Float/Double.toString does
// for the common cases: plain between 1e-3 and 1e7, else computerized
// scientific notation, always with a fractional digit.
func srcJavaFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	abs := math.Abs(f)
	if abs == 0 || (abs >= 1e-3 && abs < 1e7) {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, bits)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	if strings.HasPrefix(exp, "-") {
		exp = "-" + strings.TrimLeft(exp[1:], "0")
	} else {
		exp = strings.TrimLeft(exp, "0")
	}
	return mant + "E" + exp
}
