// Package parquet is the Parquet file Source of the segment builder: it
// reads a file column by column and page by page with parquet-go (nested
// fields through Arrow's Parquet reader, as JSON text), converts each value
// to its Pinot column's stored type and hands the builder batches through
// the segments.Source contract. It also infers a plain Pinot schema from a
// file's columns (InferSchema) for "floe convert".
package parquet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
)

// DefaultBatchRows is how many rows a Source batch holds
// unless configured otherwise.
const DefaultBatchRows = 65536

// Config says how a Parquet file becomes Pinot rows.
type Config struct {
	// Schema is the Pinot schema; batches hold its fields in order.
	Schema *spec.Schema
	// Columns binds a Pinot column to a Parquet column path; struct
	// fields are reached with dots ("address.city"). A Pinot column that
	// is not listed binds to the Parquet column of the same name.
	Columns map[string]string
	// FieldIDs binds a Pinot column to the Parquet column (leaf or group)
	// whose field_id it names, as Iceberg matches columns; it takes
	// precedence over Columns. An id the file lacks fails with
	// segments.ErrColumnMismatch.
	FieldIDs map[string]int
	// NameMapping finds the columns of FieldIDs in a file whose columns
	// carry no field ids at all (written without Iceberg, registered with
	// add_files): by the table's name mapping, as Iceberg readers do. Nil:
	// such a file fails with segments.ErrColumnMismatch.
	NameMapping []MappedField
	// Name names the file in errors; OpenFile sets it to the path.
	Name string
	// BatchRows caps the rows of one batch (default DefaultBatchRows).
	BatchRows int
	// TempDir holds, while it is read, the rewritten copy of a file with
	// pages parquet-go cannot read (the deprecated LZ4 codec, empty v2
	// pages flagged compressed; see needsRewrite) (default os.TempDir()).
	TempDir string
}

// Source is a segments.Source that reads a Parquet file column by column and
// page by page: it holds at most one batch of rows plus the pages those
// rows came from, never the whole file.
type Source struct {
	name      string
	r         io.ReaderAt
	rewritten *os.File // the rewritten copy of the file (needsRewrite), removed on Close
	file      *parquet.File
	closer    io.Closer
	groups    []parquet.RowGroup
	rg        int
	rgRow     int64
	started   bool
	batchN    int
	leaves    []*pqLeafReader
	nested    []*pqNestedReader
	order     []columnFiller
	batch     segments.Batch
	rows      int64
}

var _ segments.Source = (*Source)(nil)

// columnFiller fills one Pinot column of a batch.
type columnFiller interface {
	fill(v *segments.Vector, n int) error
}

// OpenFile opens a Parquet file and binds it to cfg.Schema.
func OpenFile(ctx context.Context, path string, cfg Config) (*Source, error) {
	if cfg.Name == "" {
		cfg.Name = path
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &segments.SourceError{File: cfg.Name, Err: fmt.Errorf("open Parquet file: %w", err)}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &segments.SourceError{File: cfg.Name, Err: fmt.Errorf("stat Parquet file: %w", err)}
	}
	s, err := NewSource(ctx, f, st.Size(), cfg)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.closer = f
	return s, nil
}

// OpenMetadata opens the Parquet metadata of r (size bytes), turning
// decoder panics on corrupt input into errors. A key/value metadata entry
// without a value reads as an empty value.
func OpenMetadata(r io.ReaderAt, size int64) (f *parquet.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", segments.ErrCorruptSource, p)
		}
	}()
	var magic [4]byte
	if size >= 4 {
		if _, err := r.ReadAt(magic[:], size-4); err == nil && string(magic[:]) == "PARE" {
			return nil, fmt.Errorf("%w: encrypted Parquet file (encrypted footer)", segments.ErrUnsupportedInput)
		}
	}
	r, size = repairFooter(r, size)
	f, err = parquet.OpenFile(r, size, parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil && strings.Contains(err.Error(), "signed footer") {
		// A plaintext footer signed with AES-GCM: valid, but floe holds no keys.
		return nil, fmt.Errorf("%w: encrypted Parquet file (plaintext footer, signed)", segments.ErrUnsupportedInput)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: open Parquet file: %v", segments.ErrCorruptSource, err)
	}
	if f.Metadata().EncryptionAlgorithm.Value != nil {
		return nil, fmt.Errorf("%w: encrypted Parquet file (plaintext footer)", segments.ErrUnsupportedInput)
	}
	return f, nil
}

// NewSource reads the Parquet file in r (size bytes).
func NewSource(ctx context.Context, r io.ReaderAt, size int64, cfg Config) (*Source, error) {
	r, size = repairFooter(r, size)
	f, err := OpenMetadata(r, size)
	if err != nil {
		return nil, &segments.SourceError{File: cfg.Name, Err: err}
	}
	if !needsRewrite(r, f.Metadata()) {
		return newSource(ctx, r, size, f, cfg)
	}
	tmp, err := rewriteFile(r, size, f.Metadata(), cfg.TempDir)
	if err != nil {
		return nil, &segments.SourceError{File: cfg.Name, Err: err}
	}
	s, err := openRewritten(ctx, tmp, cfg)
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	s.rewritten = tmp
	return s, nil
}

