package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/floehq/floe/internal/sleep"
)

// ErrStale: a compare-and-set table write found a newer record than the
// one it was based on (someone else changed the table in between). The
// API answers it with 409 Conflict.
var ErrStale = errors.New("table changed concurrently")

// TableSnapshot is every stored table as of one store revision.
type TableSnapshot struct {
	// Revision is the store's table revision the list reflects: every
	// table write up to it is in Tables (a later one may be too).
	Revision int64
	Tables   []Table // sorted by name
}

// TableChange is one write of a table record, as WatchTables delivers it.
//
// Revisions are consecutive: each table write takes the next revision, so
// a reader that holds every change up to revision n expects n+1 next. A
// change with a larger revision means changes were lost (the store kept
// only a bounded backlog, or a reader fell behind); so does the channel
// closing while the reader's context is alive. Either way the reader
// re-reads SnapshotTables and watches again from its revision.
type TableChange struct {
	Revision int64
	Name     string
	// Table is the record as written; nil when the table was deleted.
	Table *Table
}

// Bounded backlogs of table changes kept for WatchTables readers that
// resume from an older revision: Redis trims its change stream to about
// redisChangeStreamLen entries (replicas may be away for a while); Bolt
// and Memory keep changeBacklog changes in memory for the watchers of
// their own process.
const (
	redisChangeStreamLen = 1000
	changeBacklog        = 256
)

// UpdateTableFunc reads the named table, lets fn change it, and writes it
// back with UpdateTable. When another writer got in between, it starts
// again from a fresh read, at most attempts times in all; the error of
// the last lost race wraps ErrStale. fn may run more
// than once and must not keep the table; an error from fn is returned as
// is, with nothing written. This is the read-modify-write every edit of a
// table record goes through (pause, resume, PATCH).
func UpdateTableFunc(ctx context.Context, s Store, name string, attempts int, fn func(*Table) error) (Table, error) {
	if attempts < 1 {
		attempts = 1
	}
	var err error
	for i := range attempts {
		if i > 0 && !backoff(ctx, i) {
			return Table{}, fmt.Errorf("update table %q: %w", name, ctx.Err())
		}
		var t Table
		if t, err = s.GetTable(ctx, name); err != nil {
			return Table{}, err
		}
		if err := fn(&t); err != nil {
			return Table{}, err
		}
		t.Name = name
		var stored Table
		if stored, err = s.UpdateTable(ctx, t); err == nil {
			return stored, nil
		}
		if !errors.Is(err, ErrStale) {
			return Table{}, err
		}
	}
	return Table{}, fmt.Errorf("%w (gave up after %d attempts)", err, attempts)
}

// backoff sleeps a little longer with each attempt, jittered so that two
// writers racing for one table do not keep colliding. It reports false
// when ctx ended first.
func backoff(ctx context.Context, attempt int) bool {
	return sleep.For(ctx, time.Duration(attempt)*time.Millisecond+time.Duration(rand.IntN(1000*attempt))*time.Microsecond) == nil
}

// staleErr is the error of a compare-and-set that lost; the caller adds
// the operation and table.
func staleErr(stored, expected int64) error {
	return fmt.Errorf("%w (stored revision %d, expected %d)", ErrStale, stored, expected)
}

// changedTable returns the change a write of t makes.
func changedTable(t Table) TableChange {
	c := cloneTable(t)
	return TableChange{Revision: t.Revision, Name: t.Name, Table: &c}
}

// deletedTable returns the change a deletion at revision rev makes.
func deletedTable(name string, rev int64) TableChange {
	return TableChange{Revision: rev, Name: name}
}

func cloneTable(t Table) Table {
	t.TaskConfig = maps.Clone(t.TaskConfig)
	t.FieldIDs = maps.Clone(t.FieldIDs)
	t.SchemaJSON = slices.Clone(t.SchemaJSON)
	t.TableConfigJSON = slices.Clone(t.TableConfigJSON)
	return t
}
