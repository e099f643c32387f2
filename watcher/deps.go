package watcher

import (
	"context"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher/plan"
)

// TableLoader loads the Iceberg table behind an external table.
type TableLoader interface {
	LoadTable(ctx context.Context, t checkpoint.Table) (*Source, error)
}

// Source is a loaded Iceberg table.
type Source struct {
	Table            *table.Table
	MetadataLocation string
}

// SegmentBuilder turns one unit of Iceberg data files (with their deletes
// applied) into segment tarballs.
type SegmentBuilder interface {
	Build(ctx context.Context, req BuildRequest) ([]pinot.Segment, int64, error)
}

// BuildRequest is one unit to convert.
type BuildRequest struct {
	Table       checkpoint.Table
	Schema      *pinot.Schema
	TableConfig *pinot.TableConfig
	Source      *table.Table
	SnapshotID  int64
	Unit        plan.Unit
	OutDir      string
	// MaxRowsPerSegment caps a segment's rows (0: no cap); larger files
	// become several segments.
	MaxRowsPerSegment int64
}

// Clock is the time source (tests inject a fake).
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }
