package watcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/arrow"
	floeparquet "github.com/floehq/floe/segments/parquet"
	"github.com/floehq/floe/watcher/plan"
)

// IcebergBuilder is the SegmentBuilder that reads a unit's data files
// through iceberg-go (columns matched by field id, deletes applied: the
// position and equality deletes by floe, from BuildRequest.Deletes, B1
// and B2), one file after another, and writes Pinot segment tarballs with
// the segments package: ⌈rows/MaxRowsPerSegment⌉ segments of even size
// (partSize, partSource), none when deletes removed every row.
type IcebergBuilder struct {
	// Now stamps creation.meta; nil means time.Now.
	Now func() time.Time
	// BatchRows is the batch size of the reads (0: the readers' own).
	BatchRows int
	// ScanOnly reads every file through iceberg-go's Arrow scan. Without
	// it, a data file no delete file applies to, whose columns all bind by
	// Iceberg field id (or, in a file written without field ids, by the
	// table's name mapping), is read with floe's own Parquet source: the
	// same values at lower CPU and memory (docs/benchmarks.md, "The sync
	// path").
	ScanOnly bool
	// ScanDeletes has iceberg-go's scan apply every delete file, read
	// again for each data file it applies to, as floe did before its
	// delete cache (B2); kept for benchmarks and as the reference of tests.
	ScanDeletes bool
}

var _ SegmentBuilder = IcebergBuilder{}

// Build converts req.Unit into segments and their tarballs in req.OutDir.
func (b IcebergBuilder) Build(ctx context.Context, req BuildRequest) (BuildResult, error) {
	files := &unitSource{b: b, req: req, rows: map[string]int64{}, deletes: req.Deletes}
	if files.deletes == nil {
		files.deletes = NewDeleteCache(0) // the unit's own: its files share their delete files
	}
	defer files.Close()
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	parts := &partSource{src: files, max: partSize(req.Unit, req.MaxRowsPerSegment)}
	var out BuildResult
	for idx := 0; ; idx++ {
		parts.next()
		cfg := segmentConfig(req, req.SegmentName(idx), now())
		seg, n, err := buildOne(ctx, parts, cfg, req.OutDir)
		if errors.Is(err, segments.ErrNoRows) && idx == 0 {
			return BuildResult{FileRows: files.rows}, nil // every row deleted: the unit holds nothing for Pinot
		}
		if err != nil {
			removeTarballs(out.Segments)
			return BuildResult{}, err
		}
		out.Segments, out.Rows = append(out.Segments, seg), out.Rows+n
		if !parts.more(ctx) {
			out.FileRows = files.rows
			if parts.err != nil {
				removeTarballs(out.Segments)
				return BuildResult{}, parts.err
			}
			return out, nil
		}
	}
}

// unitSource reads the unit's files in order as one source and counts the
// rows each gave.
type unitSource struct {
	b    IcebergBuilder
	req  BuildRequest
	next int             // index of the next file to open
	cur  segments.Source // the open file, nil between files
	path string
	rows map[string]int64
	// deletes holds the decoded delete files (B2).
	deletes *DeleteCache
	// bind, sc and fsys are the same for every file of the unit: worked
	// out on first use (bound, schema, fs).
	bind *binding
	sc   *iceberg.Schema
	fsys iceio.IO
}

// bound is the unit's Pinot columns bound to the snapshot's fields.
func (u *unitSource) bound() binding {
	if u.bind == nil {
		b := bindSnapshot(u.req)
		u.bind = &b
	}
	return *u.bind
}

// schema is the schema of the snapshot the unit is built from.
func (u *unitSource) schema() *iceberg.Schema {
	if u.sc == nil {
		u.sc = snapshotSchemaOf(u.req.Source, u.req.SnapshotID)
	}
	return u.sc
}

// fs is the table's file IO.
func (u *unitSource) fs(ctx context.Context) (iceio.IO, error) {
	if u.fsys == nil {
		fsys, err := u.req.Source.FS(ctx)
		if err != nil {
			return nil, err
		}
		u.fsys = fsys
	}
	return u.fsys, nil
}