// openRewritten reads the rewritten copy of a file (see needsRewrite).
func openRewritten(ctx context.Context, tmp *os.File, cfg Config) (*Source, error) {
	st, err := tmp.Stat()
	if err != nil {
		return nil, &segments.SourceError{File: cfg.Name, Err: fmt.Errorf("rewrite Parquet file: %w", err)}
	}
	f, err := OpenMetadata(tmp, st.Size())
	if err != nil {
		return nil, &segments.SourceError{File: cfg.Name, Err: fmt.Errorf("rewrite Parquet file: %w", err)}
	}
	return newSource(ctx, tmp, st.Size(), f, cfg)
}

// newSource binds the opened file to cfg.Schema.
func newSource(ctx context.Context, r io.ReaderAt, size int64, f *parquet.File, cfg Config) (*Source, error) {
	if cfg.Schema == nil {
		return nil, &segments.SourceError{File: cfg.Name, Err: fmt.Errorf("%w: no Pinot schema", segments.ErrColumnMismatch)}
	}
	ft := newFooter(f)
	binds, err := bindParquet(ft, cfg)
	if err != nil {
		return nil, withFile(err, cfg.Name)
	}
	if err := ft.checkChunks(binds); err != nil {
		return nil, withFile(err, cfg.Name)
	}
	s := &Source{name: cfg.Name, r: r, file: f, groups: f.RowGroups(), batchN: cfg.BatchRows}
	if s.batchN <= 0 {
		s.batchN = DefaultBatchRows
	}
	af := &pqArrowFile{r: r, sz: size}
	for i := range binds {
		b := &binds[i]
		if b.leaf != nil {
			lr, err := newLeafReader(b)
			if err != nil {
				return nil, &segments.SourceError{File: cfg.Name, Column: b.field.Name, Err: err}
			}
			s.leaves = append(s.leaves, lr)
			s.order = append(s.order, lr)
			continue
		}
		nr, err := newNestedReader(ctx, af, b)
		if err != nil {
			return nil, &segments.SourceError{File: cfg.Name, Column: b.field.Name, Err: err}
		}
		s.nested = append(s.nested, nr)
		s.order = append(s.order, nr)
	}
	s.batch.Columns = make([]segments.Vector, len(s.order))
	return s, nil
}

// withFile adds the file name to a segments.SourceError that lacks it.
func withFile(err error, name string) error {
	if se, ok := err.(*segments.SourceError); ok && se.File == "" {
		se.File = name
		return se
	}
	return &segments.SourceError{File: name, Err: err}
}

// Next reads the next batch of at most BatchRows rows; a batch never
// spans row groups.
func (s *Source) Next(ctx context.Context) (*segments.Batch, error) {
	for _, l := range s.leaves {
		l.release()
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.rg >= len(s.groups) {
			return nil, io.EOF
		}
		rg := s.groups[s.rg]
		if !s.started {
			for _, l := range s.leaves {
				l.startRowGroup(rg, newIndexCheck(s.r, s.file.Metadata(), s.rg, l.b.leaf))
			}
			s.started = true
		}
		left := rg.NumRows() - s.rgRow
		if left <= 0 {
			s.rg, s.rgRow, s.started = s.rg+1, 0, false
			continue
		}
		n := int(min(int64(s.batchN), left))
		if err := s.fill(n); err != nil {
			return nil, err
		}
		s.rgRow += int64(n)
		return &s.batch, nil
	}
}

// fill reads n rows of every column.
func (s *Source) fill(n int) error {
	s.batch.Rows = n
	for i, c := range s.order {
		if err := c.fill(&s.batch.Columns[i], n); err != nil {
			col := ""
			switch r := c.(type) {
			case *pqLeafReader:
				col = r.b.field.Name
			case *pqNestedReader:
				col = r.b.field.Name
			}
			return &segments.SourceError{File: s.name, Column: col,
				Err: fmt.Errorf("row group %d, rows from %d: %w", s.rg, s.rows, err)}
		}
	}
	s.rows += int64(n)
	return nil
}

// NumRows is the file's row count from its footer.
func (s *Source) NumRows() int64 { return s.file.NumRows() }

// RowsRead is the number of rows the source has returned.
func (s *Source) RowsRead() int64 { return s.rows }

// Close releases pages and closes the file if the source opened it.
func (s *Source) Close() error {
	for _, l := range s.leaves {
		l.release()
		l.close()
	}
	for _, n := range s.nested {
		n.release()
	}
	var err error
	if s.rewritten != nil {
		err = errors.Join(s.rewritten.Close(), os.Remove(s.rewritten.Name()))
		s.rewritten = nil
	}
	if s.closer != nil {
		err = errors.Join(err, s.closer.Close())
		s.closer = nil
	}
	return err
}
