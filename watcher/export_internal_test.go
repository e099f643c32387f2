package watcher

import (
	"context"

	"github.com/floehq/floe/watcher/plan"
)

// ReadsDirect reports whether IcebergBuilder reads f of req with floe's
// own Parquet source rather than through the Iceberg scan.
func ReadsDirect(ctx context.Context, req BuildRequest, f plan.File) (bool, error) {
	u := &unitSource{b: IcebergBuilder{}, req: req, rows: map[string]int64{}, deletes: NewDeleteCache(0)}
	tasks, filter, err := u.ownDeletes(ctx, f)
	if err != nil {
		return false, err
	}
	src, ok, err := u.openDirect(ctx, f, tasks, filter)
	if src != nil {
		src.Close()
	}
	return ok, err
}

// CheckLags runs one pass of the lag checks and returns how many tables it
// checked.
func (w *Watcher) CheckLags(ctx context.Context) int { return w.checkLags(ctx) }
