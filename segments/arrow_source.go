package segments

import (
	"context"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/floehq/floe/pinot"
)

// ArrowSourceConfig says how Arrow record batches become Pinot rows.
type ArrowSourceConfig struct {
	// Schema is the Pinot schema; batches hold its fields in order.
	Schema *pinot.Schema
	// Columns binds a Pinot column to an Arrow column path. Struct
	// fields are reached with dots ("address.city"). A Pinot column that
	// is not listed binds to the Arrow column of the same name.
	Columns map[string]string
	// Name names the input in errors, for example the data file path.
	Name string
}

// ArrowSource is a Source fed by Arrow record batches, such as the batches
// an Iceberg scan yields with deletes applied.
type ArrowSource struct {
	name   string
	cols   []arrowColumn
	next   func() (arrow.RecordBatch, error, bool)
	stop   func()
	held   arrow.RecordBatch
	batch  Batch
	rows   int64
	closed bool
}

var _ Source = (*ArrowSource)(nil)

// arrowColumn is one Pinot column bound to an Arrow column.
type arrowColumn struct {
	field   pinot.FieldSpec
	path    []int // field index at each struct level
	conv    *converter
	scratch arrowScratch
}

// NewArrowSource binds the Pinot schema in cfg to the Arrow schema and
// returns a Source that drains batches. The source releases each batch
// when it moves to the next one and on Close.
func NewArrowSource(schema *arrow.Schema, batches iter.Seq2[arrow.RecordBatch, error], cfg ArrowSourceConfig) (*ArrowSource, error) {
	if cfg.Schema == nil {
		return nil, &SourceError{File: cfg.Name, Err: fmt.Errorf("%w: no Pinot schema", ErrColumnMismatch)}
	}
	s := &ArrowSource{name: cfg.Name}
	for _, f := range cfg.Schema.Fields {
		path := f.Name
		if p, ok := cfg.Columns[f.Name]; ok {
			path = p
		}
		col, err := bindArrowColumn(schema, f, path)
		if err != nil {
			return nil, &SourceError{File: cfg.Name, Column: f.Name, Err: err}
		}
		s.cols = append(s.cols, col)
	}
	s.next, s.stop = iter.Pull2(batches)
	s.batch.Columns = make([]Vector, len(s.cols))
	return s, nil
}

// bindArrowColumn resolves a dotted path in the Arrow schema.
func bindArrowColumn(schema *arrow.Schema, f pinot.FieldSpec, path string) (arrowColumn, error) {
	fields := schema.Fields()
	var idx []int
	var dt arrow.DataType
	rest := path
	for rest != "" {
		i, consumed := matchField(fields, rest)
		if i < 0 {
			return arrowColumn{}, fmt.Errorf("%w: no Arrow column %q", ErrColumnMismatch, path)
		}
		idx = append(idx, i)
		dt = fields[i].Type
		rest = strings.TrimPrefix(rest[consumed:], ".")
		if rest == "" {
			break
		}
		st, ok := dt.(*arrow.StructType)
		if !ok {
			return arrowColumn{}, fmt.Errorf("%w: Arrow column %q: %s is not a struct", ErrColumnMismatch, path, fields[i].Name)
		}
		fields = st.Fields()
	}
	if len(idx) == 0 {
		return arrowColumn{}, fmt.Errorf("%w: empty Arrow column path", ErrColumnMismatch)
	}
	st, err := arrowSrcType(dt)
	if err != nil {
		return arrowColumn{}, err
	}
	conv, err := newConverter(st, f)
	if err != nil {
		return arrowColumn{}, err
	}
	return arrowColumn{field: f, path: idx, conv: conv}, nil
}

// matchField finds the field whose name is the longest dotted prefix of
// path, so field names that contain dots still resolve.
func matchField(fields []arrow.Field, path string) (index, consumed int) {
	index = -1
	for i, fd := range fields {
		n := fd.Name
		if (path == n || strings.HasPrefix(path, n+".")) && len(n) > consumed {
			index, consumed = i, len(n)
		}
	}
	return index, consumed
}

// Next converts the next record batch. Empty batches are skipped.
func (s *ArrowSource) Next(ctx context.Context) (*Batch, error) {
	s.release()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.closed {
			return nil, io.EOF
		}
		rec, err, ok := s.next()
		if !ok {
			return nil, io.EOF
		}
		if err != nil {
			return nil, &SourceError{File: s.name, Err: fmt.Errorf("read record batch: %w", err)}
		}
		if rec == nil || rec.NumRows() == 0 {
			if rec != nil {
				rec.Release()
			}
			continue
		}
		s.held = rec
		if err := s.fill(rec); err != nil {
			return nil, err
		}
		return &s.batch, nil
	}
}

// fill converts every bound column of rec into s.batch.
func (s *ArrowSource) fill(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	s.batch.Rows = n
	for i := range s.cols {
		c := &s.cols[i]
		arr, nulls, err := c.resolve(rec)
		if err != nil {
			return &SourceError{File: s.name, Column: c.field.Name, Err: err}
		}
		v := &s.batch.Columns[i]
		srcResetVector(v)
		c.conv.reset()
		if err := c.appendArrow(v, arr, nulls); err != nil {
			return &SourceError{File: s.name, Column: c.field.Name, Err: fmt.Errorf("row %d: %w", s.rows, err)}
		}
	}
	s.rows += int64(n)
	return nil
}

// resolve walks the struct path to the bound array, merging the validity
// of every parent struct into a null mask (nil when nothing is null).
func (c *arrowColumn) resolve(rec arrow.RecordBatch) (arrow.Array, []bool, error) {
	arr := rec.Column(c.path[0])
	var nulls []bool
	for _, fi := range c.path[1:] {
		st, ok := arr.(*array.Struct)
		if !ok {
			return nil, nil, fmt.Errorf("%w: batch column is %s, not a struct", ErrColumnMismatch, arr.DataType())
		}
		nulls = mergeNulls(nulls, st, &c.scratch.parent)
		arr = st.Field(fi)
	}
	return arr, mergeNulls(nulls, arr, &c.scratch.nulls), nil
}

// mergeNulls ORs arr's nulls into prev, reusing buf.
func mergeNulls(prev []bool, arr arrow.Array, buf *[]bool) []bool {
	if arr.NullN() == 0 {
		return prev
	}
	n := arr.Len()
	out := (*buf)[:0]
	for i := 0; i < n; i++ {
		out = append(out, arr.IsNull(i) || (prev != nil && prev[i]))
	}
	*buf = out
	return out
}

// srcResetVector empties v, keeping its buffers.
func srcResetVector(v *Vector) {
	v.Nulls = nil
	v.Offsets = v.Offsets[:0]
	v.Ints = v.Ints[:0]
	v.Longs = v.Longs[:0]
	v.Floats = v.Floats[:0]
	v.Doubles = v.Doubles[:0]
	v.Bytes = v.Bytes[:0]
	v.Decimals = v.Decimals[:0]
}

// release hands the previous record batch back to Arrow.
func (s *ArrowSource) release() {
	if s.held != nil {
		s.held.Release()
		s.held = nil
	}
}

// Close releases the held batch and stops the batch sequence.
func (s *ArrowSource) Close() error {
	s.release()
	if !s.closed {
		s.closed = true
		s.stop()
	}
	return nil
}

// RowsRead is the number of rows the source has returned.
func (s *ArrowSource) RowsRead() int64 { return s.rows }
