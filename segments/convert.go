package segments

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/floehq/floe/pinot"
)

// Errors a Source reports; test with errors.Is. The concrete error is a
// *SourceError naming the input file and the column.
var (
	// ErrUnsupportedConversion: the source column's type cannot become the
	// Pinot column's data type (for example a string into a LONG column).
	ErrUnsupportedConversion = errors.New("unsupported type conversion")
	// ErrUnsupportedSourceType: the source column has a physical or logical
	// type floe does not read.
	ErrUnsupportedSourceType = errors.New("unsupported source type")
	// ErrColumnMismatch: the Pinot schema and the input disagree (a column
	// is missing, or a list feeds a single-value column).
	ErrColumnMismatch = errors.New("schema and input columns do not match")
	// ErrCorruptSource: the input could not be decoded.
	ErrCorruptSource = errors.New("corrupt input")
)

// SourceError is a source failure tied to an input file and a column.
type SourceError struct {
	File   string // the input, for example a Parquet file path
	Column string // the Pinot column, or the source column when unbound
	Err    error
}

func (e *SourceError) Error() string {
	switch {
	case e.File != "" && e.Column != "":
		return fmt.Sprintf("file %s: column %s: %v", e.File, e.Column, e.Err)
	case e.File != "":
		return fmt.Sprintf("file %s: %v", e.File, e.Err)
	case e.Column != "":
		return fmt.Sprintf("column %s: %v", e.Column, e.Err)
	}
	return e.Err.Error()
}

func (e *SourceError) Unwrap() error { return e.Err }

// srcKind is the logical kind of a source column's values, whatever the
// container (Parquet page or Arrow array) that holds them.
type srcKind uint8

const (
	kindBool srcKind = iota + 1
	kindInt          // signed integers of srcType.bits bits
	kindUint         // unsigned integers of srcType.bits bits (≤ 32)
	kindFloat32
	kindFloat64
	kindString
	kindBinary // binary and fixed
	kindUUID   // 16 bytes
	kindDecimal
	kindDate      // days since the epoch
	kindTime      // time of day in srcType.unit
	kindTimestamp // instant in srcType.unit since the epoch
	kindInt96     // Parquet INT96 timestamp
	kindNested    // struct, map, list of non-primitives, variant: JSON text
	kindGeo       // geometry or geography as WKB
)

// timeUnit is the number of nanoseconds in one unit of a time value.
type timeUnit int64

const (
	tuNanos   timeUnit = 1
	tuMicros  timeUnit = 1_000
	tuMillis  timeUnit = 1_000_000
	tuSeconds timeUnit = 1_000_000_000
)

// srcType describes a source column: what kind of values it holds and how
// to read them.
type srcType struct {
	kind     srcKind
	bits     int      // kindInt, kindUint
	unit     timeUnit // kindTime, kindTimestamp
	scale    int32    // kindDecimal
	repeated bool     // a list of primitives: one row holds many values
	desc     string   // the source type as the input names it, for errors
}

// allowedTargets lists the Pinot data types each source kind converts to.
var allowedTargets = map[srcKind][]pinot.DataType{
	kindBool:      {pinot.Boolean, pinot.Int, pinot.Long, pinot.String},
	kindInt:       {pinot.Int, pinot.Long, pinot.Float, pinot.Double, pinot.BigDecimal, pinot.Timestamp, pinot.String},
	kindUint:      {pinot.Int, pinot.Long, pinot.Float, pinot.Double, pinot.BigDecimal, pinot.Timestamp, pinot.String},
	kindFloat32:   {pinot.Float, pinot.Double, pinot.String},
	kindFloat64:   {pinot.Double, pinot.Float, pinot.String},
	kindString:    {pinot.String, pinot.JSON},
	kindBinary:    {pinot.Bytes},
	kindUUID:      {pinot.String, pinot.Bytes},
	kindDecimal:   {pinot.BigDecimal, pinot.Double, pinot.String},
	kindDate:      {pinot.Int, pinot.Long, pinot.Timestamp, pinot.String},
	kindTime:      {pinot.Long},
	kindTimestamp: {pinot.Timestamp, pinot.Long},
	kindInt96:     {pinot.Timestamp, pinot.Long},
	kindNested:    {pinot.JSON, pinot.String},
	kindGeo:       {pinot.Bytes},
}

