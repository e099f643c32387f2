// Package arrow is the Arrow record batch Source of the segment builder:
// the batches an Iceberg scan yields (deletes applied, columns matched by
// field id) become Pinot rows through the segments.Source contract.
package arrow

import (
	"context"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/convert"
)

// Config says how Arrow record batches become Pinot rows.
type Config struct {
	// Schema is the Pinot schema; batches hold its fields in order.
	Schema *spec.Schema
	// Columns binds a Pinot column to an Arrow column path. Struct
	// fields are reached with dots ("address.city"). A Pinot column that
	// is not listed binds to the Arrow column of the same name.
	Columns map[string]string
	// Name names the input in errors, for example the data file path.
	Name string
}

// Source is a segments.Source fed by Arrow record batches, such as the batches
// an Iceberg scan yields with deletes applied.
type Source struct {
	name   string
	cols   []arrowColumn
	next   func() (arrow.RecordBatch, error, bool)
	stop   func()
	held   arrow.RecordBatch
	batch  segments.Batch
	rows   int64
	closed bool
}

var _ segments.Source = (*Source)(nil)

// arrowColumn is one Pinot column bound to an Arrow column.
type arrowColumn struct {
	field   spec.FieldSpec
	path    []int // field index at each struct level
	conv    *convert.Converter
	scratch arrowScratch
}

// NewSource binds the Pinot schema in cfg to the Arrow schema and
// returns a segments.Source that drains batches. The source releases each batch
// when it moves to the next one and on Close.
func NewSource(schema *arrow.Schema, batches iter.Seq2[arrow.RecordBatch, error], cfg Config) (*Source, error) {
	if cfg.Schema == nil {
		return nil, &segments.SourceError{File: cfg.Name, Err: fmt.Errorf("%w: no Pinot schema", segments.ErrColumnMismatch)}
	}
	s := &Source{name: cfg.Name}
	for _, f := range cfg.Schema.Fields {
		path := f.Name
		if p, ok := cfg.Columns[f.Name]; ok {
			path = p
		}
		col, err := bindArrowColumn(schema, f, path)
		if err != nil {
			return nil, &segments.SourceError{File: cfg.Name, Column: f.Name, Err: err}
		}
		s.cols = append(s.cols, col)
	}
	s.next, s.stop = iter.Pull2(batches)
	s.batch.Columns = make([]segments.Vector, len(s.cols))
	return s, nil
}

// bindArrowColumn resolves a dotted path in the Arrow schema.
func bindArrowColumn(schema *arrow.Schema, f spec.FieldSpec, path string) (arrowColumn, error) {
	fields := schema.Fields()
	var idx []int
	var dt arrow.DataType
	rest := path
	for rest != "" {
		i, consumed := matchField(fields, rest)
		if i < 0 {
			return arrowColumn{}, fmt.Errorf("%w: no Arrow column %q", segments.ErrColumnMismatch, path)
		}
		idx = append(idx, i)
		dt = fields[i].Type
		rest = strings.TrimPrefix(rest[consumed:], ".")
		if rest == "" {
			break
		}
		st, ok := dt.(*arrow.StructType)
		if !ok {
			return arrowColumn{}, fmt.Errorf("%w: Arrow column %q: %s is not a struct", segments.ErrColumnMismatch, path, fields[i].Name)
		}
		fields = st.Fields()
	}
	if len(idx) == 0 {
		return arrowColumn{}, fmt.Errorf("%w: empty Arrow column path", segments.ErrColumnMismatch)
	}
	st, err := arrowSrcType(dt)
	if err != nil {
		return arrowColumn{}, err
	}
	conv, err := convert.New(st, f)
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
func (s *Source) Next(ctx context.Context) (*segments.Batch, error) {
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
			return nil, &segments.SourceError{File: s.name, Err: fmt.Errorf("read record batch: %w", err)}
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
func (s *Source) fill(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	s.batch.Rows = n
	for i := range s.cols {
		c := &s.cols[i]
		arr, nulls, err := c.resolve(rec)
		if err != nil {
			return &segments.SourceError{File: s.name, Column: c.field.Name, Err: err}
		}
		v := &s.batch.Columns[i]
		v.Reset()
		c.conv.Reset()
		if err := c.appendArrow(v, arr, nulls); err != nil {
			return &segments.SourceError{File: s.name, Column: c.field.Name, Err: fmt.Errorf("row %d: %w", s.rows, err)}
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
			return nil, nil, fmt.Errorf("%w: batch column is %s, not a struct", segments.ErrColumnMismatch, arr.DataType())
		}
		nulls = convert.MergeNulls(nulls, st, &c.scratch.parent)
		arr = st.Field(fi)
	}
	return arr, convert.MergeNulls(nulls, arr, &c.scratch.nulls), nil
}

// release hands the previous record batch back to Arrow.
func (s *Source) release() {
	if s.held != nil {
		s.held.Release()
		s.held = nil
	}
}

// Close releases the held batch and stops the batch sequence.
func (s *Source) Close() error {
	s.release()
	if !s.closed {
		s.closed = true
		s.stop()
	}
	return nil
}

// RowsRead is the number of rows the source has returned.
func (s *Source) RowsRead() int64 { return s.rows }
