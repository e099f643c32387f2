package api

import (
	"context"
	"sync"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// tableCacheMaxAge bounds how long a cached table list is served without
// a full re-read, even while the revision does not move (a store restored
// from an older copy could repeat revisions).
const tableCacheMaxAge = 30 * time.Second

// tableCache holds the table list of one store revision. Table records
// change only through table writes, each of which moves the store's
// revision (checkpoint C11, C12), so a list read at revision R is exact
// while the store still says R: a listing costs one small read (the
// revision) instead of every table record.
type tableCache struct {
	mu     sync.Mutex
	rev    int64
	tables []checkpoint.Table // sorted by name; shared, never modified
	read   time.Time
	ok     bool
}

// list returns every table, sorted by name. Callers must not modify the
// tables (their maps are shared by later calls).
func (c *tableCache) list(ctx context.Context, store storeCalls) ([]checkpoint.Table, error) {
	rev, err := store.TableRevision(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok && c.rev == rev && time.Since(c.read) < tableCacheMaxAge {
		return c.tables, nil
	}
	snap, err := store.SnapshotTables(ctx)
	if err != nil {
		return nil, err
	}
	c.rev, c.tables, c.read, c.ok = snap.Revision, snap.Tables, time.Now(), true
	return c.tables, nil
}
