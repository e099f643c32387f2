package convert

import (
	"fmt"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
)

// Slot is the segments.Vector slice a Pinot data type's values go to.
type Slot uint8

const (
	SlotInts Slot = iota
	SlotLongs
	SlotFloats
	SlotDoubles
	SlotDecimals
	SlotBytes
)

func SlotOf(t spec.DataType) Slot {
	switch t.StoredType() {
	case spec.Long:
		return SlotLongs
	case spec.Float:
		return SlotFloats
	case spec.Double:
		return SlotDoubles
	case spec.BigDecimal:
		return SlotDecimals
	case spec.String, spec.Bytes:
		return SlotBytes
	}
	return SlotInts
}

// AppendZeros appends n placeholder values (for null rows).
func AppendZeros(v *segments.Vector, s Slot, n int) {
	for ; n > 0; n-- {
		switch s {
		case SlotInts:
			v.Ints = append(v.Ints, 0)
		case SlotLongs:
			v.Longs = append(v.Longs, 0)
		case SlotFloats:
			v.Floats = append(v.Floats, 0)
		case SlotDoubles:
			v.Doubles = append(v.Doubles, 0)
		case SlotDecimals:
			v.Decimals = append(v.Decimals, segments.Decimal{})
		case SlotBytes:
			v.Bytes = append(v.Bytes, nil)
		}
	}
}

// errDictIndex reports a dictionary index outside the dictionary.
var errDictIndex = fmt.Errorf("%w: dictionary index out of range", segments.ErrCorruptSource)

// GatherDict appends dict[idx[i]] for every index.
func GatherDict(v *segments.Vector, dict *segments.Vector, s Slot, n int, idx []int32) error {
	for _, i := range idx {
		if uint32(i) >= uint32(n) {
			return errDictIndex
		}
	}
	switch s {
	case SlotInts:
		v.Ints = gather(v.Ints, dict.Ints, idx)
	case SlotLongs:
		v.Longs = gather(v.Longs, dict.Longs, idx)
	case SlotFloats:
		v.Floats = gather(v.Floats, dict.Floats, idx)
	case SlotDoubles:
		v.Doubles = gather(v.Doubles, dict.Doubles, idx)
	case SlotDecimals:
		v.Decimals = gather(v.Decimals, dict.Decimals, idx)
	case SlotBytes:
		v.Bytes = gather(v.Bytes, dict.Bytes, idx)
	}
	return nil
}

// gather appends dict[i] for every i in idx (checked by the caller).
func gather[T any](dst, dict []T, idx []int32) []T {
	for _, i := range idx {
		dst = append(dst, dict[i])
	}
	return dst
}