// checkConversion reports whether values of src can fill the Pinot field f.
func checkConversion(src srcType, f pinot.FieldSpec) error {
	if src.repeated && f.SingleValue {
		return fmt.Errorf("%w: source %s is a list but the Pinot column is single-value", ErrColumnMismatch, src.desc)
	}
	if src.kind == kindInt && src.bits > 32 && f.DataType == pinot.Int {
		return fmt.Errorf("%w: %s into INT would overflow (use LONG)", ErrUnsupportedConversion, src.desc)
	}
	if src.kind == kindUint && src.bits > 31 && f.DataType == pinot.Int {
		return fmt.Errorf("%w: %s into INT would overflow (use LONG)", ErrUnsupportedConversion, src.desc)
	}
	if src.kind == kindInt && src.bits < 64 && f.DataType == pinot.Timestamp {
		return fmt.Errorf("%w: %s into TIMESTAMP (only 64-bit epoch millis)", ErrUnsupportedConversion, src.desc)
	}
	for _, t := range allowedTargets[src.kind] {
		if t == f.DataType {
			return nil
		}
	}
	return fmt.Errorf("%w: %s into %s", ErrUnsupportedConversion, src.desc, f.DataType)
}

// converter appends source values to a Vector in the stored type of one
// Pinot column. Inputs are row aligned: a null row still has a slot, whose
// content is ignored. Strings made by the converter live in arena.
type converter struct {
	src    srcType
	target pinot.DataType
	arena  []byte
}

func newConverter(src srcType, f pinot.FieldSpec) (*converter, error) {
	if err := checkConversion(src, f); err != nil {
		return nil, err
	}
	return &converter{src: src, target: f.DataType}, nil
}

// reset drops the strings of the previous batch.
func (c *converter) reset() { c.arena = c.arena[:0] }

// text appends b to the arena and returns the arena's copy.
func (c *converter) text(b []byte) []byte {
	start := len(c.arena)
	c.arena = append(c.arena, b...)
	return c.arena[start:len(c.arena):len(c.arena)]
}

// srcDecimalFromBE reads a two's-complement big-endian unscaled value.
func srcDecimalFromBE(b []byte, scale int32) Decimal {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return Decimal{Unscaled: n, Scale: scale}
}

// srcFloorDiv divides rounding toward negative infinity, as an instant
// truncated to a coarser unit must.
func srcFloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// srcToMillis converts a value in unit u to epoch milliseconds.
func srcToMillis(v int64, u timeUnit) int64 {
	switch u {
	case tuMillis:
		return v
	case tuSeconds:
		return v * 1000
	}
	return srcFloorDiv(v, int64(tuMillis/u))
}

// srcToMicros converts a value in unit u to microseconds.
func srcToMicros(v int64, u timeUnit) int64 {
	switch u {
	case tuMicros:
		return v
	case tuNanos:
		return srcFloorDiv(v, 1000)
	}
	return v * int64(u/tuMicros)
}

const srcMillisPerDay = 86_400_000

// srcJulianEpochDay is the Julian day number of 1970-01-01.
const srcJulianEpochDay = 2_440_588

// srcInt96Millis converts a Parquet INT96 timestamp (nanoseconds of the day in
// the low 8 bytes, Julian day in the high 4, little-endian) to epoch millis.
func srcInt96Millis(w [3]uint32) int64 {
	nanos := int64(uint64(w[1])<<32 | uint64(w[0]))
	day := int64(int32(w[2]))
	return (day-srcJulianEpochDay)*srcMillisPerDay + srcFloorDiv(nanos, 1_000_000)
}

const srcHexDigits = "0123456789abcdef"

// srcAppendUUID appends the canonical 8-4-4-4-12 lowercase text of a 16-byte UUID.
func srcAppendUUID(dst, u []byte) []byte {
	for i, b := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, srcHexDigits[b>>4], srcHexDigits[b&0x0f])
	}
	return dst
}
