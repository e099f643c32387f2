package pinot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// LineageReader is implemented by Uploaders that can report how segment
// lineage affects segment names. Pinot hides from queries any segment
// whose name is in the From list of an ended replacement or the To list of
// a reverted one, for as long as it remembers the replacement (hours), and
// its retention manager later deletes it: such a name must not be
// uploaded again. A caller that derives names deterministically picks
// other names for those.
type LineageReader interface {
	SegmentLineage(ctx context.Context, table string) (Lineage, error)
}

// Lineage is what a table's segment lineage says about names.
type Lineage struct {
	// Hidden are names Pinot hides whatever is uploaded under them.
	Hidden map[string]bool
	// Open are the To names of replacements neither ended nor reverted.
	Open map[string]bool
	// Replacements are those open replacements, with their ids: a caller
	// whose swap is exactly one of them resumes it (EndReplace by id)
	// instead of starting another.
	Replacements []OpenReplacement
}

// OpenReplacement is one replacement neither ended nor reverted.
type OpenReplacement struct {
	ID       string
	From, To []string
}

var (
	_ LineageReader = (*Controller)(nil)
	_ LineageReader = (*LocalDir)(nil)
)

// lineageOf folds entries (id → from, to, state) into a Lineage.
func lineageOf(each func(yield func(id string, from, to []string, state string))) Lineage {
	l := Lineage{Hidden: map[string]bool{}, Open: map[string]bool{}}
	each(func(id string, from, to []string, state string) {
		if state == lineageInProgress {
			l.Replacements = append(l.Replacements, OpenReplacement{ID: id, From: slices.Clone(from), To: slices.Clone(to)})
		}
		var names []string
		var into map[string]bool
		switch state {
		case lineageCompleted:
			names, into = from, l.Hidden
		case lineageReverted:
			names, into = to, l.Hidden
		case lineageInProgress, lineageEnding:
			names, into = to, l.Open
		}
		for _, s := range names {
			into[s] = true
		}
	})
	slices.SortFunc(l.Replacements, func(a, b OpenReplacement) int { return strings.Compare(a.ID, b.ID) })
	return l
}

// SegmentLineage reads the controller's segment lineage (empty when the
// table does not exist yet).
func (c *Controller) SegmentLineage(ctx context.Context, table string) (Lineage, error) {
	entries, err := c.lineage(ctx, table)
	var api *APIError
	if errors.As(err, &api) && api.Status == http.StatusNotFound {
		entries, err = nil, nil
	}
	if err != nil {
		return Lineage{}, fmt.Errorf("read segment lineage of %s: %w", table, err)
	}
	return lineageOf(func(yield func(id string, from, to []string, state string)) {
		for id, e := range entries {
			yield(id, e.SegmentsFrom, e.SegmentsTo, e.State)
		}
	}), nil
}

// SegmentLineage reads the table's current state (empty when the table does
// not exist).
func (d *LocalDir) SegmentLineage(_ context.Context, table string) (Lineage, error) {
	var l Lineage
	err := d.withTable(table, func(tx *tableTx) error {
		l = lineageOf(func(yield func(id string, from, to []string, state string)) {
			for id, e := range tx.lineage.Entries {
				yield(id, e.From, e.To, e.State)
			}
		})
		return nil
	})
	if errors.Is(err, ErrTableMissing) {
		return lineageOf(func(func(id string, from, to []string, state string)) {}), nil
	}
	if err != nil {
		return Lineage{}, fmt.Errorf("read segment lineage of %s: %w", table, err)
	}
	return l, nil
}
