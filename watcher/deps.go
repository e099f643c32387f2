package watcher

import (
	"context"
	"strconv"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
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

// SegmentBuilder turns one unit of a plan (a data file, or several small
// files coalesced, each with its deletes applied) into segment tarballs.
type SegmentBuilder interface {
	Build(ctx context.Context, req BuildRequest) (BuildResult, error)
}

// BuildRequest is one unit to convert.
type BuildRequest struct {
	Table       checkpoint.Table
	Schema      *spec.Schema
	TableConfig *spec.TableConfig
	Source      *table.Table
	SnapshotID  int64
	Unit        plan.Unit
	// SegmentBase starts the unit's segment names ("" = Unit.Key): the
	// unit key, or the key with a generation when a reverted replacement in
	// Pinot still holds the key's names (pinot.ErrSegmentNameReverted).
	SegmentBase string
	OutDir      string
	// MaxRowsPerSegment caps a segment's rows (0: no cap); larger units
	// become several segments.
	MaxRowsPerSegment int64
	// PlannedSegments, when above 0, is how many names the unit holds in
	// the To list of an open streamed replacement (SegmentName(0) onwards):
	// a build that gives more uploads none of them (I9). Builders need not
	// read it.
	PlannedSegments int
	// Deletes is the replica's cache of decoded delete files, shared by
	// its builds (B2); nil: the build reads each delete file once for the
	// unit. Builders need not use it.
	Deletes *DeleteCache
}

// SegmentName is the name of the request's idx-th segment.
func (r BuildRequest) SegmentName(idx int) string {
	if r.SegmentBase == "" {
		return r.Unit.SegmentName(idx)
	}
	return r.SegmentBase + "_" + strconv.Itoa(idx)
}

// BuildResult is what a build produced: the unit's segments in order
// (none when deletes removed every row) and the rows each file gave.
type BuildResult struct {
	Segments []pinot.Segment
	Rows     int64
	FileRows map[string]int64
}

// Clock is the time source (tests inject a fake).
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// scrub applies Deps.Scrub, when set, to text about to be stored.
func (d Deps) scrub(s string) string {
	if d.Scrub == nil || s == "" {
		return s
	}
	return d.Scrub(s)
}
