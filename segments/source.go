package segments

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/floehq/floe/segments/internal/text"
)

// Source feeds rows to the segment builder, a batch at a time. A plain
// Parquet file reader, an in-memory row set and the delete-applying Iceberg
// reader all implement it.
type Source interface {
	// Next returns the next batch, or io.EOF when there are no more rows.
	// The batch and every slice it holds stay valid only until the next
	// call to Next: the builder copies what it keeps.
	Next(ctx context.Context) (*Batch, error)
	Close() error
}

// Batch is a run of rows held column by column. Columns[i] holds the values
// of the i-th field of the schema the builder was given.
type Batch struct {
	Rows    int
	Columns []Vector
}

// Vector holds one column's values for a batch, in the column's stored
// type (BOOLEAN as 0/1 in Ints, TIMESTAMP as epoch millis in Longs, JSON as
// text in Bytes). Exactly one value slice is set.
//
// Single-value columns have one value per row. Multi-value columns set
// Offsets (len Rows+1): row r holds values [Offsets[r], Offsets[r+1]).
//
// Nulls[r] marks row r null (nil: no nulls). A null row's slot in a value
// slice is present but ignored for single-value columns; a null or empty
// multi-value row has no values. The builder applies Pinot's ingestion
// rules (default null values, NaN → null, -0.0 → 0.0, strings cut at NUL,
// invalid UTF-8 replaced, length limits) so sources need not.
type Vector struct {
	Nulls    []bool
	Offsets  []int32
	Ints     []int32
	Longs    []int64
	Floats   []float32
	Doubles  []float64
	Bytes    [][]byte // STRING and JSON (UTF-8), BYTES
	Decimals []Decimal
}

// Decimal is a BIG_DECIMAL value: Unscaled × 10^-Scale.
type Decimal struct {
	Unscaled *big.Int
	Scale    int32
}

// String renders d in plain notation, as Java's BigDecimal.toPlainString.
func (d Decimal) String() string { return text.Decimal(d.Unscaled, d.Scale) }

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
	// ErrUnsupportedInput: the input uses a feature floe does not read,
	// such as a compression codec or encryption.
	ErrUnsupportedInput = errors.New("unsupported")
	// ErrCorruptSource: the input could not be decoded.
	ErrCorruptSource = errors.New("corrupt input")
	// ErrTooLarge: the input is valid but a part of it is larger than
	// floe reads (the message names the limit).
	ErrTooLarge = errors.New("too large")
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

// Reset empties v, keeping its buffers, for a source that reuses its batch.
func (v *Vector) Reset() {
	v.Nulls = nil
	v.Offsets = v.Offsets[:0]
	v.Ints = v.Ints[:0]
	v.Longs = v.Longs[:0]
	v.Floats = v.Floats[:0]
	v.Doubles = v.Doubles[:0]
	v.Bytes = v.Bytes[:0]
	v.Decimals = v.Decimals[:0]
}
