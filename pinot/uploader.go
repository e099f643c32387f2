package pinot

import (
	"context"
	"fmt"
	"github.com/floehq/floe/pinot/spec"
)

// Segment is a built segment ready to push: its name and its .tar.gz.
type Segment struct {
	Name    string
	TarPath string
}

// Uploader is what the watcher needs from Pinot. Implementations:
// Controller (a real cluster, optionally with a DeepStore) and LocalDir (a
// directory of tarballs with the same semantics). Every mutating call asks
// the Guard in its context first (WithGuard), before every attempt.
type Uploader interface {
	// EnsureTable creates or updates the schema, then creates the table
	// when missing.
	EnsureTable(ctx context.Context, schema *spec.Schema, table *spec.TableConfig) error
	// ListSegments returns the segments Pinot serves for the raw table:
	// segments of an open replacement's To list and segments already
	// replaced are left out. ErrTableMissing when there is no table.
	ListSegments(ctx context.Context, table string) ([]string, error)
	// Upload stores one segment under seg.Name; idempotent by name (a
	// re-upload of the same name refreshes it). Served at once, unless
	// seg.Name is in the To list of an open replacement: then served at
	// EndReplace.
	Upload(ctx context.Context, table string, seg Segment) error
	// StartReplace opens an atomic replacement of from by to (segment
	// names; either may be empty, not both) and returns its id. Open
	// replacements of the table that overlap it are reverted first (an
	// open one whose To names this one all reuses is dropped instead, its
	// uploaded segments kept). A To name of a reverted replacement is
	// ErrSegmentNameReverted.
	StartReplace(ctx context.Context, table string, from, to []string) (string, error)
	// EndReplace makes every To segment served and every From segment
	// unserved in one step. Ending an ended replacement succeeds; ending a
	// reverted one is ErrReplaceAborted.
	EndReplace(ctx context.Context, table, id string) error
	// RevertReplace abandons an open replacement (its uploaded To segments
	// are removed). Reverting a reverted one succeeds; an ended one is
	// ErrReplaceEnded. Its To names must not be used again while the
	// reverted replacement is remembered (ErrSegmentNameReverted).
	RevertReplace(ctx context.Context, table, id string) error
	// DeleteSegments removes served segments at once; missing names are no
	// error.
	DeleteSegments(ctx context.Context, table string, names []string) error
}

// Replace swaps the segments named in from for the segments in to so that
// queries see all of from or all of to, never a mix. A pure addition
// uploads each segment (no query can see a partial state of segments that
// replace nothing); a pure removal is one DeleteSegments (Pinot before 1.0
// cannot open a replacement with an empty To list); anything else is
// StartReplace, Upload each, EndReplace.
//
// A replacement that fails half-way is left open, not reverted: nothing of
// it is served, and the next StartReplace that overlaps it (a retry of the
// same swap) takes it over, keeping the To segments already uploaded.
// Reverting would be worse on Pinot: a reverted replacement keeps its To
// names, and a segment uploaded later under one of them is hidden from
// queries and then deleted by the controller's retention manager (see
// ErrSegmentNameReverted).
func Replace(ctx context.Context, up Uploader, table string, from []string, to []Segment) error {
	switch {
	case len(from) == 0:
		for _, s := range to {
			if err := up.Upload(ctx, table, s); err != nil {
				return err
			}
		}
		return nil
	case len(to) == 0:
		return up.DeleteSegments(ctx, table, from)
	}
	names := make([]string, len(to))
	for i, s := range to {
		names[i] = s.Name
	}
	id, err := up.StartReplace(ctx, table, from, names)
	if err != nil {
		return err
	}
	for _, s := range to {
		if err := up.Upload(ctx, table, s); err != nil {
			return fmt.Errorf("replace segments of %s (replacement %s left open): %w", table, id, err)
		}
	}
	if err := up.EndReplace(ctx, table, id); err != nil {
		return fmt.Errorf("replace segments of %s (replacement %s): %w", table, id, err)
	}
	return nil
}