// Next returns the next batch of the open file, opening the next file at
// the end of one.
func (u *unitSource) Next(ctx context.Context) (*segments.Batch, error) {
	for {
		if u.cur == nil {
			if u.next >= len(u.req.Unit.Files) {
				return nil, io.EOF
			}
			if err := u.open(ctx, u.req.Unit.Files[u.next]); err != nil {
				return nil, err
			}
			u.next++
		}
		b, err := u.cur.Next(ctx)
		if errors.Is(err, io.EOF) {
			u.cur.Close()
			u.cur = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		u.rows[u.path] += int64(b.Rows)
		return b, nil
	}
}

// open starts reading one data file with its deletes applied: directly
// when it can, else through the Iceberg scan.
func (u *unitSource) open(ctx context.Context, f plan.File) error {
	tasks, filter, err := u.ownDeletes(ctx, f)
	if err != nil {
		return fmt.Errorf("read deletes of data file %s: %w", f.Path, err)
	}
	src, ok, err := u.openDirect(ctx, f, tasks, filter)
	if err != nil {
		return err
	}
	if ok {
		u.cur, u.path, u.rows[f.Path] = src, f.Path, 0
		return nil
	}
	return u.openScan(ctx, f, tasks, filter)
}

// openScan reads f through iceberg-go's scan of tasks (columns projected
// by field id) and the Arrow source; filter, if any, applies the position
// and equality deletes ownDeletes took out of the tasks (B1, B2); the
// scan applies what the tasks keep.
func (u *unitSource) openScan(ctx context.Context, f plan.File, tasks []table.FileScanTask, filter *deleteFilter) error {
	opts := []table.ScanOption{table.WithSnapshotID(u.req.SnapshotID)}
	if u.b.BatchRows > 0 {
		opts = append(opts, table.WithArrowBatchSize(u.b.BatchRows))
	}
	arrowSchema, batches, err := u.req.Source.Scan(opts...).ReadTasks(ctx, tasks)
	if err != nil {
		return fmt.Errorf("read data file %s: %w", f.Path, err)
	}
	if filter != nil {
		batches = filter.wrap(ctx, batches)
	}
	b := u.bound()
	src, err := arrow.NewSource(arrowSchema, batches, arrow.Config{Schema: b.read, Columns: b.paths, Name: f.Path})
	if err != nil {
		return err
	}
	u.cur, u.path, u.rows[f.Path] = b.wrap(src), f.Path, 0
	return nil
}

// ownDeletes returns the scan tasks of f and the filter that applies
// their position and equality deletes (nil: the tasks apply them, or
// there are none).
func (u *unitSource) ownDeletes(ctx context.Context, f plan.File) ([]table.FileScanTask, *deleteFilter, error) {
	if u.b.ScanDeletes || !hasDeletes(f) {
		return f.Tasks, nil, nil
	}
	fsys, err := u.fs(ctx)
	if err != nil {
		return nil, nil, err
	}
	tasks, filter, ok, err := ownDeletes(ctx, u.deletes, fsys, u.schema(), f)
	if err != nil || !ok {
		return f.Tasks, nil, err
	}
	if filter.empty() {
		filter = nil
	}
	return tasks, filter, nil
}

// openDirect opens f with floe's Parquet source, binding each Pinot column
// to its Iceberg field id (bindSnapshot), when nothing needs the scan: no
// delete file is left in tasks for the scan to apply, floe's filter (if
// any) finds its keys among the source's columns (directKeys), and the
// file has every bound field (ok false otherwise, e.g. a column added
// after the file was written, which the scan fills with nulls).
func (u *unitSource) openDirect(ctx context.Context, f plan.File, tasks []table.FileScanTask, filter *deleteFilter) (segments.Source, bool, error) {
	if u.b.ScanOnly || taskDeletes(tasks) || (u.b.ScanDeletes && hasDeletes(f)) {
		return nil, false, nil
	}
	b := u.bound()
	var keyCols [][]int
	var keyTypes [][]spec.DataType
	if filter != nil {
		var ok bool
		if keyCols, keyTypes, ok = directKeys(b, u.schema(), filter); !ok {
			return nil, false, nil
		}
	}
	fsys, err := u.fs(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("open data file %s: %w", f.Path, err)
	}
	file, err := fsys.Open(f.Path)
	if err != nil {
		return nil, false, fmt.Errorf("open data file %s: %w", f.Path, err)
	}
	info, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, false, fmt.Errorf("open data file %s: %w", f.Path, err)
	}
	src, err := floeparquet.NewSource(ctx, file, info.Size(), floeparquet.Config{Schema: b.read, FieldIDs: b.ids,
		NameMapping: b.names, Name: f.Path, BatchRows: u.b.BatchRows, TempDir: u.req.OutDir})
	if errors.Is(err, segments.ErrColumnMismatch) {
		file.Close()
		return nil, false, nil
	}
	if err != nil {
		file.Close()
		return nil, false, err
	}
	var out segments.Source = closeBoth{Source: src, file: file}
	if filter != nil {
		out = &filteredSource{Source: out, flt: filter, cols: keyCols, types: keyTypes}
	}
	return b.wrap(out), true, nil
}

