package segments

import (
	"context"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/floehq/floe/pinot/spec"
)

// forceGCRows: segments of at least this many rows collect garbage after
// each finished column, which keeps peak RSS near one column's worth (a
// forced collection is a cost the whole process pays, so small segments,
// the common case in a busy server, skip it).
const forceGCRows = 1 << 20

// ErrNoRows is returned when the source has no rows: Pinot loads an empty
// segment as an EmptyIndexSegment, which floe never writes.
var ErrNoRows = errors.New("source has no rows")

// CreatorVersion goes into metadata.properties as creator.version.
const CreatorVersion = "floe-format-1"

// Result describes a segment Build wrote.
type Result struct {
	Dir       string // <outDir>/<SegmentName>
	Name      string
	Rows      int64
	Columns   []ColumnResult // schema order
	StartTime int64          // segment.start.time (time column only)
	EndTime   int64
	TimeUnit  string
	CRC       int64 // creation.meta crc
	DataCRC   int64 // creation.meta dataCrc
	Bytes     int64 // total size of the v3 files
}

// ColumnResult describes one column of a built segment.
type ColumnResult struct {
	Name        string
	DataType    spec.DataType
	SingleValue bool
	Encoding    string // EncodingDictionary or EncodingRaw
	Compression string // raw columns only
	Cardinality int
	Sorted      bool
	Inverted    bool
	NullVector  bool
	Nulls       int   // rows that were null (or became null: NaN, empty MV)
	Bytes       int64 // bytes of the column's buffers in columns.psf (markers included)
}

// Build reads src to the end and writes
// <outDir>/<SegmentName>/v3/{columns.psf,index_map,metadata.properties,creation.meta}.
// On any error nothing is left behind: the segment is written to a temporary
// directory in outDir and renamed at the end (replacing an older directory
// of the same name). Build does not close src.
func Build(ctx context.Context, src Source, cfg Config, outDir string) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.CreationTime.IsZero() {
		cfg.CreationTime = time.Now()
	}
	spillDir, err := os.MkdirTemp(cfg.TempDir, "floe-seg-")
	if err != nil {
		return nil, fmt.Errorf("build segment %s: spill dir: %w", cfg.SegmentName, err)
	}
	defer os.RemoveAll(spillDir)
	b, err := newBuilder(cfg, spillDir)
	if err != nil {
		return nil, err
	}
	defer b.cleanup()
	if err := b.read(ctx, src); err != nil {
		return nil, err
	}
	if b.rows == 0 {
		return nil, fmt.Errorf("build segment %s: %w", cfg.SegmentName, ErrNoRows)
	}
	if b.rows > 1<<31-1 {
		return nil, fmt.Errorf("build segment %s: %d rows exceed Pinot's int doc ids", cfg.SegmentName, b.rows)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("build segment %s: %w", cfg.SegmentName, err)
	}
	tmpSeg, err := os.MkdirTemp(outDir, "."+cfg.SegmentName+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("build segment %s: %w", cfg.SegmentName, err)
	}
	defer os.RemoveAll(tmpSeg)
	res, err := b.write(ctx, tmpSeg, spillDir)
	if err != nil {
		return nil, fmt.Errorf("build segment %s: %w", cfg.SegmentName, err)
	}
	final := filepath.Join(outDir, cfg.SegmentName)
	if err := os.RemoveAll(final); err != nil {
		return nil, fmt.Errorf("build segment %s: %w", cfg.SegmentName, err)
	}
	if err := os.Rename(tmpSeg, final); err != nil {
		return nil, fmt.Errorf("build segment %s: %w", cfg.SegmentName, err)
	}
	res.Dir = final
	return res, nil
}

type builder struct {
	cfg  Config
	cols []*column
	rows int64
}

func newBuilder(cfg Config, spillDir string) (*builder, error) {
	b := &builder{cfg: cfg}
	for _, f := range cfg.Schema.Fields {
		c, err := newColumn(f, cfg.Schema.EnableColumnNullHandle)
		if err != nil {
			return nil, err
		}
		c.spillDir = spillDir
		c.noDict = slices.Contains(cfg.NoDictionary, f.Name)
		c.keepDict = slices.Contains(cfg.Dictionary, f.Name) || slices.Contains(cfg.Inverted, f.Name) || cfg.SortedColumn == f.Name
		if f.Name == cfg.TimeColumn {
			timeColumnDefault(c, cfg)
		}
		b.cols = append(b.cols, c)
	}
	return b, nil
}

// Valid time range for the time column's null substitute, in ms
// (TimeUtils.VALID_MIN_TIME_MILLIS / VALID_MAX_TIME_MILLIS).
const (
	validMinTimeMillis = 31536000000   // 1971-01-01
	validMaxTimeMillis = 3187296000000 // 2071-01-01
)

