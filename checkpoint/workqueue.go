package checkpoint

import (
	"context"
	"time"
)

// WorkQueue hands the builds of a large run out to every replica. The
// run's lease holder publishes one item per unit of work (a data file or a
// group of small files); each replica's builders claim items, build and
// upload the unit's segments, and complete the item with its result; the
// holder collects results and commits the checkpoint under its lease (the
// queue never commits anything).
//
// A claimed item whose builder stops heartbeating for longer than the
// claim's stale time is handed to another builder (claim-on-timeout), so a
// dead replica's work is redone. Right before it uploads, a builder calls
// Confirm: it still holds the item, and the item's fencing token is still
// the table's current lease (W1). A builder whose item was reclaimed, or
// whose run lost its lease, uploads nothing.
//
// Implementations: Redis (a stream with one consumer group shared by all
// replicas, see doc.go) and Memory (one process).
type WorkQueue interface {
	// Publish adds items; it sets each item's ID.
	Publish(ctx context.Context, items []WorkItem) ([]WorkItem, error)
	// Claim returns the next item for builder: first one whose holder
	// stopped heartbeating more than stale ago, else a new one, waiting up
	// to wait. ok is false when there was none.
	Claim(ctx context.Context, builder string, wait, stale time.Duration) (item WorkItem, ok bool, err error)
	// Heartbeat keeps builder's claim on item fresh. ErrFenced when the
	// item was reclaimed or completed by someone else.
	Heartbeat(ctx context.Context, builder string, item WorkItem) error
	// Confirm checks W1 right before an upload: builder holds the item and
	// the item's lease (table, owner, token) is the table's current lease.
	// ErrFenced otherwise.
	Confirm(ctx context.Context, builder string, item WorkItem) error
	// Complete publishes the item's result for its run and removes the
	// item, if builder still holds it (ErrFenced otherwise).
	Complete(ctx context.Context, builder string, item WorkItem, res WorkResult) error
	// Discard removes an item builder holds without a result (its run is
	// gone: lease lost or table deleted).
	Discard(ctx context.Context, builder string, item WorkItem) error
	// Results returns results of the run published since the last call,
	// waiting up to wait for at least one.
	Results(ctx context.Context, table, runID string, wait time.Duration) ([]WorkResult, error)
	// Cancel removes the run's items that are still queued or claimed and
	// its uncollected results.
	Cancel(ctx context.Context, table, runID string, items []WorkItem) error
}

// WorkItem is one unit of a run's builds.
type WorkItem struct {
	ID    string `json:"-"` // set by Publish
	Table string `json:"table"`
	RunID string `json:"runId"`
	// Owner and Token are the run's lease: builders confirm it (W1).
	Owner string `json:"owner"`
	Token int64  `json:"token"`
	// Key names the unit (its segments are Key_0, Key_1, ...).
	Key string `json:"key"`
	// SnapshotID and MetadataLocation are the Iceberg table state the run
	// reads.
	SnapshotID       int64  `json:"snapshotId"`
	MetadataLocation string `json:"metadataLocation"`
	// Unit is the encoded unit: its data files and the delete files that
	// apply to them.
	Unit []byte `json:"unit"`
}

// Lease returns the run's lease as the store knows it.
func (it WorkItem) Lease() Lease { return Lease{Table: it.Table, Owner: it.Owner, Token: it.Token} }

// WorkResult is what a builder reports for one item.
type WorkResult struct {
	Key      string   `json:"key"`
	Segments []string `json:"segments"`
	Rows     int64    `json:"rows"`
	// FileRows is the rows each data file of the unit gave.
	FileRows map[string]int64 `json:"fileRows,omitempty"`
	// Error is set when the unit could not be built or uploaded.
	Error   string `json:"error,omitempty"`
	Builder string `json:"builder"`
}
