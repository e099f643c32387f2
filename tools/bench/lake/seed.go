package lake

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
)

// SeedBuilder writes a placeholder tarball while Seeding is set (a table's
// first sync of thousands of files is not what a benchmark measures), and
// builds with the real builder otherwise.
type SeedBuilder struct {
	Seeding atomic.Bool
	Real    watcher.IcebergBuilder
}

var _ watcher.SegmentBuilder = (*SeedBuilder)(nil)

// Build builds req, or writes its placeholder while seeding.
func (b *SeedBuilder) Build(ctx context.Context, req watcher.BuildRequest) (watcher.BuildResult, error) {
	if !b.Seeding.Load() {
		return b.Real.Build(ctx, req)
	}
	name := req.SegmentName(0)
	p := filepath.Join(req.OutDir, name+".tar.gz")
	if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
		return watcher.BuildResult{}, err
	}
	res := watcher.BuildResult{Segments: []pinot.Segment{{Name: name, TarPath: p}}, FileRows: map[string]int64{}}
	for _, f := range req.Unit.Files {
		res.FileRows[f.Path] = f.Rows
		res.Rows += f.Rows
	}
	return res, nil
}