// timeColumnDefault follows Pinot for nulls in the table's time column: if
// the default null value is outside the valid time range, nulls become the
// current time instead. floe uses Config.CreationTime as "now" so that the
// same input and config give the same bytes (S1).
func timeColumnDefault(c *column, cfg Config) {
	unit, err := timeUnitOf(c.spec)
	if err != nil {
		return
	}
	ms := unitMillis(unit)
	if ms == 0 {
		return // sub-millisecond units: keep the default
	}
	def := c.def.i64
	if c.stored == spec.Int {
		def = int64(c.def.i32)
	}
	if v := def * ms; def > -1<<62/ms && def < 1<<62/ms && v >= validMinTimeMillis && v <= validMaxTimeMillis {
		return
	}
	now := cfg.CreationTime
	if now.IsZero() {
		now = time.Now()
	}
	t := now.UnixMilli() / ms
	c.def.i64, c.def.i32 = t, int32(t)
}

// cleanup closes spill files of columns that never finished.
func (b *builder) cleanup() {
	for _, c := range b.cols {
		if c == nil {
			continue
		}
		if c.rows2 != nil {
			c.rows2.remove()
		}
		for _, sp := range []*spill{spillOf(c.ints), spillOf(c.longs), spillOf(c.floats), spillOf(c.doubles)} {
			if sp != nil {
				sp.remove()
			}
		}
	}
}

func spillOf[T int32 | int64 | float32 | float64](d *numDict[T]) *spill {
	if d == nil {
		return nil
	}
	return d.sp
}

// read consumes the source, feeding each batch's columns in parallel.
func (b *builder) read(ctx context.Context, src Source) error {
	workers := runtime.GOMAXPROCS(0)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read source: %w", err)
		}
		if batch == nil || batch.Rows == 0 {
			continue
		}
		if len(batch.Columns) != len(b.cols) {
			return fmt.Errorf("read source: batch has %d columns, schema has %d", len(batch.Columns), len(b.cols))
		}
		if workers == 1 || len(b.cols) == 1 || batch.Rows < 256 {
			for i, c := range b.cols {
				if err := c.add(&batch.Columns[i], batch.Rows); err != nil {
					return err
				}
			}
		} else {
			var g errgroup.Group
			g.SetLimit(workers)
			for i, c := range b.cols {
				g.Go(func() error { return c.add(&batch.Columns[i], batch.Rows) })
			}
			if err := g.Wait(); err != nil {
				return err
			}
		}
		b.rows += int64(batch.Rows)
	}
}

// write finishes every column in parallel into part files, then assembles
// the v3 directory.
func (b *builder) write(ctx context.Context, segDir, spillDir string) (*Result, error) {
	cfg := b.cfg
	n := len(b.cols)
	results := make([]ColumnResult, n)
	metas := make([]columnMeta, n)
	entries := make([][]psfEntry, n)
	parts := make([]string, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, c := range b.cols {
		name := c.spec.Name
		plan := columnPlan{
			forceRaw:    slices.Contains(cfg.NoDictionary, name),
			forceDict:   slices.Contains(cfg.Dictionary, name),
			inverted:    slices.Contains(cfg.Inverted, name),
			mustSort:    cfg.SortedColumn == name,
			compression: cfg.Compression[name],
			tmpDir:      spillDir,
			partPath:    filepath.Join(spillDir, strconv.Itoa(i)+".part"),
		}
		parts[i] = plan.partPath
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			r, m, e, err := c.finish(plan)
			if err != nil {
				return err
			}
			results[i], metas[i], entries[i] = r, m, e
			b.cols[i] = nil // let the column's memory go
			if b.rows >= forceGCRows {
				runtime.GC() // and the heap shrink back before the next column grows it
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// columns.psf holds columns in name order, like Pinot's converter.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, c int) int { return compareUTF16(metas[a].spec.Name, metas[c].spec.Name) })
	sortedParts := make([]string, n)
	sortedEntries := make([][]psfEntry, n)
	for k, i := range order {
		sortedParts[k], sortedEntries[k] = parts[i], entries[i]
	}
	v3dir := filepath.Join(segDir, "v3")
	if err := os.Mkdir(v3dir, 0o755); err != nil {
		return nil, err
	}
	all, sum, err := assembleV3(v3dir, sortedParts, sortedEntries)
	if err != nil {
		return nil, err
	}
	res := &Result{Name: cfg.SegmentName, Rows: b.rows, Columns: results}
	props, err := segmentProperties(cfg, b.rows, metas, res)
	if err != nil {
		return nil, err
	}
	sum = adler32Combine(sum, adler32.Checksum(props), int64(len(props)))
	if err := os.WriteFile(filepath.Join(v3dir, "metadata.properties"), props, 0o644); err != nil {
		return nil, err
	}
	dsum := dataCRC(all)
	res.CRC, res.DataCRC = int64(sum), int64(dsum)
	if err := writeCreationMeta(filepath.Join(v3dir, "creation.meta"), sum, dsum, cfg.CreationTime); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(v3dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			res.Bytes += fi.Size()
		}
	}
	return res, nil
}
