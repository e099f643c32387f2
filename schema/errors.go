package schema

import "errors"

// Sentinel errors. Callers branch on them with errors.Is; the wrapped
// message names the column, field or name at fault and what is allowed.
var (
	// ErrIllegalOverride: an override (data type, field type, time unit,
	// flatten, time column) that the column's type does not allow, or that
	// names a column the table does not have.
	ErrIllegalOverride = errors.New("illegal override")
	// ErrUnknownColumn: an override or time column names no column.
	ErrUnknownColumn = errors.New("unknown column")
	// ErrUnsupportedType: an Iceberg type floe cannot map.
	ErrUnsupportedType = errors.New("unsupported Iceberg type")
	// ErrInvalidName: a table or column name that cannot be parsed or is
	// not a legal Pinot name.
	ErrInvalidName = errors.New("invalid name")
	// ErrIncompatibleChange: a schema change Pinot cannot take in place
	// (see Change.Err).
	ErrIncompatibleChange = errors.New("incompatible schema change")
)
