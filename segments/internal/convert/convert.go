// Package convert turns source values (Parquet pages, Arrow arrays) into
// the stored type of a Pinot column: the type rules and value conversions
// the Parquet and Arrow sources share.
package convert

import (
	"fmt"
	"math/big"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
)

// Kind is the logical kind of a source column's values, whatever the
// container (Parquet page or Arrow array) that holds them.
type Kind uint8

const (
	KindBool Kind = iota + 1
	KindInt       // signed integers of Type.Bits bits
	KindUint      // unsigned integers of Type.Bits bits (≤ 32)
	KindFloat32
	KindFloat64
	KindString
	KindBinary // binary and fixed
	KindUUID   // 16 bytes
	KindDecimal
	KindDate      // days since the epoch
	KindTime      // time of day in Type.unit
	KindTimestamp // instant in Type.unit since the epoch
	KindInt96     // Parquet INT96 timestamp
	KindNested    // struct, map, list of non-primitives, variant: JSON text
	KindGeo       // geometry or geography as WKB
	KindFloat16   // IEEE 754 half precision, 2 bytes little-endian
)

// TimeUnit is the number of nanoseconds in one unit of a time value.
type TimeUnit int64

const (
	Nanos   TimeUnit = 1
	Micros  TimeUnit = 1_000
	Millis  TimeUnit = 1_000_000
	Seconds TimeUnit = 1_000_000_000
)

// Type describes a source column: what kind of values it holds and how
// to read them.
type Type struct {
	Kind     Kind
	Bits     int      // KindInt, KindUint
	Unit     TimeUnit // KindTime, KindTimestamp
	Scale    int32    // KindDecimal
	Repeated bool     // a list of primitives: one row holds many values
	Desc     string   // the source type as the input names it, for errors
}

// allowedTargets lists the Pinot data types each source kind converts to.
var allowedTargets = map[Kind][]spec.DataType{
	KindBool:      {spec.Boolean, spec.Int, spec.Long, spec.String},
	KindInt:       {spec.Int, spec.Long, spec.Float, spec.Double, spec.BigDecimal, spec.Timestamp, spec.String},
	KindUint:      {spec.Int, spec.Long, spec.Float, spec.Double, spec.BigDecimal, spec.Timestamp, spec.String},
	KindFloat32:   {spec.Float, spec.Double, spec.String},
	KindFloat16:   {spec.Float, spec.Double, spec.String},
	KindFloat64:   {spec.Double, spec.Float, spec.String},
	KindString:    {spec.String, spec.JSON},
	KindBinary:    {spec.Bytes},
	KindUUID:      {spec.String, spec.Bytes},
	KindDecimal:   {spec.BigDecimal, spec.Double, spec.String},
	KindDate:      {spec.Int, spec.Long, spec.Timestamp, spec.String},
	KindTime:      {spec.Long},
	KindTimestamp: {spec.Timestamp, spec.Long},
	KindInt96:     {spec.Timestamp, spec.Long},
	KindNested:    {spec.JSON, spec.String},
	KindGeo:       {spec.Bytes},
}

// Check reports whether values of src can fill the Pinot field f.
func Check(src Type, f spec.FieldSpec) error {
	if src.Repeated && f.SingleValue {
		return fmt.Errorf("%w: source %s is a list but the Pinot column is single-value", segments.ErrColumnMismatch, src.Desc)
	}
	if src.Kind == KindInt && src.Bits > 32 && f.DataType == spec.Int {
		return fmt.Errorf("%w: %s into INT would overflow (use LONG)", segments.ErrUnsupportedConversion, src.Desc)
	}
	if src.Kind == KindUint && src.Bits > 31 && f.DataType == spec.Int {
		return fmt.Errorf("%w: %s into INT would overflow (use LONG)", segments.ErrUnsupportedConversion, src.Desc)
	}
	if src.Kind == KindInt && src.Bits < 64 && f.DataType == spec.Timestamp {
		return fmt.Errorf("%w: %s into TIMESTAMP (only 64-bit epoch millis)", segments.ErrUnsupportedConversion, src.Desc)
	}
	for _, t := range allowedTargets[src.Kind] {
		if t == f.DataType {
			return nil
		}
	}
	return fmt.Errorf("%w: %s into %s", segments.ErrUnsupportedConversion, src.Desc, f.DataType)
}

// Converter appends source values to a segments.Vector in the stored type of one
// Pinot column. Inputs are row aligned: a null row still has a slot, whose
// content is ignored. Strings made by the Converter live in arena.
type Converter struct {
	Src    Type
	Target spec.DataType
	Arena  []byte
}

func New(src Type, f spec.FieldSpec) (*Converter, error) {
	if err := Check(src, f); err != nil {
		return nil, err
	}
	return &Converter{Src: src, Target: f.DataType}, nil
}

// reset drops the strings of the previous batch.
func (c *Converter) Reset() { c.Arena = c.Arena[:0] }

// text appends b to the arena and returns the arena's copy.
func (c *Converter) Text(b []byte) []byte {
	start := len(c.Arena)
	c.Arena = append(c.Arena, b...)
	return c.Arena[start:len(c.Arena):len(c.Arena)]
}

// DecimalFromBE reads a two's-complement big-endian unscaled value.
func DecimalFromBE(b []byte, scale int32) segments.Decimal {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return segments.Decimal{Unscaled: n, Scale: scale}
}

// FloorDiv divides rounding toward negative infinity, as an instant
// truncated to a coarser unit must.
func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// ToMillis converts a value in unit u to epoch milliseconds.
func ToMillis(v int64, u TimeUnit) int64 {
	switch u {
	case Millis:
		return v
	case Seconds:
		return v * 1000
	}
	return FloorDiv(v, int64(Millis/u))
}

// ToMicros converts a value in unit u to microseconds.
func ToMicros(v int64, u TimeUnit) int64 {
	switch u {
	case Micros:
		return v
	case Nanos:
		return FloorDiv(v, 1000)
	}
	return v * int64(u/Micros)
}

const MillisPerDay = 86_400_000

// srcJulianEpochDay is the Julian day number of 1970-01-01.
const srcJulianEpochDay = 2_440_588

// int96Millis converts a Parquet INT96 timestamp (nanoseconds of the day in
// the low 8 bytes, Julian day in the high 4, little-endian) to epoch millis.
func int96Millis(w [3]uint32) int64 {
	nanos := int64(uint64(w[1])<<32 | uint64(w[0]))
	day := int64(int32(w[2]))
	return (day-srcJulianEpochDay)*MillisPerDay + FloorDiv(nanos, 1_000_000)
}
