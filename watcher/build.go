package watcher

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/segments"
)

// IcebergBuilder is the SegmentBuilder that reads a data file through
// iceberg-go (columns matched by field id, deletes applied) and writes a
// Pinot segment tarball with the segments package.
type IcebergBuilder struct {
	// Now stamps creation.meta; nil means time.Now.
	Now func() time.Time
}

var _ SegmentBuilder = IcebergBuilder{}

// Build converts req.File into one segment and its tarball in req.OutDir.
func (b IcebergBuilder) Build(ctx context.Context, req BuildRequest) ([]pinot.Segment, int64, error) {
	scan := req.Source.Scan(table.WithSnapshotID(req.SnapshotID))
	arrowSchema, batches, err := scan.ReadTasks(ctx, req.File.Tasks)
	if err != nil {
		return nil, 0, fmt.Errorf("read data file: %w", err)
	}
	src, err := segments.NewArrowSource(arrowSchema, batches, segments.ArrowSourceConfig{Schema: req.Schema, Name: req.File.Path})
	if err != nil {
		return nil, 0, err
	}
	defer src.Close()
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	cfg := segmentConfig(req, now())
	res, err := segments.Build(ctx, src, cfg, req.OutDir)
	if err != nil {
		return nil, 0, fmt.Errorf("build segment %s: %w", cfg.SegmentName, err)
	}
	tarPath := filepath.Join(req.OutDir, cfg.SegmentName+".tar.gz")
	if err := writeTar(ctx, res.Dir, tarPath); err != nil {
		return nil, 0, err
	}
	_ = os.RemoveAll(res.Dir)
	return []pinot.Segment{{Name: cfg.SegmentName, TarPath: tarPath}}, res.Rows, nil
}

// segmentConfig maps the table config's indexing choices onto the builder.
func segmentConfig(req BuildRequest, created time.Time) segments.Config {
	cfg := segments.Config{
		Schema:       req.Schema,
		TableName:    req.Table.Name,
		SegmentName:  req.File.SegmentName,
		CreationTime: created,
		TempDir:      req.OutDir,
		CustomMap:    map[string]string{"floe.sourceFile": req.File.Path},
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
