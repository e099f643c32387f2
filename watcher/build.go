package watcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/watcher/plan"
)

// IcebergBuilder is the SegmentBuilder that reads a data file through
// iceberg-go (columns matched by field id, deletes applied) and writes Pinot
// segment tarballs with the segments package: one segment per
// MaxRowsPerSegment rows (cut at batch boundaries), none when deletes
// removed every row.
type IcebergBuilder struct {
	// Now stamps creation.meta; nil means time.Now.
	Now func() time.Time
	// BatchRows is the Arrow batch size of the scan (0: iceberg-go's).
	BatchRows int
}

var _ SegmentBuilder = IcebergBuilder{}

// Build converts req.Unit into segments and their tarballs in req.OutDir.
func (b IcebergBuilder) Build(ctx context.Context, req BuildRequest) ([]pinot.Segment, int64, error) {
	opts := []table.ScanOption{table.WithSnapshotID(req.SnapshotID)}
	if b.BatchRows > 0 {
		opts = append(opts, table.WithArrowBatchSize(b.BatchRows))
	}
	scan := req.Source.Scan(opts...)
	arrowSchema, batches, err := scan.ReadTasks(ctx, unitTasks(req.Unit))
	if err != nil {
		return nil, 0, fmt.Errorf("read data file: %w", err)
	}
	src, err := segments.NewArrowSource(arrowSchema, batches, segments.ArrowSourceConfig{Schema: req.Schema, Name: unitName(req.Unit)})
	if err != nil {
		return nil, 0, err
	}
	defer src.Close()
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	parts := &partSource{src: src, max: req.MaxRowsPerSegment}
	var (
		out  []pinot.Segment
		rows int64
	)
	for idx := 0; ; idx++ {
		parts.next()
		cfg := segmentConfig(req, req.Unit.SegmentName(idx), now())
		seg, n, err := buildOne(ctx, parts, cfg, req.OutDir)
		if errors.Is(err, segments.ErrNoRows) && idx == 0 {
			return nil, 0, nil // every row deleted: the file holds nothing for Pinot
		}
		if err != nil {
			return nil, 0, err
		}
		out, rows = append(out, seg), rows+n
		if !parts.more(ctx) {
			return out, rows, parts.err
		}
	}
}

// unitTasks are the scan tasks of every file of the unit, in file order.
func unitTasks(u plan.Unit) []table.FileScanTask {
	var out []table.FileScanTask
	for _, f := range u.Files {
		out = append(out, f.Tasks...)
	}
	return out
}

// unitName names a unit in errors and segment metadata: the path of its
// file, or its key and file count when it coalesces several.
func unitName(u plan.Unit) string {
	if len(u.Files) == 1 {
		return u.Files[0].Path
	}
	return fmt.Sprintf("%s (%d small files from %s)", u.Key, len(u.Files), u.Files[0].Path)
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

// partSource cuts a source into parts of at least max rows (the last may
// be smaller), at batch boundaries. It looks one batch ahead to know
// whether another part follows; a batch stays valid until the source's
// next Next, which only the next part calls.
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
	p.rows += int64(b.Rows)
	return b, nil
}

// more reports whether rows remain after the current part.
func (p *partSource) more(ctx context.Context) bool {
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

// segmentConfig maps the table config's indexing choices onto the builder.
func segmentConfig(req BuildRequest, name string, created time.Time) segments.Config {
	cfg := segments.Config{
		Schema:       req.Schema,
		TableName:    req.Table.Name,
		SegmentName:  name,
		CreationTime: created,
		TempDir:      req.OutDir,
		CustomMap:    map[string]string{"floe.sourceFile": unitName(req.Unit)},
	}
	if tc := req.TableConfig; tc != nil {
		cfg.TimeColumn = tc.SegmentsConfig.TimeColumnName
		cfg.NoDictionary = tc.TableIndexConfig.NoDictionaryColumns
		cfg.Inverted = tc.TableIndexConfig.InvertedIndexColumns
		if len(tc.TableIndexConfig.SortedColumn) > 0 {
			cfg.SortedColumn = tc.TableIndexConfig.SortedColumn[0]
		}
	}
	return cfg
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