// taskDeletes reports whether a delete file is attached to tasks.
func taskDeletes(tasks []table.FileScanTask) bool {
	for _, t := range tasks {
		if len(t.DeleteFiles)+len(t.EqualityDeleteFiles)+len(t.DeletionVectorFiles) > 0 {
			return true
		}
	}
	return false
}

// hasDeletes reports whether any delete file applies to f.
func hasDeletes(f plan.File) bool {
	return taskDeletes(f.Tasks) || f.DeleteFingerprint != ""
}

// closeBoth closes a Parquet source and the file under it.
type closeBoth struct {
	segments.Source
	file io.Closer
}

func (c closeBoth) Close() error {
	return errors.Join(c.Source.Close(), c.file.Close())
}

// Close closes the open file, if any.
func (u *unitSource) Close() error {
	if u.cur != nil {
		err := u.cur.Close()
		u.cur = nil
		return err
	}
	return nil
}

// buildOne writes one segment and its tarball.
func buildOne(ctx context.Context, src segments.Source, cfg segments.Config, outDir string) (pinot.Segment, int64, error) {
	res, err := segments.Build(ctx, src, cfg, outDir)
	if err != nil {
		return pinot.Segment{}, 0, fmt.Errorf("build segment %s: %w", cfg.SegmentName, err)
	}
	tarPath := filepath.Join(outDir, cfg.SegmentName+".tar.gz")
	if err := writeTar(ctx, res.Dir, tarPath); err != nil {
		return pinot.Segment{}, 0, err
	}
	_ = os.RemoveAll(res.Dir)
	return pinot.Segment{Name: cfg.SegmentName, TarPath: tarPath}, res.Rows, nil
}

// plannedSegments is how many segments a unit gives at most: its rows
// (unitRecords: record counts less the rows deletion vectors delete;
// other deletes only remove more) cut at max rows per segment (I9).
func plannedSegments(u plan.Unit, max int64) int {
	return segmentsFor(unitRecords(u), max)
}

// segmentsFor is how many parts of at most max rows hold rows (0: no cap).
func segmentsFor(rows, max int64) int {
	if max <= 0 || rows <= max {
		return 1
	}
	return int((rows + max - 1) / max)
}

// partSize is the rows of every segment of a unit but the last: its
// files' record counts split evenly into plannedSegments parts, at most
// max (0: no cap). Parts of that size make exactly plannedSegments
// segments of a unit whose rows no delete removed, with no small last one.
func partSize(u plan.Unit, max int64) int64 {
	rows := unitRecords(u)
	n := int64(segmentsFor(rows, max))
	if max <= 0 || n <= 1 {
		return max
	}
	return (rows + n - 1) / n
}

