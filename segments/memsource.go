package segments

import (
	"context"
	"fmt"
	"io"
	"math/big"

	"github.com/floehq/floe/pinot/spec"
)

// MemorySource is an in-memory Source over rows given as Go values, for
// tests and small inputs. Row values follow the schema's field order:
//
//	nil                           null
//	int32 / int (INT, BOOLEAN)    bool also works for BOOLEAN
//	int64 / int (LONG, TIMESTAMP) time.Time is not accepted
//	float32 (FLOAT), float64 (DOUBLE)
//	string or []byte (STRING, JSON, BYTES)
//	Decimal, *big.Int, or a decimal string (BIG_DECIMAL)
//	[]any of the above            multi-value rows (nil elements are dropped)
type MemorySource struct {
	schema    *spec.Schema
	rows      [][]any
	batchSize int
	pos       int
}

// NewMemorySource returns a Source over rows, batchSize rows at a time
// (<= 0: 4096).
func NewMemorySource(schema *spec.Schema, rows [][]any, batchSize int) *MemorySource {
	if batchSize <= 0 {
		batchSize = 4096
	}
	return &MemorySource{schema: schema, rows: rows, batchSize: batchSize}
}

// Close implements Source.
func (s *MemorySource) Close() error { return nil }

// Next implements Source.
func (s *MemorySource) Next(ctx context.Context) (*Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.pos >= len(s.rows) {
		return nil, io.EOF
	}
	end := min(s.pos+s.batchSize, len(s.rows))
	rows := s.rows[s.pos:end]
	b := &Batch{Rows: len(rows), Columns: make([]Vector, len(s.schema.Fields))}
	for ci, f := range s.schema.Fields {
		v := &b.Columns[ci]
		if !f.SingleValue {
			v.Offsets = append(v.Offsets, 0)
		}
		for ri, row := range rows {
			if ci >= len(row) {
				return nil, fmt.Errorf("memory source: row %d has %d values, schema has %d", s.pos+ri, len(row), len(s.schema.Fields))
			}
			val := row[ci]
			if val == nil {
				if v.Nulls == nil {
					v.Nulls = make([]bool, len(rows))
				}
				v.Nulls[ri] = true
			}
			if f.SingleValue {
				if err := appendValue(v, f.DataType, val); err != nil {
					return nil, fmt.Errorf("memory source: row %d column %q: %w", s.pos+ri, f.Name, err)
				}
				continue
			}
			list, _ := val.([]any)
			if val != nil && list == nil {
				return nil, fmt.Errorf("memory source: row %d column %q: multi-value needs []any, got %T", s.pos+ri, f.Name, val)
			}
			n := v.Offsets[len(v.Offsets)-1]
			for _, e := range list {
				if e == nil {
					continue
				}
				if err := appendValue(v, f.DataType, e); err != nil {
					return nil, fmt.Errorf("memory source: row %d column %q: %w", s.pos+ri, f.Name, err)
				}
				n++
			}
			v.Offsets = append(v.Offsets, n)
		}
	}
	s.pos = end
	return b, nil
}

// appendValue appends one value (nil: a placeholder) in the stored type.
func appendValue(v *Vector, t spec.DataType, val any) error {
	bad := func() error { return fmt.Errorf("%T is not a %s value", val, t) }
	switch t {
	case spec.Int, spec.Boolean:
		var x int32
		switch y := val.(type) {
		case nil:
		case int32:
			x = y
		case int:
			x = int32(y)
		case bool:
			if y {
				x = 1
			}
		default:
			return bad()
		}
		v.Ints = append(v.Ints, x)
	case spec.Long, spec.Timestamp:
		var x int64
		switch y := val.(type) {
		case nil:
		case int64:
			x = y
		case int:
			x = int64(y)
		default:
			return bad()
		}
		v.Longs = append(v.Longs, x)
	case spec.Float:
		var x float32
		switch y := val.(type) {
		case nil:
		case float32:
			x = y
		default:
			return bad()
		}
		v.Floats = append(v.Floats, x)
	case spec.Double:
		var x float64
		switch y := val.(type) {
		case nil:
		case float64:
			x = y
		default:
			return bad()
		}
		v.Doubles = append(v.Doubles, x)
	case spec.String, spec.JSON, spec.Bytes:
		var x []byte
		switch y := val.(type) {
		case nil:
		case string:
			x = []byte(y)
		case []byte:
			x = y
		default:
			return bad()
		}
		v.Bytes = append(v.Bytes, x)
	case spec.BigDecimal:
		x := Decimal{Unscaled: new(big.Int)}
		switch y := val.(type) {
		case nil:
		case Decimal:
			x = y
		case *big.Int:
			x = Decimal{Unscaled: y}
		case string:
			d, err := parseDecimal(y)
			if err != nil {
				return err
			}
			x = d
		default:
			return bad()
		}
		v.Decimals = append(v.Decimals, x)
	default:
		return bad()
	}
	return nil
}
