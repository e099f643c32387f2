package parquet

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/convert"
)

// pqNestedReader renders a nested Parquet field (struct, map, variant,
// list of non-primitives) as JSON text. It reassembles the values with
// Arrow's Parquet reader, one batch of rows at a time.
type pqNestedReader struct {
	b    *pqBinding
	col  *pqarrow.ColumnReader
	held *arrow.Chunked
	conv *convert.Converter
	// nulls and parent are reused from batch to batch.
	nulls, parent []bool
}

// pqArrowFile is the Arrow view of a Parquet file, opened on first use.
type pqArrowFile struct {
	r  io.ReaderAt
	sz int64
	fr *pqarrow.FileReader
}

func (f *pqArrowFile) open() (*pqarrow.FileReader, error) {
	if f.fr != nil {
		return f.fr, nil
	}
	pf, err := file.NewParquetReader(io.NewSectionReader(f.r, 0, f.sz))
	if err != nil {
		return nil, fmt.Errorf("%w: open for nested columns: %v", segments.ErrCorruptSource, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 8192}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("%w: open for nested columns: %v", segments.ErrCorruptSource, err)
	}
	f.fr = fr
	return fr, nil
}

func newNestedReader(ctx context.Context, af *pqArrowFile, b *pqBinding) (*pqNestedReader, error) {
	fr, err := af.open()
	if err != nil {
		return nil, err
	}
	col, err := fr.GetColumn(ctx, b.top)
	if err != nil {
		return nil, nestedErr("read nested column", err)
	}
	conv, err := convert.New(b.src, b.field)
	if err != nil {
		return nil, err
	}
	return &pqNestedReader{b: b, col: col, conv: conv}, nil
}

// fill appends the next n rows as JSON text.
func (r *pqNestedReader) fill(v *segments.Vector, n int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: decode nested column: %v", segments.ErrCorruptSource, p)
		}
	}()
	v.Reset()
	r.conv.Reset()
	r.release()
	chunked, err := r.col.NextBatch(int64(n))
	if err != nil {
		return nestedErr("read nested column", err)
	}
	r.held = chunked
	if chunked.Len() != n {
		return fmt.Errorf("%w: nested column has %d rows, want %d", segments.ErrCorruptSource, chunked.Len(), n)
	}
	nulls := r.nulls[:0]
	anyNull := false
	for _, chunk := range chunked.Chunks() {
		arr, cn, err := descendStruct(chunk, r.b.sub, &r.parent)
		if err != nil {
			return err
		}
		for i := 0; i < arr.Len(); i++ {
			null := arr.IsNull(i) || (cn != nil && cn[i])
			nulls = append(nulls, null)
			anyNull = anyNull || null
		}
		if err := r.conv.AppendJSON(v, arr, nil); err != nil {
			return err
		}
	}
	r.nulls = nulls
	if anyNull {
		v.Nulls = nulls
		for i, null := range nulls {
			if null {
				v.Bytes[i] = nil
			}
		}
	}
	return nil
}

// descendStruct walks struct fields by name, collecting parent nulls.
func descendStruct(arr arrow.Array, names []string, buf *[]bool) (arrow.Array, []bool, error) {
	var nulls []bool
	for _, name := range names {
		st, ok := arr.(*array.Struct)
		if !ok {
			return nil, nil, fmt.Errorf("%w: %s is not a struct", segments.ErrColumnMismatch, name)
		}
		idx, ok := st.DataType().(*arrow.StructType).FieldIdx(name)
		if !ok {
			return nil, nil, fmt.Errorf("%w: no struct field %s", segments.ErrColumnMismatch, name)
		}
		nulls = convert.MergeNulls(nulls, st, buf)
		arr = st.Field(idx)
	}
	return arr, nulls, nil
}

func (r *pqNestedReader) release() {
	if r.held != nil {
		r.held.Release()
		r.held = nil
	}
}

// nestedErr classifies an error of the Arrow Parquet reader: a page larger
// than that reader takes (256 MiB compressed or uncompressed) is valid
// input too large for floe, anything else is corrupt input.
func nestedErr(what string, err error) error {
	if strings.Contains(err.Error(), "exceeds configured limit") {
		return fmt.Errorf("%w: %s: a Parquet page over the 256 MiB that floe's reader of nested columns takes (%v)",
			segments.ErrTooLarge, what, err)
	}
	return fmt.Errorf("%w: %s: %v", segments.ErrCorruptSource, what, err)
}