// unitRecords sums the record counts of the unit's files, less the rows
// their deletion vectors delete (a DV's record count is its cardinality:
// exact). It bounds the rows a build gives from above: position and
// equality delete files may remove more, never fewer.
func unitRecords(u plan.Unit) int64 {
	var rows int64
	for _, f := range u.Files {
		rows += f.Rows - dvDeleted(f)
	}
	return rows
}

// dvDeleted is the rows the deletion vector of f deletes: 0 unless f is
// read whole by one scan task with one DV and no position delete file
// (whose positions a DV may repeat).
func dvDeleted(f plan.File) int64 {
	if len(f.Tasks) != 1 {
		return 0
	}
	t := f.Tasks[0]
	if t.Start != 0 || len(t.DeletionVectorFiles) != 1 || len(t.DeleteFiles) > 0 {
		return 0
	}
	return min(max(0, t.DeletionVectorFiles[0].Count()), f.Rows)
}

// partSource cuts a source into parts of exactly max rows (the last may
// be smaller), splitting the batch that crosses a part's end; with max
// the unit's partSize, a unit gives the segments a streamed replacement
// names before the build (plannedSegments). It looks one batch ahead to know
// whether another part follows; a batch stays valid until the source's
// next Next, which only the next part calls (the rest of a split batch
// waits in pending, so no Next is called before it is handed out).
type partSource struct {
	src     segments.Source
	max     int64
	rows    int64 // rows handed out in the current part
	pending *segments.Batch
	done    bool
	err     error
}

// next starts a new part.
func (p *partSource) next() { p.rows = 0 }

// Next returns the part's next batch, or io.EOF at the end of the part.
func (p *partSource) Next(ctx context.Context) (*segments.Batch, error) {
	if p.max > 0 && p.rows >= p.max {
		return nil, io.EOF
	}
	b := p.pending
	p.pending = nil
	if b == nil {
		if p.done {
			return nil, io.EOF
		}
		var err error
		if b, err = p.src.Next(ctx); errors.Is(err, io.EOF) {
			p.done = true
			return nil, io.EOF
		} else if err != nil {
			return nil, err
		}
	}
	if p.max > 0 && p.rows+int64(b.Rows) > p.max {
		var rest *segments.Batch
		b, rest = splitBatch(b, int(p.max-p.rows))
		p.pending = rest
	}
	p.rows += int64(b.Rows)
	return b, nil
}

// more reports whether rows remain after the current part.
func (p *partSource) more(ctx context.Context) bool {
	if p.pending != nil {
		return true
	}
	if p.done {
		return false
	}
	b, err := p.src.Next(ctx)
	switch {
	case errors.Is(err, io.EOF):
		p.done = true
		return false
	case err != nil:
		p.err, p.done = err, true
		return false
	}
	p.pending = b
	return true
}

// Close is a no-op: Build closes nothing it did not open.
func (p *partSource) Close() error { return nil }

// segmentConfig is the build config of one of the unit's segments: the
// table's (segments.ConfigFor) plus where to spill and which files it holds.
func segmentConfig(req BuildRequest, name string, created time.Time) segments.Config {
	cfg := segments.ConfigFor(req.Schema, req.TableConfig, req.Table.Name, name, created)
	cfg.TempDir = req.OutDir
	cfg.CustomMap = sourceFiles(req.Unit)
	return cfg
}

// sourceFiles names the unit's data files in the segment's custom map.
func sourceFiles(u plan.Unit) map[string]string {
	if len(u.Files) == 1 {
		return map[string]string{"floe.sourceFile": u.Files[0].Path}
	}
	return map[string]string{"floe.unit": u.Key, "floe.sourceFiles": strconv.Itoa(len(u.Files))}
}

func writeTar(ctx context.Context, dir, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create segment tarball: %w", err)
	}
	if err := segments.WriteTarGz(ctx, dir, f); err != nil {
		f.Close()
		return fmt.Errorf("write segment tarball: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write segment tarball: %w", err)
	}
	return nil
}
