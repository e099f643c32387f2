package read

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/convert"
)

// varLengthMagic starts a var-length dictionary (".vl;"; format: never change).
var varLengthMagic = []byte(".vl;")

// readDictionary decodes a column's dictionary into stored-type values;
// fixed-width STRING entries end at the first padding byte pad.
func readDictionary(b []byte, c *Column, pad byte) ([]any, error) {
	n := c.Cardinality
	stored := c.DataType.StoredType()
	if w := stored.FixedWidth(); w > 0 {
		if len(b) != n*w {
			return nil, fmt.Errorf("%w: dictionary is %d bytes, want %d × %d", ErrCorrupt, len(b), n, w)
		}
		out := make([]any, n)
		for i := range out {
			out[i] = fixedValue(stored, b[i*w:])
		}
		return out, nil
	}
	entries, err := dictionaryEntries(b, n, c.LengthOfEachEntry)
	if err != nil {
		return nil, err
	}
	out := make([]any, n)
	for i, e := range entries {
		if stored == spec.String && c.HasDictionary && !isVarLength(b) {
			if z := bytes.IndexByte(e, pad); z >= 0 {
				e = e[:z]
			}
		}
		if out[i], err = bytesValue(stored, e); err != nil {
			return nil, fmt.Errorf("dictionary entry %d: %w", i, err)
		}
	}
	return out, nil
}

func isVarLength(b []byte) bool {
	return len(b) >= 20 && bytes.Equal(b[:4], varLengthMagic) && binary.BigEndian.Uint32(b[4:]) == 1
}

// dictionaryEntries splits a var-length or fixed-width byte dictionary.
func dictionaryEntries(b []byte, n, width int) ([][]byte, error) {
	out := make([][]byte, 0, n)
	if isVarLength(b) {
		num := int(binary.BigEndian.Uint32(b[8:]))
		start := int(binary.BigEndian.Uint32(b[12:]))
		if num != n || start+4*(n+1) > len(b) {
			return nil, fmt.Errorf("%w: var-length dictionary header", ErrCorrupt)
		}
		for i := 0; i < n; i++ {
			lo := int(binary.BigEndian.Uint32(b[start+4*i:]))
			hi := int(binary.BigEndian.Uint32(b[start+4*i+4:]))
			if lo > hi || hi > len(b) {
				return nil, fmt.Errorf("%w: var-length dictionary offsets", ErrCorrupt)
			}
			out = append(out, b[lo:hi])
		}
		return out, nil
	}
	if len(b) != n*width {
		return nil, fmt.Errorf("%w: dictionary is %d bytes, want %d × %d", ErrCorrupt, len(b), n, width)
	}
	for i := 0; i < n; i++ {
		out = append(out, b[i*width:(i+1)*width])
	}
	return out, nil
}

// fixedValue reads one big-endian fixed-width value.
func fixedValue(stored spec.DataType, b []byte) any {
	switch stored {
	case spec.Int:
		return int32(binary.BigEndian.Uint32(b))
	case spec.Long:
		return int64(binary.BigEndian.Uint64(b))
	case spec.Float:
		return math.Float32frombits(binary.BigEndian.Uint32(b))
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b))
}

// bytesValue decodes a variable-width value.
func bytesValue(stored spec.DataType, b []byte) (any, error) {
	switch stored {
	case spec.String:
		return string(b), nil
	case spec.BigDecimal:
		return decodeBigDecimal(b)
	}
	return append([]byte(nil), b...), nil
}

// decodeBigDecimal reads Pinot's BIG_DECIMAL bytes: a 2-byte BE signed
// scale, then the unscaled value in two's complement, big-endian.
func decodeBigDecimal(b []byte) (segments.Decimal, error) {
	if len(b) < 3 {
		return segments.Decimal{}, fmt.Errorf("%w: BIG_DECIMAL of %d bytes", ErrCorrupt, len(b))
	}
	scale := int32(int16(binary.BigEndian.Uint16(b)))
	d := convert.DecimalFromBE(b[2:], scale)
	if d.Unscaled == nil {
		d.Unscaled = new(big.Int)
	}
	return d, nil
}
