package segments

import (
	"context"
	"math/big"
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
